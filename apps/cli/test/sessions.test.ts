import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type Json,
  makeProject,
  PROCESS_TIMEOUT_MS,
  runToolhost,
  SessionDriver,
  spawnToolhost,
  waitFor,
} from './helpers.js';

const BIG = Array.from({ length: 6000 }, (_, index) => `line ${index}`).join('\n');
const FILES = { 'README.md': '# demo\n', 'a.txt': 'one\ntwo\n', 'big.txt': BIG };

function textOf(result: Json): string {
  return (result.content as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

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

async function connect(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('toolhost serve --http (sessions)', () => {
  it('gives every MCP session its own observations, jobs, results and storm breaker', async () => {
    const project = await makeProject(FILES);
    const server = await startHttpServe(project.root, ['--sandbox', 'workspace_write']);
    const a = await connect(server.url, 'a');
    const b = await connect(server.url, 'b');
    try {
      // B editing a file only A read: FS_NOT_OBSERVED.
      await a.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
      const edit = await b.callTool({
        name: 'edit_file',
        arguments: { path: 'a.txt', old_string: 'two', new_string: '2' },
      });
      assert.equal(edit.isError, true);
      assert.match(textOf(edit), /^FS_NOT_OBSERVED/);

      // B's job_output / job_kill of A's job: JOB_NOT_FOUND / unknown.
      const job = await a.callTool({
        name: 'bash',
        arguments: { command: 'sleep 30', run_in_background: true },
      });
      const jobId = /bash-\d+/.exec(textOf(job))?.[0];
      assert.ok(jobId, textOf(job));
      const output = await b.callTool({ name: 'job_output', arguments: { job_id: jobId } });
      assert.match(textOf(output), /^JOB_NOT_FOUND/);
      const kill = await b.callTool({ name: 'job_kill', arguments: { job_id: jobId } });
      assert.match(textOf(kill), /already finished or is unknown/);
      assert.doesNotMatch(
        textOf(await a.callTool({ name: 'job_output', arguments: { job_id: jobId } })),
        /JOB_NOT_FOUND/,
      );

      // B paging A's result_ref: RESULT_NOT_FOUND.
      const big = textOf(await a.callTool({ name: 'read_file', arguments: { path: 'big.txt' } }));
      const callId = /call_id=(\S+)/.exec(big)?.[1];
      const resultRef = /result_ref=(tr-[0-9a-f]{24})/.exec(big)?.[1];
      assert.ok(callId && resultRef, big.slice(-600));
      const pageArgs = {
        action: 'call',
        capability_id: 'session:tool_result',
        arguments: { tool_call_id: callId, result_ref: resultRef },
      };
      assert.match(
        textOf(await b.callTool({ name: 'use_capability', arguments: pageArgs })),
        /^RESULT_NOT_FOUND/,
      );
      assert.match(textOf(await a.callTool({ name: 'use_capability', arguments: pageArgs })), /"complete"/);

      // Each client's storm breaker counts alone, and its notice reaches the client in the result text.
      const failing = { name: 'read_file', arguments: { path: 'missing.txt' } };
      await a.callTool(failing);
      await a.callTool(failing);
      assert.doesNotMatch(textOf(await b.callTool(failing)), /loop guard/);
      assert.match(textOf(await a.callTool(failing)), /loop guard/);
    } finally {
      await a.close().catch(() => undefined);
      await b.close().catch(() => undefined);
      server.child.kill('SIGTERM');
      await server.exited;
      await project.cleanup();
    }
  });

  it("sends a tool's own progress, and an upstream MCP server's through use_capability, as notifications/progress", async () => {
    const everything = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const project = await makeProject(FILES);
    const config = join(project.root, 'servers.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [everything], trusted: true } },
      }),
    );
    const server = await startHttpServe(project.root, ['--sandbox', 'workspace_write', '--config', config]);
    const client = await connect(server.url, 'progress');
    try {
      const shell: Json[] = [];
      const result = await client.callTool(
        { name: 'bash', arguments: { command: 'sleep 2.5; echo done' } },
        undefined,
        {
          onprogress: (progress) => shell.push(progress),
          timeout: PROCESS_TIMEOUT_MS,
        },
      );
      assert.match(textOf(result), /done/);
      assert.ok(
        shell.some((progress) => /bytes of output so far/.test(String(progress.message))),
        `the shell's own progress arrived: ${JSON.stringify(shell)}`,
      );
      const upstream: Json[] = [];
      const long = await client.callTool(
        {
          name: 'use_capability',
          arguments: {
            action: 'call',
            capability_id: 'mcp-tool:everything/trigger-long-running-operation',
            arguments: { duration: 1.5, steps: 3 },
          },
        },
        undefined,
        { onprogress: (progress) => upstream.push(progress), timeout: PROCESS_TIMEOUT_MS },
      );
      assert.match(textOf(long), /Long running operation completed/);
      assert.deepEqual(
        upstream.filter((progress) => progress.total === 3).map((progress) => progress.progress),
        [1, 2, 3],
        JSON.stringify(upstream),
      );
    } finally {
      await client.close().catch(() => undefined);
      server.child.kill('SIGTERM');
      await server.exited;
      await project.cleanup();
    }
  });
});

describe('toolhost session (sessions)', () => {
  it('keeps a result to its own session: a second session gets RESULT_NOT_FOUND, --resume pages it and keeps its observations', async () => {
    const project = await makeProject(FILES);
    try {
      const first = SessionDriver.start(['--sandbox', 'workspace_write', '--session-id', 'first-run'], {
        cwd: project.root,
      });
      const big = await first.send({ id: 'b1', name: 'read_file', arguments: { path: 'big.txt' } });
      assert.ok(big.resultRef, big.output.slice(-300));
      await first.send({ id: 'a1', name: 'read_file', arguments: { path: 'a.txt' } });
      assert.equal((await first.close()).code, 0, first.stderr);
      assert.match(first.stderr, /session first-run/);

      const page = {
        name: 'use_capability',
        arguments: {
          action: 'call',
          capability_id: 'session:tool_result',
          arguments: { tool_call_id: 'b1', result_ref: big.resultRef },
        },
      };
      const second = SessionDriver.start(['--sandbox', 'workspace_write'], { cwd: project.root });
      const other = await second.send({ id: 'p1', ...page });
      assert.equal(other.error?.code, 'RESULT_NOT_FOUND');
      await second.close();

      const resumed = SessionDriver.start(['--sandbox', 'workspace_write', '--resume', 'first-run'], {
        cwd: project.root,
      });
      const again = await resumed.send({ id: 'p2', ...page });
      assert.equal(again.status, 'ok', again.output);
      const edit = await resumed.send({
        id: 'e1',
        name: 'edit_file',
        arguments: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
      });
      assert.equal(edit.status, 'ok', edit.output);
      assert.equal((await resumed.close()).code, 0);
      assert.equal(await readFile(join(project.root, 'a.txt'), 'utf8'), 'one\nTWO\n');

      const missing = await runToolhost(['session', '--resume', 'nowhere'], { cwd: project.root });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no session nowhere/);
      const taken = await runToolhost(['session', '--session-id', 'first-run'], { cwd: project.root });
      assert.equal(taken.code, 2);
      assert.match(taken.stderr, /exists already/);
    } finally {
      await project.cleanup();
    }
  });
});

describe('toolhost serve (hints)', () => {
  it('honest MCP hints: announces use_capability and bash with what they reach, not as read-only, in workspace_write', async () => {
    const project = await makeProject(FILES);
    const server = await startHttpServe(project.root, ['--sandbox', 'workspace_write']);
    const client = await connect(server.url, 'hints');
    try {
      const { tools } = await client.listTools();
      const hints = (name: string) => tools.find((tool) => tool.name === name)?.annotations;
      assert.equal(hints('use_capability')?.readOnlyHint, false);
      assert.equal(hints('use_capability')?.destructiveHint, true);
      assert.equal(hints('bash')?.readOnlyHint, false);
      assert.equal(hints('read_file')?.readOnlyHint, true);
      const call = await client.callTool({
        name: 'read_file',
        arguments: { path: 'a.txt', wait_for_previous: true },
      });
      assert.notEqual(call.isError, true, textOf(call));
    } finally {
      await client.close().catch(() => undefined);
      server.child.kill('SIGTERM');
      await server.exited;
      await project.cleanup();
    }
  });
});
