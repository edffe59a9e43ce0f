import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type FakeDialect,
  type FakeRequest,
  type FakeToolResult,
  type FakeTurn,
  startFakeProvider,
} from './fake-provider.js';
import { type Json, makeProject, runToolhost, spawnToolhost, waitFor } from './helpers.js';

const PROJECT = {
  'README.md': '# Lantern\n\nLantern is a tiny demo project that lights up logs.\n',
  'src/index.ts': 'export function shine(level: number): string {\n  return "*".repeat(level);\n}\n',
  'src/dim.ts': 'export function dim(): string {\n  return "";\n}\n',
};

const PROVIDERS: Record<FakeDialect, { args: string[]; env: Record<string, string> }> = {
  'openai-chat': {
    args: ['--provider', 'openai-compatible', '--model', 'fake-model'],
    env: { OPENAI_API_KEY: 'test-openai-key' },
  },
  'openai-responses': {
    args: ['--provider', 'openai', '--model', 'fake-model'],
    env: { OPENAI_API_KEY: 'test-openai-key' },
  },
  anthropic: { args: ['--provider', 'anthropic', '--model', 'fake-model'], env: { ANTHROPIC_API_KEY: 'k' } },
  gemini: { args: ['--provider', 'gemini', '--model', 'fake-model'], env: { GEMINI_API_KEY: 'k' } },
};

const memoryServer = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-memory/dist/index.js',
);
const countStarts = fileURLToPath(new URL('./fixtures/count-starts.mjs', import.meta.url));

/** Who sent a request: the main agent, a subagent (by its system prompt) or the planner. */
function roleOf(request: FakeRequest): 'agent' | 'subagent' | 'planner' {
  const body = JSON.stringify(request.body);
  if (body.includes('You are a subagent')) return 'subagent';
  if (body.includes('You are the planner')) return 'planner';
  return 'agent';
}

/** A tool result's text as the model saw it (Gemini wraps it in `response.output` or `.error`). */
function textOf(dialect: FakeDialect, result: FakeToolResult | undefined): string {
  if (!result) return '';
  if (dialect !== 'gemini') return result.text;
  const response = JSON.parse(result.text);
  return String(response.output ?? response.error ?? '');
}

const capability = (tool: string, args: Record<string, unknown>) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: `tool:${tool}`, arguments: args },
});
const mcp = (id: string, args: Record<string, unknown> = {}) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: id, arguments: args },
});

const referenceIn = (text: string): string => {
  const match = /Subagent reference: (sa_[0-9a-f]{24})/.exec(text);
  assert.ok(match, `no reference in: ${text.slice(0, 400)}`);
  return match[1]!;
};

function rows(path: string): Json[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function runs(root: string): string[] {
  return readdirSync(join(root, '.toolhost', 'runs')).sort();
}

/** The subagent records of a project (every lineage). */
function records(root: string): Json[] {
  const out: Json[] = [];
  const sessions = join(root, '.toolhost', 'sessions');
  for (const id of readdirSync(sessions)) {
    const dir = join(sessions, id, 'subagents');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (/^sa_[0-9a-f]{24}\.json$/.test(name)) out.push(JSON.parse(readFileSync(join(dir, name), 'utf8')));
    }
  }
  return out;
}

/** A deterministic answer of just over 100 KB, multi-byte, so pages must cut on character boundaries. */
const BIG_ANSWER = Array.from(
  { length: 2_700 },
  (_, line) => `${line}: Lantern résumé — 日本語 ✓ ${'~'.repeat(line % 17)}`,
).join('\n');

describe('toolhost run: subagents', () => {
  for (const dialect of Object.keys(PROVIDERS) as FakeDialect[]) {
    it(`task returns a preview under the cap and a reference; read_subagent_result reassembles the 100 KB answer exactly (${dialect})`, async () => {
      const project = await makeProject(PROJECT);
      const seen: { task?: string; pages: string[] } = { pages: [] };
      const script = (request: FakeRequest): FakeTurn => {
        if (roleOf(request) === 'subagent') {
          if (request.turn === 0) return { calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
          const readme = textOf(dialect, request.results[0]);
          return {
            text: `${/Lantern is a tiny demo/.test(readme) ? 'README read.' : 'no README'}\n${BIG_ANSWER}`,
          };
        }
        if (request.turn === 0) {
          return { calls: [capability('task', { description: 'survey', prompt: 'Describe the project.' })] };
        }
        const latest = textOf(dialect, request.results[0]);
        if (request.turn === 1) seen.task = latest;
        else seen.pages.push(latest);
        const reference = referenceIn(seen.task ?? '');
        const header = request.turn === 1 ? undefined : JSON.parse(latest.slice(0, latest.indexOf('\n')));
        if (header?.complete) {
          const whole = seen.pages.map((page) => page.slice(page.indexOf('\n') + 1)).join('');
          const sha = createHash('sha256').update(whole, 'utf8').digest('hex');
          return {
            text: `reassembled ${Buffer.byteLength(whole)} bytes, sha256 ${sha} (header ${header.sha256})`,
          };
        }
        return {
          calls: [capability('read_subagent_result', { reference, offset: header?.next_offset ?? 0 })],
        };
      };
      const fake = await startFakeProvider({ dialect, script });
      try {
        const provider = PROVIDERS[dialect];
        const result = await runToolhost(
          ['run', 'Survey it.', ...provider.args, '--base-url', fake.baseUrl, '--transcript', 'run.jsonl'],
          { cwd: project.root, env: provider.env },
        );
        assert.equal(result.code, 0, result.stderr);
        const full = `README read.\n${BIG_ANSWER}`;
        assert.ok(Buffer.byteLength(full) > 100_000);
        const sha = createHash('sha256').update(full).digest('hex');
        assert.match(
          result.stdout,
          new RegExp(`reassembled ${Buffer.byteLength(full)} bytes, sha256 ${sha} \\(header ${sha}\\)`),
        );
        // The task result: under the cap, a preview, the reference, the status.
        const task = seen.task ?? '';
        assert.ok(Buffer.byteLength(task) <= 32 * 1024, `${Buffer.byteLength(task)} bytes`);
        assert.match(task, /status: completed; retryable: false; read_only: false/);
        assert.match(task, /--- answer \(first \d+ of \d+ bytes\) ---\nREADME read\./);
        assert.ok(!/result_ref|tr-[0-9a-f]{24}/.test(task), 'the host never had to cut it');
        assert.ok(seen.pages.length >= 7, `${seen.pages.length} pages`);
        // The subagent's own transcript, named after its reference, beside the run's.
        const reference = referenceIn(task);
        const own = runs(project.root).filter((name) => name.includes(reference));
        assert.equal(own.length, 1);
        const child = rows(join(project.root, '.toolhost', 'runs', own[0]!));
        assert.equal(child[0].type, 'run-started');
        assert.equal(child[0].role, 'subagent');
        assert.equal(child[child.length - 1].status, 'succeeded');
        const parent = rows(join(project.root, 'run.jsonl'));
        assert.equal(parent.filter((row) => row.type === 'subagent-started').length, 1);
        const finished = parent.find((row) => row.type === 'subagent-finished');
        assert.equal(finished.status, 'completed');
        assert.equal(finished.reference, reference);
        assert.match(result.stderr, new RegExp(`subagent ${reference} completed`));
      } finally {
        await fake.close();
        await project.cleanup();
      }
    });
  }

  it('parallel_tasks with four subagents returns four fair previews within 32 KiB', async () => {
    const project = await makeProject(PROJECT);
    let merged = '';
    const script = (request: FakeRequest): FakeTurn => {
      if (roleOf(request) === 'subagent') {
        const part = /PART-(\d)/.exec(JSON.stringify(request.body))?.[1] ?? '?';
        return { text: `part ${part}: ${'ß'.repeat(10_000)}` };
      }
      if (request.turn === 0) {
        return {
          calls: [
            capability('parallel_tasks', {
              tasks: [1, 2, 3, 4].map((index) => ({
                description: `part ${index}`,
                prompt: `Investigate PART-${index}.`,
                read_only: true,
              })),
            }),
          ],
        };
      }
      merged = textOf('openai-responses', request.results[0]);
      return { text: 'merged' };
    };
    const fake = await startFakeProvider({ dialect: 'openai-responses', script });
    try {
      const result = await runToolhost(
        ['run', ...PROVIDERS['openai-responses'].args, '--base-url', fake.baseUrl],
        {
          cwd: project.root,
          env: PROVIDERS['openai-responses'].env,
        },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.ok(Buffer.byteLength(merged) <= 32 * 1024, `${Buffer.byteLength(merged)} bytes`);
      assert.match(merged, /^4 subagents: 4 completed\./);
      const previews = [...merged.matchAll(/--- answer \(first (\d+) of 20008 bytes\) ---\npart (\d):/g)];
      assert.deepEqual(previews.map((match) => match[2]).sort(), ['1', '2', '3', '4']);
      const sizes = previews.map((match) => Number(match[1]));
      assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 2, `fair: ${sizes}`);
      assert.ok(Math.min(...sizes) > 6_000, `most of the output is previews: ${sizes}`);
      assert.equal(
        new Set([...merged.matchAll(/Subagent reference: (sa_[0-9a-f]{24})/g)].map((m) => m[1])).size,
        4,
      );
      assert.ok(!/result_ref/.test(merged), 'the host never had to cut it');
      assert.equal(records(project.root).length, 4);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it("refuses a read-only subagent's write_file and destructive MCP tool while a readOnlyHint MCP tool runs", async () => {
    const project = await makeProject(PROJECT);
    const outside = await makeProject({
      'memory.jsonl': `${JSON.stringify({ type: 'entity', name: 'lamp', entityType: 'thing', observations: ['bright'] })}\n`,
    });
    const config = join(outside.root, 'toolhost.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [memoryServer],
            env: { MEMORY_FILE_PATH: join(outside.root, 'memory.jsonl') },
            trusted: true,
            // A loaded machine may take a while to start node.
            timeouts: { handshakeMs: 60_000 },
          },
        },
      }),
    );
    let childSaw: string[] = [];
    let parentSaw = '';
    const script = (request: FakeRequest): FakeTurn => {
      if (roleOf(request) === 'subagent') {
        if (request.turn === 0) {
          return {
            calls: [
              { name: 'write_file', arguments: { path: 'new.txt', content: 'x' } },
              mcp('mcp-tool:memory/delete_entities', { entityNames: ['lamp'] }),
              mcp('mcp-tool:memory/read_graph'),
            ],
          };
        }
        childSaw = request.results.map((entry) => textOf('anthropic', entry));
        return {
          text: `codes: ${childSaw.map((text) => /^[A-Z_]+(?=:)/.exec(text)?.[0] ?? 'ok').join(' ')}`,
        };
      }
      if (request.turn === 0) {
        return {
          calls: [capability('task', { description: 'inspect', prompt: 'Look around.', read_only: true })],
        };
      }
      parentSaw = textOf('anthropic', request.results[0]);
      return { text: 'checked' };
    };
    const fake = await startFakeProvider({ dialect: 'anthropic', script });
    try {
      const result = await runToolhost(
        [
          'run',
          ...PROVIDERS.anthropic.args,
          '--base-url',
          fake.baseUrl,
          '--sandbox',
          'workspace_write',
          '--config',
          config,
        ],
        { cwd: project.root, env: PROVIDERS.anthropic.env },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(childSaw[0] ?? '', /^PERMISSION_DENIED/);
      assert.match(
        childSaw[1] ?? '',
        /^PERMISSION_DENIED: "mcp__memory__delete_entities" is not declared read-only/,
      );
      assert.match(childSaw[2] ?? '', /lamp/);
      assert.match(parentSaw, /codes: PERMISSION_DENIED PERMISSION_DENIED ok/);
      assert.match(parentSaw, /read_only: true/);
      assert.ok(!existsSync(join(project.root, 'new.txt')));
      assert.match(readFileSync(join(outside.root, 'memory.jsonl'), 'utf8'), /"name":"lamp"/);
    } finally {
      await fake.close();
      await project.cleanup();
      await outside.cleanup();
    }
  });

  it('a subagent stopped by its step limit is partial and retryable, and continue_from finishes it', async () => {
    const project = await makeProject(PROJECT);
    const parentSaw: string[] = [];
    const continued: FakeRequest[] = [];
    const script = (request: FakeRequest): FakeTurn => {
      if (roleOf(request) === 'subagent') {
        const body = JSON.stringify(request.body);
        if (body.includes('Continue it: name the exported function')) {
          continued.push(request);
          return {
            text: `CONTINUED after ${request.turn} turns: ${/export function (\w+)/.exec(body)?.[1]}`,
          };
        }
        if (request.turn === 0) {
          return {
            text: 'Reading the README first.',
            calls: [{ name: 'read_file', arguments: { path: 'README.md' } }],
          };
        }
        return {
          text: 'Now the sources.',
          calls: [{ name: 'read_file', arguments: { path: 'src/index.ts' } }],
        };
      }
      const latest = textOf('gemini', request.results[0]);
      if (request.turn === 0) {
        return { calls: [capability('task', { description: 'find exports', prompt: 'List the exports.' })] };
      }
      parentSaw.push(latest);
      if (request.turn === 1) {
        return {
          calls: [
            capability('task', {
              description: 'find exports',
              prompt: 'name the exported function',
              continue_from: referenceIn(latest),
            }),
          ],
        };
      }
      return { text: `final: ${/CONTINUED[^\n]*/.exec(latest)?.[0]}` };
    };
    const fake = await startFakeProvider({ dialect: 'gemini', script });
    try {
      const result = await runToolhost(
        ['run', ...PROVIDERS.gemini.args, '--base-url', fake.baseUrl, '--subagent-max-rounds', '2'],
        { cwd: project.root, env: PROVIDERS.gemini.env },
      );
      assert.equal(result.code, 0, result.stderr);
      const [partial, completed] = parentSaw;
      assert.match(partial ?? '', /status: partial; retryable: true; read_only: false/);
      assert.match(partial ?? '', /error: ROUND_LIMIT/);
      assert.match(partial ?? '', /--- answer \(complete\) ---\nNow the sources\./);
      const reference = referenceIn(partial ?? '');
      assert.equal(referenceIn(completed ?? ''), reference, 'the reference is stable');
      assert.match(completed ?? '', /status: completed; retryable: false; read_only: false; runs: 2/);
      // The continued subagent went on with its conversation: its two earlier turns, the files it read.
      assert.equal(continued.length, 1);
      assert.equal(continued[0]!.turn, 2);
      assert.match(JSON.stringify(continued[0]!.body), /Lantern is a tiny demo project/);
      assert.match(result.stdout, /final: CONTINUED after 2 turns: shine/);
      const [record] = records(project.root);
      assert.equal(record.status, 'completed');
      assert.equal(record.runs, 2);
      assert.equal(
        runs(project.root).filter((name) => name.includes(reference)).length,
        2,
        'a transcript per run',
      );
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('refuses a reference from another project root (and from another run of the same project)', async () => {
    const first = await makeProject(PROJECT);
    const second = await makeProject(PROJECT);
    let reference = '';
    const seen: string[] = [];
    const script = (request: FakeRequest): FakeTurn => {
      if (roleOf(request) === 'subagent') return { text: 'the private findings of project one' };
      if (!reference) {
        if (request.turn === 0) return { calls: [capability('task', { description: 'a', prompt: 'b' })] };
        reference = referenceIn(textOf('openai-chat', request.results[0]));
        return { text: 'done' };
      }
      if (request.turn === 0) return { calls: [capability('read_subagent_result', { reference })] };
      seen.push(textOf('openai-chat', request.results[0]));
      return { text: 'tried' };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const args = ['run', ...PROVIDERS['openai-chat'].args, '--base-url', fake.baseUrl];
      const env = PROVIDERS['openai-chat'].env;
      assert.equal((await runToolhost(args, { cwd: first.root, env })).code, 0);
      assert.match(reference, /^sa_[0-9a-f]{24}$/);
      assert.equal((await runToolhost(args, { cwd: second.root, env })).code, 0);
      assert.equal((await runToolhost(args, { cwd: first.root, env })).code, 0);
      assert.equal(seen.length, 2);
      for (const text of seen) {
        assert.match(text, /^SUBAGENT_NOT_FOUND: /);
        assert.ok(!text.includes('private findings'));
      }
    } finally {
      await fake.close();
      await first.cleanup();
      await second.cleanup();
    }
  });

  it('stops the running subagents on the first Ctrl-C: cancelled and retryable, and the run goes on', async () => {
    const project = await makeProject(PROJECT);
    let parentSaw = '';
    const fake = await startFakeProvider({
      dialect: 'anthropic',
      // The second request is the subagent's first: it is held open until the run lets it go.
      holdAtTurn: 1,
      script: (request) => {
        if (request.turn === 0)
          return { calls: [capability('task', { description: 'slow', prompt: 'Think.' })] };
        parentSaw = textOf('anthropic', request.results[0]);
        return { text: `heard: ${parentSaw.split(':')[0]}` };
      },
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
      await waitFor(() => fake.requests.length === 2 && stderr.includes('subagent sa_'));
      child.kill('SIGINT');
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, /stopping the running tools and subagents/);
      assert.match(parentSaw, /^ABORTED: /);
      assert.match(parentSaw, /status: cancelled; retryable: true/);
      assert.match(stdout, /heard: ABORTED/);
      const [record] = records(project.root);
      assert.equal(record.status, 'cancelled');
      assert.equal(record.retryable, true);
      assert.equal(record.reference, referenceIn(parentSaw));
    } finally {
      child.kill('SIGKILL');
      await fake.close();
      await project.cleanup();
    }
  });

  it('run --planner: the planner cannot write, the executor edits, both transcripts exist, the MCP server starts once', async () => {
    const project = await makeProject(PROJECT);
    const outside = await makeProject({
      'memory.jsonl': `${JSON.stringify({ type: 'entity', name: 'lamp', entityType: 'thing', observations: [] })}\n`,
    });
    const config = join(outside.root, 'toolhost.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [countStarts],
            env: {
              COUNT_FILE: join(outside.root, 'starts.txt'),
              SERVER_MODULE: memoryServer,
              MEMORY_FILE_PATH: join(outside.root, 'memory.jsonl'),
            },
            trusted: true,
            // A loaded machine may take a while to start node.
            timeouts: { handshakeMs: 60_000 },
          },
        },
      }),
    );
    const planner: string[][] = [];
    const executor: string[][] = [];
    const script = (request: FakeRequest): FakeTurn => {
      const role = roleOf(request);
      const results = request.results.map((entry) => textOf('openai-chat', entry));
      if (role === 'planner') {
        planner.push(results);
        if (request.turn === 0) {
          return {
            calls: [mcp('mcp-server:memory'), { name: 'read_file', arguments: { path: 'src/dim.ts' } }],
          };
        }
        if (request.turn === 1) {
          return {
            calls: [
              { name: 'write_file', arguments: { path: 'src/dim.ts', content: 'planner was here' } },
              mcp('mcp-tool:memory/delete_entities', { entityNames: ['lamp'] }),
            ],
          };
        }
        return { text: 'PLAN: 1. make dim() return "dim" in src/dim.ts. 2. record the change in memory.' };
      }
      executor.push(results);
      if (request.turn === 0) {
        assert.match(JSON.stringify(request.body), /PLAN: 1\. make dim\(\) return/);
        return { calls: [{ name: 'read_file', arguments: { path: 'src/dim.ts' } }] };
      }
      if (request.turn === 1) {
        return {
          calls: [
            {
              name: 'edit_file',
              arguments: { path: 'src/dim.ts', old_string: 'return "";', new_string: 'return "dim";' },
            },
            mcp('mcp-tool:memory/create_entities', {
              entities: [{ name: 'dim-change', entityType: 'change', observations: ['dim returns dim'] }],
            }),
          ],
        };
      }
      return { text: 'executed' };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const result = await runToolhost(
        [
          'run',
          'Make dim() return "dim".',
          '--planner',
          ...PROVIDERS['openai-chat'].args,
          '--base-url',
          fake.baseUrl,
          '--sandbox',
          'workspace_write',
          '--config',
          config,
          '--transcript',
          'run.jsonl',
        ],
        { cwd: project.root, env: PROVIDERS['openai-chat'].env },
      );
      assert.equal(result.code, 0, result.stderr);
      // The planner: its write and its destructive MCP call refused, the connection made.
      assert.match(planner[1]?.[0] ?? '', /connected MCP server "memory"/);
      assert.match(planner[2]?.[0] ?? '', /^PERMISSION_DENIED/);
      assert.match(planner[2]?.[1] ?? '', /^PERMISSION_DENIED/);
      // The executor: its edit and its MCP call went through, on the planner's connection.
      assert.match(executor[2]?.[0] ?? '', /dim/);
      assert.ok(!/^[A-Z_]+:/.test(executor[2]?.[0] ?? ''), executor[2]?.[0]);
      assert.ok(!/^[A-Z_]+:/.test(executor[2]?.[1] ?? ''), executor[2]?.[1]);
      assert.equal(
        readFileSync(join(project.root, 'src/dim.ts'), 'utf8'),
        'export function dim(): string {\n  return "dim";\n}\n',
      );
      const memory = readFileSync(join(outside.root, 'memory.jsonl'), 'utf8');
      assert.match(memory, /"name":"lamp"/, 'the planner deleted nothing');
      assert.match(memory, /"name":"dim-change"/);
      assert.equal(readFileSync(join(outside.root, 'starts.txt'), 'utf8').trim().split('\n').length, 1);
      // Both transcripts: the planner's with its own session, the run's with the hand-off.
      const plannerRows = rows(join(project.root, 'run.planner.jsonl'));
      assert.equal(plannerRows[0].role, 'planner');
      assert.equal(plannerRows[0].sandbox, 'read_only');
      const runRows = rows(join(project.root, 'run.jsonl'));
      const handoff = runRows.find((row) => row.type === 'plan-finished');
      assert.equal(handoff.status, 'succeeded');
      assert.equal(handoff.sessionId, plannerRows[0].sessionId);
      assert.match(handoff.plan, /^PLAN: /);
      const started = runRows.find((row) => row.type === 'run-started');
      assert.equal(started.sandbox, 'workspace_write');
      assert.equal(runRows[runRows.length - 1].status, 'succeeded');
    } finally {
      await fake.close();
      await project.cleanup();
      await outside.cleanup();
    }
  });
});
