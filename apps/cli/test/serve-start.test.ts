import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createHost } from '@toolhost/boot';
import { parseJsonRpcMessage } from '../src/json-rpc-message.js';
import { createMcpServer } from '../src/mcp-server.js';
import { initializeResult, mcpTools, SERVE_PROTOCOL_VERSIONS } from '../src/mcp-surface.js';
import { VERSION } from '../src/run-cli.js';
import { CLI, cliEnv, type Json, makeProject, PROCESS_TIMEOUT_MS } from './helpers.js';

const REFUSE_SLOW_MODULES = fileURLToPath(new URL('./fixtures/refuse-slow-modules.mjs', import.meta.url));

const initialize = (id: number, protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'serve-start-test', version: '1.0.0' } },
});

/** Drives `toolhost serve` over stdio line by line; `next(id)` resolves with the answer to request `id`. */
function serveProcess(root: string, nodeArgs: readonly string[] = []) {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
    cwd: root,
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines: Json[] = [];
  const waiting = new Map<number, (message: Json | undefined) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    lines.push(message);
    waiting.get(message.id)?.(message);
  });
  let gone = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      gone = true;
      for (const waiter of waiting.values()) waiter(undefined);
      resolve(code);
    }),
  );
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    send(message: unknown) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    next(id: number): Promise<Json> {
      const seen = lines.find((message) => message.id === id);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const fail = () => reject(new Error(`no answer to ${id}; stderr: ${stderr}`));
        if (gone) return fail();
        const timer = setTimeout(fail, PROCESS_TIMEOUT_MS);
        waiting.set(id, (message) => {
          clearTimeout(timer);
          if (message === undefined) fail();
          else resolve(message);
        });
      });
    },
  };
}

describe('toolhost serve start-up', () => {
  it('answers initialize and tools/list without the MCP SDK (client or server, zod, ajv), the HTTP stack, execa or the grep engine', async () => {
    const project = await makeProject({ 'a.txt': 'a\n' });
    const serve = serveProcess(project.root, ['--import', REFUSE_SLOW_MODULES]);
    try {
      serve.send(initialize(1));
      const initialized = await serve.next(1);
      assert.equal(initialized.result?.serverInfo?.name, 'toolhost', JSON.stringify(initialized));
      assert.equal(initialized.result.protocolVersion, '2025-06-18');
      serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      serve.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const listed = await serve.next(2);
      assert.ok(
        listed.result?.tools?.some((tool: Json) => tool.name === 'use_capability'),
        JSON.stringify(listed),
      );
      // Only afterwards does serve load the SDK, which the preloaded hook refuses: it gives up.
      assert.notEqual(await serve.exited, 0);
      assert.match(serve.stderr(), /refused by the serve start-up test: .*@modelcontextprotocol\/sdk/);
    } finally {
      serve.child.kill('SIGKILL');
      await project.cleanup();
    }
  });

  it('hands the session to the SDK server afterwards: one answer per request, queued calls answered in order', async () => {
    const project = await makeProject({ 'a.txt': 'hello from a\n' });
    const serve = serveProcess(project.root);
    try {
      serve.send(initialize(1));
      serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // A call before tools/list waits for the SDK server and is answered by it.
      serve.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'a.txt' } },
      });
      serve.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      serve.send({ jsonrpc: '2.0', id: 4, method: 'ping' });
      serve.send({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'read_file', arguments: 7 },
      });
      const called = await serve.next(2);
      assert.match(JSON.stringify(called.result?.content), /hello from a/);
      assert.deepEqual((await serve.next(4)).result, {});
      assert.equal((await serve.next(5)).error?.code, -32602, 'malformed params still get -32602');
      serve.send({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
      const before = await serve.next(3);
      const after = await serve.next(6);
      assert.deepEqual(after.result, before.result, 'the SDK server lists exactly what the front listed');
      serve.child.stdin.end();
      assert.equal(await serve.exited, 0, serve.stderr());
      const ids = serve.lines.map((message) => message.id);
      assert.deepEqual(
        [...ids].sort(),
        [1, 2, 3, 4, 5, 6],
        'each request is answered once (the replayed initialize is not answered twice)',
      );
    } finally {
      serve.child.kill('SIGKILL');
      await project.cleanup();
    }
  });

  it("answers initialize exactly as the SDK's Server does, for every protocol version it negotiates", async () => {
    assert.deepEqual(SERVE_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS, 'the same versions, latest first');
    const project = await makeProject();
    const host = await createHost({ root: project.root, config: false });
    try {
      const session = await host.openSession();
      for (const requested of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
        const server = createMcpServer(session, { version: VERSION });
        const [client, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const answer = new Promise<Json>((resolve) => {
          client.onmessage = (message) => resolve(message);
        });
        await client.start();
        await client.send(initialize(1, requested) as never);
        const sdk = await answer;
        assert.deepEqual(
          initializeResult(session, { requestedVersion: requested, version: VERSION }),
          sdk.result,
          requested,
        );
        await server.close();
      }
      assert.ok(mcpTools(session).length > 0);
    } finally {
      await host.close();
      await project.cleanup();
    }
  });

  it("checks JSON-RPC messages as the SDK's JSONRPCMessageSchema does, without zod", () => {
    const messages: unknown[] = [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x', arguments: {} } },
      { jsonrpc: '2.0', id: 1.5, method: 'x' },
      { jsonrpc: '2.0', id: null, method: 'x' },
      { jsonrpc: '2.0', id: 1, method: 'x', params: [] },
      { jsonrpc: '2.0', id: 1, method: 'x', params: null },
      { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 'p' } } },
      { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { progressToken: 1.5 } } },
      { jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: [] } },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'x',
        params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } },
      },
      { jsonrpc: '2.0', id: 1, method: 'x', extra: true },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', method: 7 },
      { jsonrpc: '1.0', id: 1, method: 'x' },
      { id: 1, method: 'x' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, result: [] },
      { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: {} } } },
      { jsonrpc: '2.0', result: {} },
      { jsonrpc: '2.0', id: 1, result: {}, extra: 1 },
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'bad' } },
      { jsonrpc: '2.0', error: { code: -32700, message: 'bad' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'bad' } },
      { jsonrpc: '2.0', id: 1, error: { code: 1 } },
      { jsonrpc: '2.0', id: 1, error: 'bad' },
      { jsonrpc: '2.0' },
      [],
      'text',
      null,
    ];
    for (const message of messages) {
      assert.equal(
        parseJsonRpcMessage(message) !== undefined,
        JSONRPCMessageSchema.safeParse(message).success,
        JSON.stringify(message),
      );
    }
  });
});
