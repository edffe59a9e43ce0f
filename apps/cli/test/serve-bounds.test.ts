import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Json, makeProject, PROCESS_TIMEOUT_MS, spawnToolhost, waitFor } from './helpers.js';

/** What `serve` refuses: the documented limit (4 MiB). */
const LIMIT = 4 * 1024 * 1024;
const TWELVE_MB = 12 * 1024 * 1024;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

/** A raw JSON-RPC line driver for `toolhost serve` over stdio: each answer is matched by id. */
function startStdioServe(root: string) {
  const child = spawnToolhost(['serve'], { cwd: root });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const answers: Json[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => answers.push(JSON.parse(line)));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const write = (text: string) =>
    new Promise<void>((resolve, reject) =>
      child.stdin!.write(text, (error) => (error ? reject(error) : resolve())),
    );
  return {
    child,
    exited,
    stderr: () => stderr,
    write,
    send: (message: unknown) => write(`${JSON.stringify(message)}\n`),
    /** The answers so far (in arrival order). */
    answers,
    async answer(predicate: (answer: Json) => boolean, what: string): Promise<Json> {
      await waitFor(() => answers.some(predicate) || child.exitCode !== null, PROCESS_TIMEOUT_MS);
      const found = answers.find(predicate);
      assert.ok(found, `no answer for ${what}; serve exited ${child.exitCode}; stderr: ${stderr}`);
      return found;
    },
  };
}

/** A tools/call line of about `bytes` bytes, its id first or last in the object. */
function bigCall(id: number, bytes: number, idLast = false): string {
  const pad = 'x'.repeat(bytes);
  return idLast
    ? `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":{"path":"${pad}","id":999}},"id":${id}}\n`
    : `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"read_file","arguments":{"path":"${pad}"}}}\n`;
}

describe('toolhost serve (bounded input, stdio)', () => {
  it('refuses a 12 MB JSON-RPC message with -32600 and its id, and keeps serving the next request', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const serve = startStdioServe(project.root);
    try {
      await serve.send(INITIALIZE);
      await serve.answer((answer) => answer.id === 1, 'initialize');
      await serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await serve.write(bigCall(2, TWELVE_MB));
      // The id after 12 MB of params (and after a nested "id" inside arguments) is recovered too.
      await serve.write(bigCall(3, TWELVE_MB, true));
      await serve.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
      const first = await serve.answer((answer) => answer.id === 2, 'the 12 MB message');
      assert.equal(first.error.code, -32600);
      assert.match(first.error.message, new RegExp(`larger than ${LIMIT} bytes`));
      const last = await serve.answer((answer) => answer.id === 3, 'the 12 MB message with its id last');
      assert.equal(last.error.code, -32600);
      const list = await serve.answer((answer) => answer.id === 4, 'tools/list after the refusals');
      assert.ok(list.result.tools.some((tool: Json) => tool.name === 'read_file'));
      // A call after the refusals still runs through the pipeline.
      await serve.send({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'README.md' } },
      });
      const read = await serve.answer((answer) => answer.id === 5, 'read_file');
      assert.match(read.result.content[0].text, /Lantern/);
      assert.equal(serve.child.exitCode, null, 'serve is still running');
      serve.child.stdin!.end();
      assert.equal(await serve.exited, 0, serve.stderr());
    } finally {
      serve.child.kill('SIGKILL');
      await project.cleanup();
    }
  });

  it('answers a line that is not JSON with -32700, a JSON-RPC batch and a malformed request with -32600, and an id-less over-large message with id null', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const serve = startStdioServe(project.root);
    try {
      await serve.send(INITIALIZE);
      await serve.answer((answer) => answer.id === 1, 'initialize');
      await serve.write('this is not json\n');
      await serve.answer((answer) => answer.error?.code === -32700, 'the non-JSON line');
      await serve.send([{ jsonrpc: '2.0', id: 7, method: 'ping' }]);
      const batch = await serve.answer(
        (answer) => answer.id === null && /batch/.test(answer.error?.message),
        'the batch',
      );
      assert.equal(batch.error.code, -32600);
      await serve.send({ jsonrpc: '2.0', id: 8, method: 42 });
      assert.equal(
        (await serve.answer((answer) => answer.id === 8, 'the malformed request')).error.code,
        -32600,
      );
      await serve.write(`${'['.repeat(10)}${'y'.repeat(LIMIT)}\n`);
      await serve.answer(
        (answer) => answer.id === null && /larger than/.test(answer.error?.message),
        'the id-less message',
      );
      await serve.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
      await serve.answer(
        (answer) => answer.id === 9 && answer.result !== undefined,
        'ping after the refusals',
      );
      serve.child.stdin!.end();
      assert.equal(await serve.exited, 0, serve.stderr());
    } finally {
      serve.child.kill('SIGKILL');
      await project.cleanup();
    }
  });
});

function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    // The server answers before it has read the whole body; a reset after that is expected.
    request.on('error', reject);
    request.end(body);
  });
}

describe('toolhost serve --http (bounded input)', () => {
  it('answers a 12 MB request body with 413 and a JSON-RPC error carrying its id, and the session keeps serving', async () => {
    const project = await makeProject({ 'README.md': '# Lantern\n' });
    const child = spawnToolhost(['serve', '--http', '0'], { cwd: project.root });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const client = new Client({ name: 'toolhost-test', version: '1.0.0' });
    try {
      await waitFor(
        () => /serving MCP on (http:\S+)/.test(stderr) || child.exitCode !== null,
        PROCESS_TIMEOUT_MS,
      );
      const url = /serving MCP on (http:\S+)/.exec(stderr)?.[1];
      assert.ok(url, stderr);
      const transport = new StreamableHTTPClientTransport(new URL(url));
      await client.connect(transport);
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': '2025-06-18',
      };
      const refused = await rawPost(url, headers, bigCall(21, TWELVE_MB).trimEnd());
      assert.equal(refused.status, 413);
      const body = JSON.parse(refused.body);
      assert.equal(body.id, 21);
      assert.equal(body.error.code, -32600);
      assert.match(body.error.message, new RegExp(`larger than ${LIMIT} bytes`));
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
      assert.match(JSON.stringify(read.content), /Lantern/);
      await client.close();
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    } finally {
      child.kill('SIGKILL');
      await project.cleanup();
    }
  });
});
