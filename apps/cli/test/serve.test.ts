import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CLI,
  cliEnv,
  isAlive,
  type Json,
  makeProject,
  PROCESS_TIMEOUT_MS,
  pidsMatching,
  runToolhost,
  spawnToolhost,
  uniqueSleep,
  waitFor,
} from './helpers.js';

const FILES = {
  'README.md': '# Lantern\n\nLantern is a tiny demo project.\n',
  'src/index.ts': 'export function shine(level: number): string {\n  return "*".repeat(level);\n}\n',
};

const CONFORMANCE = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

function textOf(result: Json): string {
  return (result.content as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Starts `toolhost serve --http 0` and waits for the URL it prints. */
async function startHttpServe(root: string, extra: string[] = []) {
  const child = spawnToolhost(['serve', '--http', '0', ...extra], { cwd: root });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await waitFor(
    () => /serving MCP on (http:\S+)/.test(stderr) || child.exitCode !== null,
    PROCESS_TIMEOUT_MS,
  );
  const url = /serving MCP on (http:\S+)/.exec(stderr)?.[1];
  assert.ok(url, `serve --http printed no URL; stderr: ${stderr}`);
  return { child, url, exited, stderr: () => stderr };
}

function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method, headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});

describe('toolhost serve (stdio)', () => {
  it('lists the provider surface with MCP hints, runs calls through the pipeline, and reports failures as isError', async () => {
    const project = await makeProject(FILES);
    const client = new Client({ name: 'toolhost-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve'],
      cwd: project.root,
      env: cliEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      const surface = JSON.parse((await runToolhost(['tools', '--json'], { cwd: project.root })).stdout);
      assert.deepEqual(
        tools.map((tool) => tool.name),
        surface.tools.map((tool: { name: string }) => tool.name),
      );
      for (const tool of tools) {
        const neutral = surface.tools.find((entry: { name: string }) => entry.name === tool.name);
        assert.deepEqual(tool.inputSchema, neutral.inputSchema);
      }
      const readFileTool = tools.find((tool) => tool.name === 'read_file');
      assert.equal(readFileTool?.annotations?.readOnlyHint, true);
      assert.notEqual(readFileTool?.annotations?.destructiveHint, true);
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
      assert.notEqual(read.isError, true);
      assert.match(textOf(read), /Lantern is a tiny demo project/);
      const outside = await client.callTool({ name: 'read_file', arguments: { path: '../../etc/passwd' } });
      assert.equal(outside.isError, true);
      assert.match(textOf(outside), /^PATH_OUTSIDE_ROOT: /);
      const denied = await client.callTool({
        name: 'write_file',
        arguments: { path: 'x.txt', content: 'x' },
      });
      assert.equal(denied.isError, true);
      assert.match(textOf(denied), /^PERMISSION_DENIED: /);
    } finally {
      await client.close();
      await project.cleanup();
    }
  });

  it('reports progress on a long call, honours cancellation, and ends jobs on shutdown', async () => {
    const project = await makeProject(FILES);
    const client = new Client({ name: 'toolhost-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--sandbox', 'workspace_write'],
      cwd: project.root,
      env: cliEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    try {
      await client.connect(transport);
      const progress: number[] = [];
      const slow = await client.callTool(
        { name: 'bash', arguments: { command: 'sleep 3; echo slept' } },
        undefined,
        { onprogress: (event) => progress.push(event.progress), resetTimeoutOnProgress: true },
      );
      assert.match(textOf(slow), /slept/);
      assert.ok(progress.length >= 1, 'at least one progress notification during a 3 s call');
      assert.deepEqual(
        [...progress].sort((a, b) => a - b),
        progress,
        'progress only increases',
      );

      const controller = new AbortController();
      const foreground = uniqueSleep();
      const cancelled = client.callTool(
        { name: 'bash', arguments: { command: `exec sleep ${foreground}` } },
        undefined,
        {
          signal: controller.signal,
        },
      );
      await waitFor(() => pidsMatching(`sleep ${foreground}`).length > 0);
      controller.abort();
      await assert.rejects(cancelled);
      await waitFor(() => pidsMatching(`sleep ${foreground}`).length === 0);

      const backgroundSleep = uniqueSleep();
      const background = await client.callTool({
        name: 'bash',
        arguments: { command: `exec sleep ${backgroundSleep}`, run_in_background: true },
      });
      assert.notEqual(background.isError, true, textOf(background));
      await waitFor(() => pidsMatching(`sleep ${backgroundSleep}`).length > 0);
      const serverPid = transport.pid!;
      await client.close();
      await waitFor(() => !isAlive(serverPid));
      await waitFor(() => pidsMatching(`sleep ${backgroundSleep}`).length === 0);
    } finally {
      await client.close();
      await project.cleanup();
    }
  });
});

describe('toolhost serve --http', () => {
  it('serves Streamable HTTP on 127.0.0.1 to the SDK client, and exits 0 on SIGTERM', async () => {
    const project = await makeProject(FILES);
    const server = await startHttpServe(project.root);
    const client = new Client({ name: 'toolhost-test', version: '1.0.0' });
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'read_file'));
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
      assert.match(textOf(read), /Lantern/);
      // A second, independent session on the same server.
      const other = new Client({ name: 'second', version: '1.0.0' });
      await other.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      assert.equal((await other.listTools()).tools.length, tools.length);
      await other.close();
      await client.close();
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.stderr());
    } finally {
      server.child.kill('SIGKILL');
      await project.cleanup();
    }
  });

  it('refuses a foreign Origin or Host (DNS rebinding) with 403, unknown sessions with 404, and other paths with 404', async () => {
    const project = await makeProject(FILES);
    const server = await startHttpServe(project.root);
    const port = new URL(server.url).port;
    const post = (headers: Record<string, string>) =>
      rawRequest(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: INITIALIZE,
      });
    try {
      const foreign = await post({ origin: 'https://evil.example' });
      assert.equal(foreign.status, 403);
      assert.match(foreign.body, /Origin/);
      const rebound = await post({ host: `evil.example:${port}` });
      assert.equal(rebound.status, 403);
      const otherPort = await post({ origin: 'http://127.0.0.1:1' });
      assert.equal(otherPort.status, 403);
      const sameOrigin = await post({ origin: `http://localhost:${port}` });
      assert.equal(sameOrigin.status, 200, sameOrigin.body);
      const unknown = await post({ 'mcp-session-id': 'not-a-session' });
      assert.equal(unknown.status, 404);
      const wrongPath = await rawRequest(server.url.replace('/mcp', '/other'), {
        method: 'GET',
        headers: {},
      });
      assert.equal(wrongPath.status, 404);
      const noSession = await rawRequest(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      assert.equal(noSession.status, 400);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await project.cleanup();
    }
  });

  for (const scenario of ['server-initialize', 'ping', 'tools-list']) {
    it(`passes the MCP conformance scenario ${scenario}`, async () => {
      const project = await makeProject(FILES);
      const results = await mkdtemp(join(tmpdir(), 'toolhost-conformance-'));
      const server = await startHttpServe(project.root);
      try {
        const run = spawn(
          process.execPath,
          [CONFORMANCE, 'server', '--url', server.url, '--scenario', scenario, '-o', results],
          {
            cwd: results,
            env: cliEnv(),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let output = '';
        run.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
        });
        run.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
        });
        const code = await new Promise<number | null>((resolve) =>
          run.on('close', (exitCode) => resolve(exitCode)),
        );
        assert.equal(code, 0, output);
        assert.doesNotMatch(output, /\bFAIL(ED)?\b/, output);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
        await rm(results, { recursive: true, force: true });
        await project.cleanup();
      }
    });
  }
});
