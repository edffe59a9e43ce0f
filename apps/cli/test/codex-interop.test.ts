import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLI, cliEnv, type Json, makeProject, PROCESS_TIMEOUT_MS, TEST_USER_CONFIG_DIR } from './helpers.js';

// Issue 16's "Done when": the real Codex CLI (`@openai/codex` from npm, a devDependency of this
// package that ships its native binary inside the npm package) with `toolhost serve` configured as its
// MCP server, driven by a loopback stand-in for the Responses API. Codex decides from each MCP tool's
// hints whether a call needs approval (destructiveHint true, or not read-only and open-world or with
// unknown hints); `codex exec` runs with the non-interactive approval policy `never`, under which a call
// that needs approval is refused instead of asked. So: a write reached through use_capability must be
// refused by Codex before it reaches toolhost, and a read must still run unasked. Skips when Codex is
// not installed or does not run here.

const require = createRequire(import.meta.url);

function codexScript(): string | undefined {
  try {
    const script = require.resolve('@openai/codex/bin/codex.js');
    const probe = spawnSync(process.execPath, [script, '--version'], { encoding: 'utf8', timeout: 60_000 });
    return probe.status === 0 && /codex/i.test(probe.stdout) ? script : undefined;
  } catch {
    return undefined;
  }
}

const CODEX = codexScript();

/** One call the fake model makes: a tool of the `toolhost` MCP server, by its MCP name. */
interface ModelCall {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** What the fake model saw come back for one call. */
interface CallOutput {
  readonly callId: string;
  readonly text: string;
}

/**
 * A loopback Responses API (`POST /v1/responses`, typed SSE events as OpenAI streams them) whose model
 * makes the given calls one turn each, then says "done". Codex (0.169) offers an MCP server's tools as
 * one `namespace` tool (`mcp__<server>`) and expects calls to name the namespace and the tool apart.
 */
async function startResponsesModel(calls: readonly ModelCall[]) {
  const requests: Json[] = [];
  const outputs: CallOutput[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'the body is not JSON' } }));
        return;
      }
      const turn = requests.length;
      requests.push(body);
      for (const item of (body.input ?? []) as Json[]) {
        if (item.type !== 'function_call_output' || outputs.some((seen) => seen.callId === item.call_id))
          continue;
        const output = item.output;
        const text =
          typeof output === 'string'
            ? output
            : Array.isArray(output)
              ? output.map((part: Json) => (typeof part?.text === 'string' ? part.text : '')).join('\n')
              : JSON.stringify(output);
        outputs.push({ callId: item.call_id, text });
      }
      const call = calls[turn];
      streamTurn(
        response,
        turn,
        call
          ? {
              id: `fc_${turn}`,
              type: 'function_call',
              status: 'completed',
              call_id: `call_${turn}`,
              namespace: 'mcp__toolhost',
              name: call.tool,
              arguments: JSON.stringify(call.arguments),
            }
          : {
              id: `msg_${turn}`,
              type: 'message',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'done', annotations: [] }],
            },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    outputs,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function streamTurn(response: ServerResponse, turn: number, item: Json): void {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    response.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  const shell = { id: `resp_${turn}`, object: 'response', created_at: 1_700_000_000, model: 'fake-model' };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  event('response.created', { response: { ...shell, status: 'in_progress', output: [] } });
  event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', {
    response: {
      ...shell,
      status: 'completed',
      output: [item],
      usage: { input_tokens: 100 + turn, output_tokens: 10, total_tokens: 110 + turn },
    },
  });
  response.end();
}

const toml = (value: string) => JSON.stringify(value);

/**
 * Runs `codex exec` once in `root` with `toolhost serve` (the built CLI, the given sandbox, toolhost's
 * own approval `never`, so toolhost itself would let the write through) as its only MCP server.
 */
async function runCodex(options: {
  readonly codex: string;
  readonly root: string;
  readonly sandbox: 'read_only' | 'workspace_write';
  readonly calls: readonly ModelCall[];
}) {
  const model = await startResponsesModel(options.calls);
  const home = await realpath(await mkdtemp(join(tmpdir(), 'toolhost-codex-home-')));
  try {
    await writeFile(
      join(home, 'config.toml'),
      [
        'model = "fake-model"',
        'model_provider = "loopback"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        '',
        '[model_providers.loopback]',
        'name = "loopback"',
        `base_url = ${toml(model.baseUrl)}`,
        'wire_api = "responses"',
        '',
        '[mcp_servers.toolhost]',
        `command = ${toml(process.execPath)}`,
        `args = ${JSON.stringify([CLI, 'serve', '--sandbox', options.sandbox, '--approval', 'never'])}`,
        `cwd = ${toml(options.root)}`,
        // Codex starts MCP servers alongside the first turn; `required` makes it wait for this one.
        'required = true',
        'startup_timeout_sec = 120',
        `env = { TOOLHOST_CONFIG_DIR = ${toml(TEST_USER_CONFIG_DIR)} }`,
        '',
      ].join('\n'),
    );
    const env = cliEnv({ CODEX_HOME: home, RUST_LOG: undefined });
    const child = spawn(
      process.execPath,
      [options.codex, 'exec', '--skip-git-repo-check', '-C', options.root, 'Do what the task needs.'],
      { cwd: options.root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROCESS_TIMEOUT_MS * 2);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return { code, output, requests: model.requests, outputs: model.outputs };
  } finally {
    await model.close();
    await rm(home, { recursive: true, force: true });
  }
}

describe('Codex CLI interop (toolhost serve as its MCP server)', {
  skip: CODEX ? false : 'Codex CLI is not installed or does not run here',
}, () => {
  it('Codex refuses a write reached through use_capability (its hints are not read-only when writers are reachable) and runs a read unasked', async () => {
    const project = await makeProject({ 'a.txt': 'hello from a\n' });
    try {
      const run = await runCodex({
        codex: CODEX as string,
        root: project.root,
        sandbox: 'workspace_write',
        // The read first: toolhost lets a file be moved only once it was observed in the session, so
        // the write below would succeed if it reached toolhost.
        calls: [
          { tool: 'read_file', arguments: { path: 'a.txt' } },
          {
            tool: 'use_capability',
            arguments: {
              action: 'call',
              capability_id: 'tool:move_file',
              arguments: { source: 'a.txt', destination: 'b.txt' },
            },
          },
        ],
      });
      assert.equal(run.code, 0, run.output);
      const offered = (run.requests[0]?.tools ?? []).find((tool: Json) => tool.name === 'mcp__toolhost');
      assert.ok(
        offered?.tools?.some((tool: Json) => tool.name === 'use_capability'),
        "Codex offered toolhost serve's tools on the first turn",
      );
      assert.equal(run.outputs.length, 2, JSON.stringify(run.outputs));
      const [read, write] = run.outputs;
      assert.match(write!.text, /requires approval/i, 'Codex refused the write through use_capability');
      assert.doesNotMatch(write!.text, /move_file|moved|b\.txt/, 'the write never reached toolhost');
      assert.ok(existsSync(join(project.root, 'a.txt')) && !existsSync(join(project.root, 'b.txt')));
      assert.match(read!.text, /hello from a/, 'the read ran unasked');
      assert.doesNotMatch(read!.text, /requires approval/i);
      assert.equal(await readFile(join(project.root, 'a.txt'), 'utf8'), 'hello from a\n');
    } finally {
      await project.cleanup();
    }
  });

  it('Codex runs a read through use_capability unasked when the session makes every reachable target read-only', async () => {
    const project = await makeProject({ 'a.txt': 'hello from a\n', 'notes.md': '# notes\n' });
    try {
      const run = await runCodex({
        codex: CODEX as string,
        root: project.root,
        sandbox: 'read_only',
        calls: [
          {
            tool: 'use_capability',
            arguments: { action: 'call', capability_id: 'tool:glob', arguments: { pattern: '*.txt' } },
          },
        ],
      });
      assert.equal(run.code, 0, run.output);
      assert.equal(run.outputs.length, 1, JSON.stringify(run.outputs));
      assert.doesNotMatch(run.outputs[0]!.text, /requires approval/i, run.outputs[0]!.text);
      assert.match(run.outputs[0]!.text, /a\.txt/);
      assert.doesNotMatch(run.outputs[0]!.text, /notes\.md/);
    } finally {
      await project.cleanup();
    }
  });
});
