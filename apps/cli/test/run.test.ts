import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  type FakeDialect,
  type FakeFailure,
  type FakeRequest,
  type FakeTurn,
  startFakeProvider,
} from './fake-provider.js';
import { type Json, makeProject, runToolhost, spawnToolhost, waitFor } from './helpers.js';

const PROJECT = {
  'README.md': '# Lantern\n\nLantern is a tiny demo project that lights up logs.\n',
  'package.json': '{ "name": "lantern", "scripts": { "test": "node --test" } }\n',
  'src/index.ts': 'export function shine(level: number): string {\n  return "*".repeat(level);\n}\n',
  'src/dim.ts': 'export function dim(): string {\n  return "";\n}\n',
};

/** How each provider is selected and authenticated on the command line. */
const PROVIDERS: Record<
  FakeDialect,
  { args: string[]; env: Record<string, string>; auth: (request: FakeRequest) => void }
> = {
  'openai-chat': {
    args: ['--provider', 'openai-compatible', '--model', 'fake-model'],
    env: { OPENAI_API_KEY: 'test-openai-key' },
    auth: (request) => assert.equal(request.headers.authorization, 'Bearer test-openai-key'),
  },
  'openai-responses': {
    args: ['--provider', 'openai', '--model', 'fake-model'],
    env: { OPENAI_API_KEY: 'test-openai-key' },
    auth: (request) => assert.equal(request.headers.authorization, 'Bearer test-openai-key'),
  },
  anthropic: {
    args: ['--provider', 'anthropic', '--model', 'fake-model'],
    env: { ANTHROPIC_API_KEY: 'test-anthropic-key' },
    auth: (request) => {
      assert.equal(request.headers['x-api-key'], 'test-anthropic-key');
      assert.equal(request.headers['anthropic-version'], '2023-06-01');
    },
  },
  gemini: {
    args: ['--provider', 'gemini', '--model', 'fake-model'],
    env: { GEMINI_API_KEY: 'test-gemini-key' },
    auth: (request) => assert.equal(request.headers['x-goog-api-key'], 'test-gemini-key'),
  },
};

/** The wire path each dialect must use when streaming. */
const PATHS: Record<FakeDialect, string> = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  anthropic: '/v1/messages',
  gemini: '/v1beta/models/fake-model:streamGenerateContent?alt=sse',
};

/** A provider's own rate-limit error body. */
const RATE_LIMITED: Record<FakeDialect, FakeFailure> = {
  'openai-chat': {
    status: 429,
    headers: { 'retry-after-ms': '20' },
    body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
  },
  'openai-responses': {
    status: 503,
    headers: { 'retry-after-ms': '20' },
    body: { error: { message: 'Service unavailable', type: 'server_error' } },
  },
  anthropic: {
    status: 529,
    headers: { 'retry-after': '0' },
    body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  },
  gemini: {
    status: 429,
    headers: { 'retry-after-ms': '20' },
    body: { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } },
  },
};

const capability = (tool: string, args: Record<string, unknown>) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: `tool:${tool}`, arguments: args },
});

/**
 * A scripted model that explores the project read-only in three turns, deciding from what the
 * tools returned: turn 1 lists the root and reads the README in parallel; turn 2 greps the sources
 * and tries a path outside the root in parallel; turn 3 answers with facts it could only know from
 * the results. What it saw is kept in `seen` for the test.
 */
function explorer() {
  const seen: { turn: number; results: FakeRequest['results'] }[] = [];
  const script = (request: FakeRequest): FakeTurn => {
    seen.push({ turn: request.turn, results: request.results });
    if (request.turn === 0) {
      return {
        text: 'I will look at the layout and the README first.',
        calls: [capability('ls', { path: '.' }), { name: 'read_file', arguments: { path: 'README.md' } }],
      };
    }
    if (request.turn === 1) {
      return {
        text: 'Now the sources.',
        calls: [
          capability('grep', { pattern: 'export function', path: 'src' }),
          { name: 'read_file', arguments: { path: '../outside.txt' } },
        ],
      };
    }
    const readme = request.turn === 2 ? (seen[1]?.results[1]?.text ?? '') : '';
    const heading = /# (\w+)/.exec(readme)?.[1] ?? 'unknown';
    const exported = [...(request.results[0]?.text ?? '').matchAll(/export function (\w+)/g)].map(
      (match) => match[1],
    );
    const refused = /PATH_OUTSIDE_ROOT/.test(request.results[1]?.text ?? '') ? 'refused' : 'allowed';
    return {
      text: `Summary: ${heading} exports ${exported.sort().join(', ')}; the outside path was ${refused}.`,
    };
  };
  return { seen, script };
}

async function snapshot(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    // The state directory and the transcript are the run's own output, not the project.
    if (path.startsWith(join(root, '.toolhost')) || path === join(root, 'run.jsonl')) continue;
    out.push(`${path}:${entry.isFile() ? await readFile(path, 'utf8') : 'dir'}`);
  }
  return out.sort();
}

describe('toolhost run', () => {
  for (const dialect of Object.keys(PROVIDERS) as FakeDialect[]) {
    it(`completes a multi-step read-only exploration over ${dialect} (streaming, parallel calls, a retry)`, async () => {
      const project = await makeProject(PROJECT);
      const model = explorer();
      const fake = await startFakeProvider({
        dialect,
        script: model.script,
        failures: [RATE_LIMITED[dialect]],
      });
      try {
        const before = await snapshot(project.root);
        const provider = PROVIDERS[dialect];
        const result = await runToolhost(
          [
            'run',
            'Explore this project and summarise it.',
            ...provider.args,
            '--base-url',
            fake.baseUrl,
            '--transcript',
            'run.jsonl',
          ],
          { cwd: project.root, env: provider.env },
        );
        assert.equal(result.code, 0, result.stderr);
        // The retry: the first request failed with the provider's own error and was sent again.
        assert.match(result.stderr, /retrying in \d+\.\ds \(attempt 1\)/);
        assert.equal(fake.requests.length, 4);
        assert.deepEqual(fake.requests[0]!.body, fake.requests[1]!.body);
        for (const request of fake.requests) {
          provider.auth(request);
          assert.equal(request.path, PATHS[dialect]);
          assert.ok(request.toolNames.includes('read_file'), 'the surface is offered');
          assert.ok(request.toolNames.includes('use_capability'), 'the surface is offered');
          assert.ok(!request.toolNames.includes('write_file'), 'read_only offers no write tools');
        }
        // Parallel calls came back as two results, in order, in the dialect's own result shape.
        const [, , second, third] = fake.requests;
        assert.equal(second!.results.length, 2);
        assert.match(second!.results[1]!.text, /Lantern is a tiny demo project/);
        assert.equal(third!.results.length, 2);
        assert.match(third!.results[0]!.text, /shine/);
        assert.match(third!.results[1]!.text, /PATH_OUTSIDE_ROOT/);
        if (dialect === 'anthropic') {
          assert.equal(third!.results[0]!.isError, false);
          assert.equal(third!.results[1]!.isError, true);
        }
        // The answer streamed to stdout and depends on what the tools returned.
        assert.match(result.stdout, /Summary: Lantern exports dim, shine; the outside path was refused\./);
        // Nothing in the project changed.
        assert.deepEqual(await snapshot(project.root), before);
        // The transcript holds the policy, both batches and the outcome.
        const rows = (await readFile(join(project.root, 'run.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        assert.equal(rows[0].type, 'run-started');
        assert.equal(rows[0].sandbox, 'read_only');
        assert.equal(rows[0].dialect, dialect);
        const batches = rows.filter((row) => row.type === 'tool-batch');
        assert.equal(batches.length, 2);
        assert.deepEqual(
          batches[1].results.map(
            (entry: { status: string; error: { code: string } | null }) => entry.error?.code ?? entry.status,
          ),
          ['ok', 'PATH_OUTSIDE_ROOT'],
        );
        assert.equal(rows.filter((row) => row.type === 'retry').length, 1);
        const finished = rows[rows.length - 1];
        assert.equal(finished.type, 'run-finished');
        assert.equal(finished.status, 'succeeded');
        assert.equal(finished.rounds, 3);
        assert.ok(!JSON.stringify(rows).includes('test-'), 'no key in the transcript');
      } finally {
        await fake.close();
        await project.cleanup();
      }
    });

    it(`fails with exit 1 on a provider error in the ${dialect} stream, without retrying it`, async () => {
      const project = await makeProject(PROJECT);
      const fake = await startFakeProvider({ dialect, script: explorer().script, streamErrorAtTurn: 0 });
      try {
        const provider = PROVIDERS[dialect];
        const result = await runToolhost(['run', ...provider.args, '--base-url', fake.baseUrl], {
          cwd: project.root,
          env: provider.env,
        });
        assert.equal(result.code, 1, result.stderr);
        assert.equal(fake.requests.length, 1);
        assert.match(
          result.stderr,
          /run failed after 1 rounds: PROVIDER_ERROR: .*(error|Overloaded|overloaded)/i,
        );
        const runs = await readdir(join(project.root, '.toolhost', 'runs'));
        assert.equal(runs.length, 1, 'the transcript goes under the state directory by default');
      } finally {
        await fake.close();
        await project.cleanup();
      }
    });
  }

  it('does not retry a 4xx that is not 408, 409 or 429, and exits 1 with the provider message', async () => {
    const project = await makeProject(PROJECT);
    const fake = await startFakeProvider({
      dialect: 'openai-chat',
      script: explorer().script,
      failures: [
        {
          status: 401,
          body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
        },
      ],
    });
    try {
      const result = await runToolhost(
        ['run', ...PROVIDERS['openai-chat'].args, '--base-url', fake.baseUrl],
        {
          cwd: project.root,
          env: PROVIDERS['openai-chat'].env,
        },
      );
      assert.equal(result.code, 1);
      assert.equal(fake.requests.length, 1);
      assert.match(result.stderr, /the provider answered 401: Incorrect API key provided/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('says exactly what to set and exits 2 when no provider is configured', async () => {
    const project = await makeProject(PROJECT);
    try {
      const result = await runToolhost(['run'], { cwd: project.root });
      assert.equal(result.code, 2);
      assert.equal(
        result.stderr,
        'toolhost: no model provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY, or GEMINI_API_KEY (or GOOGLE_API_KEY), ' +
          'or point at an OpenAI-compatible server with --provider openai-compatible --base-url http://127.0.0.1:PORT/v1 --model NAME\n',
      );
      const missing: [string[], RegExp][] = [
        [['--provider', 'anthropic'], /--provider anthropic needs ANTHROPIC_API_KEY/],
        [['--provider', 'gemini'], /--provider gemini needs GEMINI_API_KEY \(or GOOGLE_API_KEY\)/],
        [['--provider', 'openai'], /--provider openai needs OPENAI_API_KEY/],
        [['--provider', 'openai-compatible'], /needs --base-url/],
        [['--provider', 'openai-compatible', '--base-url', 'http://127.0.0.1:1/v1'], /needs --model/],
        [
          ['--provider', 'anthropic', '--dialect', 'openai-chat'],
          /--dialect applies to the openai providers only/,
        ],
      ];
      for (const [args, reason] of missing) {
        const run = await runToolhost(['run', ...args], {
          cwd: project.root,
          env: args.includes('--dialect') ? { ANTHROPIC_API_KEY: 'k' } : {},
        });
        assert.equal(run.code, 2, args.join(' '));
        assert.match(run.stderr, reason);
      }
    } finally {
      await project.cleanup();
    }
  });

  it('stops at the round limit with exit 1', async () => {
    const project = await makeProject(PROJECT);
    const fake = await startFakeProvider({
      dialect: 'openai-chat',
      script: () => ({ calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }),
    });
    try {
      const result = await runToolhost(
        ['run', ...PROVIDERS['openai-chat'].args, '--base-url', fake.baseUrl, '--max-rounds', '2'],
        { cwd: project.root, env: PROVIDERS['openai-chat'].env },
      );
      assert.equal(result.code, 1);
      assert.equal(fake.requests.length, 2);
      assert.match(result.stderr, /ROUND_LIMIT: the round limit \(2\) was reached/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('stops the running tools on the first Ctrl-C and tells the model, then finishes the run', async () => {
    const project = await makeProject(PROJECT);
    const fake = await startFakeProvider({
      dialect: 'anthropic',
      script: (request) =>
        request.turn === 0
          ? { calls: [{ name: 'bash', arguments: { command: 'sleep 60' } }] }
          : { text: `The command ended: ${request.results[0]?.text.split(':')[0]}` },
    });
    const child = spawnToolhost(['run', ...PROVIDERS.anthropic.args, '--base-url', fake.baseUrl], {
      cwd: project.root,
      env: PROVIDERS.anthropic.env,
    });
    let stderr = '';
    let stdout = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => stderr.includes('→ bash'));
      child.kill('SIGINT');
      const code = await exited;
      assert.equal(code, 0, stderr);
      assert.match(stderr, /stopping the running tools/);
      assert.equal(fake.requests.length, 2);
      assert.match(fake.requests[1]!.results[0]!.text, /^ABORTED/);
      assert.equal(fake.requests[1]!.results[0]!.isError, true);
      assert.match(stdout, /The command ended: ABORTED/);
    } finally {
      child.kill('SIGKILL');
      await fake.close();
      await project.cleanup();
    }
  });

  it('stops the run on Ctrl-C while the model is answering, exit 130 and a cancelled transcript', async () => {
    const project = await makeProject(PROJECT);
    const fake = await startFakeProvider({ dialect: 'gemini', script: explorer().script, holdAtTurn: 0 });
    const child = spawnToolhost(
      ['run', ...PROVIDERS.gemini.args, '--base-url', fake.baseUrl, '--transcript', 'cancelled.jsonl'],
      { cwd: project.root, env: PROVIDERS.gemini.env },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => fake.requests.length === 1);
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      const rows = (await readFile(join(project.root, 'cancelled.jsonl'), 'utf8')).trim().split('\n');
      assert.equal(JSON.parse(rows[rows.length - 1]!).status, 'cancelled');
    } finally {
      child.kill('SIGKILL');
      await fake.close();
      await project.cleanup();
    }
  });

  it('puts background-job notes between turns and prints events as JSON lines with --json', async () => {
    const project = await makeProject(PROJECT);
    const fake = await startFakeProvider({
      dialect: 'openai-chat',
      script: (request) => {
        if (request.turn === 0) {
          return {
            calls: [
              { name: 'bash', arguments: { command: 'echo background-finished', run_in_background: true } },
            ],
          };
        }
        if (request.turn === 1) return { calls: [{ name: 'bash', arguments: { command: 'sleep 2' } }] };
        const notes = (request.body.messages as Json[]).filter(
          (message) => message.role === 'user' && /Background job updates/.test(String(message.content)),
        );
        return { text: `notes: ${notes.length}` };
      },
    });
    try {
      const result = await runToolhost(
        ['run', ...PROVIDERS['openai-chat'].args, '--base-url', fake.baseUrl, '--json'],
        { cwd: project.root, env: PROVIDERS['openai-chat'].env },
      );
      assert.equal(result.code, 0, result.stderr);
      const events = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(events[0].type, 'run-started');
      assert.ok(events.some((event) => event.type === 'text-delta'));
      assert.equal(events[events.length - 1].type, 'run-finished');
      assert.equal(events[events.length - 1].answer, 'notes: 1');
      const noteMessage = events.find(
        (event) =>
          event.type === 'message' &&
          event.message.role === 'user' &&
          /Background job updates/.test(event.message.content),
      );
      assert.ok(noteMessage, 'the note is committed to the conversation');
      assert.match(noteMessage.message.content, /bash-1/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });
});
