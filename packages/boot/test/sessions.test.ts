import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, textResult } from '@toolhost/contracts';
import { type AuditEvent, createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
  hosts.push(created);
  return created;
}
beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

const bigFile = () =>
  writeFileSync(
    join(root.dir, 'big.txt'),
    Array.from({ length: 6000 }, (_, index) => `line ${index}`).join('\n'),
  );

const page = (toolCallId: string, resultRef: string | null) => ({
  name: 'use_capability',
  arguments: {
    action: 'call',
    capability_id: 'session:tool_result',
    arguments: { tool_call_id: toolCallId, result_ref: resultRef },
  },
});

/** A tool that reports two progress steps before it answers. */
const progressTool = defineTool<Record<string, never>>({
  name: 'test_progress',
  source: 'dynamic',
  group: 'read_only_builtins',
  category: 'read',
  annotations: { readOnly: true, destructive: false, openWorld: false },
  execution: { mode: 'parallel', timeoutMs: 5_000, abortable: true },
  pathAccess: 'none',
  visibility: 'listed',
  modelTool: {
    name: 'test_progress',
    description: 'Report progress.',
    inputSchema: { type: 'object', properties: {} },
  },
  async execute(_args, context) {
    context.onProgress?.({ progress: 1, total: 2, message: 'half' });
    context.onProgress?.({ progress: 2, total: 2, message: 'done' });
    return textResult(`progress reported in ${context.sessionId ?? 'no session'}`);
  },
});

describe('Host sessions', () => {
  it('keeps observations, jobs, stored results and the storm breaker of each session to itself', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\ntwo\n');
    bigFile();
    const h = await host({ sandbox: 'workspace_write', surface: 'full' });
    const a = await h.openSession();
    const b = await h.openSession();
    assert.notEqual(a.id, b.id);
    assert.match(a.id, /^ses_[a-z2-7]{20}$/);

    // Read evidence is per agent: B cannot edit what only A read.
    assert.equal((await a.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } })).status, 'ok');
    const edit = await b.dispatch({
      name: 'edit_file',
      arguments: { path: 'a.txt', old_string: 'two', new_string: '2' },
    });
    assert.equal(edit.error?.code, 'FS_NOT_OBSERVED');

    // Jobs are per session: B cannot read or kill A's job.
    const job = await a.dispatch({
      name: 'bash',
      arguments: { command: 'sleep 30', run_in_background: true },
    });
    if (job.error?.code !== 'SANDBOX_UNAVAILABLE') {
      assert.equal(job.status, 'ok', job.output);
      const jobId = /bash-\d+/.exec(job.output)?.[0] as string;
      assert.ok(jobId, job.output);
      assert.equal(
        (await b.dispatch({ name: 'job_output', arguments: { job_id: jobId } })).error?.code,
        'JOB_NOT_FOUND',
      );
      const kill = await b.dispatch({ name: 'job_kill', arguments: { job_id: jobId } });
      assert.match(kill.output, /already finished or is unknown/);
      assert.equal((await a.dispatch({ name: 'job_output', arguments: { job_id: jobId } })).status, 'ok');
    }

    // Stored results are per session: B cannot page A's.
    const big = await a.dispatch({ id: 'big', name: 'read_file', arguments: { path: 'big.txt' } });
    assert.ok(big.resultRef);
    assert.equal((await b.dispatch(page('big', big.resultRef))).error?.code, 'RESULT_NOT_FOUND');
    assert.equal((await a.dispatch(page('big', big.resultRef))).status, 'ok');

    // Each storm breaker counts alone.
    const failing = { name: 'read_file', arguments: { path: 'missing.txt' } };
    for (let round = 0; round < 2; round++) assert.equal((await a.dispatch(failing)).notice, undefined);
    assert.equal((await b.dispatch(failing)).notice, undefined, "B's first failure is its own first");
    assert.match((await a.dispatch(failing)).notice ?? '', /loop guard/);
  });

  it('keeps a result readable only by its own session: a later session gets RESULT_NOT_FOUND, a resumed one pages it and keeps its observations', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\ntwo\n');
    bigFile();
    const first = await host({ sandbox: 'workspace_write' });
    const session = await first.openSession();
    const id = session.id;
    const big = await session.dispatch({ id: 'call_1', name: 'read_file', arguments: { path: 'big.txt' } });
    assert.ok(big.resultRef);
    await session.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } });
    await first.close();

    const second = await host({ sandbox: 'workspace_write' });
    const fresh = await second.openSession();
    const other = await fresh.dispatch(page('call_1', big.resultRef));
    assert.equal(other.error?.code, 'RESULT_NOT_FOUND');
    assert.doesNotMatch(other.output, /tr-[0-9a-f]{24}/, "another session's refs are never shown");
    const resumed = await second.resumeSession(id);
    assert.equal(resumed.id, id);
    assert.equal((await resumed.dispatch(page('call_1', big.resultRef))).status, 'ok');
    const edit = await resumed.dispatch({
      name: 'edit_file',
      arguments: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
    });
    assert.equal(edit.status, 'ok', edit.output);
    assert.equal(readFileSync(join(root.dir, 'a.txt'), 'utf8'), 'one\nTWO\n');
  });

  it('refuses to resume an unknown session (SESSION_NOT_FOUND) or one that is open (SESSION_IN_USE), and a path as an id', async () => {
    const h = await host();
    await assert.rejects(
      h.resumeSession('ses_nothere'),
      (error: Error & { code?: string }) => error.code === 'SESSION_NOT_FOUND',
    );
    const open = await h.openSession();
    await assert.rejects(h.resumeSession(open.id), /already open|SESSION_IN_USE|open in/);
    await assert.rejects(
      h.resumeSession('../../etc'),
      (error: Error & { code?: string }) => error.code === 'CONFIG_INVALID',
    );
    await assert.rejects(
      h.openSession({ id: 'a/b' }),
      (error: Error & { code?: string }) => error.code === 'CONFIG_INVALID',
    );
  });

  it('never opens a session wider than its host, and gives a narrower one its own surface', async () => {
    const h = await host({ sandbox: 'workspace_write', approval: 'on_request' });
    await assert.rejects(h.openSession({ sandbox: 'danger_full_access' }), /may not widen the sandbox/);
    await assert.rejects(h.openSession({ approval: 'never' }), /may not ask less/);
    await assert.rejects(h.openSession({ surface: 'full' }), /may not widen the surface/);
    const narrow = await h.openSession({ sandbox: 'read_only' });
    assert.ok(!narrow.surfaceNames().includes('write_file'));
    assert.ok(h.surfaceNames().includes('write_file'));
    writeFileSync(join(root.dir, 'x.txt'), 'x');
    const write = await narrow.dispatch({ name: 'write_file', arguments: { path: 'y.txt', content: 'y' } });
    assert.equal(write.error?.code, 'PERMISSION_DENIED');
  });

  it("gives a child its own stores: the parent's results are not readable from the child", async () => {
    bigFile();
    const h = await host();
    const parent = await h.openSession();
    const big = await parent.dispatch({ id: 'big', name: 'read_file', arguments: { path: 'big.txt' } });
    const child = await parent.openChild({ readOnlyStrict: true });
    assert.equal(child.parentId, parent.id);
    assert.equal(child.policy.sandbox, 'read_only');
    assert.equal((await child.dispatch(page('big', big.resultRef))).error?.code, 'RESULT_NOT_FOUND');
    await assert.rejects(parent.openChild({ readOnlyStrict: true, sandbox: 'workspace_write' }), /read_only/);
  });

  it('resolves tool:<name> to the tool itself: shaped exactly like the direct call, one call-finished, progress delivered', async () => {
    mkdirSync(join(root.dir, 'many'));
    for (let index = 0; index < 2000; index++) writeFileSync(join(root.dir, 'many', `file-${index}.txt`), '');
    const events: AuditEvent[] = [];
    const full = await host({ surface: 'full', onAudit: (event) => events.push(event) });
    const direct = await full.dispatch({
      id: 'g1',
      name: 'glob',
      arguments: { pattern: 'many/*.txt', limit: 2000 },
    });
    const lean = await createHost({ root: root.dir, config: false, tools: [progressTool] });
    hosts.push(lean);
    const viaName = await lean.dispatch({
      id: 'g1',
      name: 'tool:glob',
      arguments: { pattern: 'many/*.txt', limit: 2000 },
    });
    const viaProxy = await lean.dispatch({
      id: 'g1',
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'tool:glob',
        arguments: { pattern: 'many/*.txt', limit: 2000 },
      },
    });
    assert.equal(direct.status, 'ok', direct.output);
    assert.equal(direct.truncated, true, 'a result large enough to be shaped');
    assert.equal(viaName.output, direct.output);
    assert.equal(viaProxy.output, direct.output);
    assert.equal(viaName.toolName, 'glob');

    const progress: unknown[] = [];
    const reported = await lean.dispatch(
      { id: 'p1', name: 'tool:test_progress', arguments: {} },
      { onProgress: (report) => progress.push(report) },
    );
    assert.equal(reported.status, 'ok', reported.output);
    assert.deepEqual(progress, [
      { progress: 1, total: 2, message: 'half', callId: 'p1' },
      { progress: 2, total: 2, message: 'done', callId: 'p1' },
    ]);
    assert.match(reported.output, new RegExp(`in ${lean.defaultSession().id}`));

    const finished = events.filter((event) => event.type === 'call-finished');
    assert.equal(finished.length, 1);
    assert.equal(finished[0]?.sessionId, full.defaultSession().id);
  });

  it('records exactly one call-finished per call, each with its session id, also through use_capability', async () => {
    const sink = auditSink();
    const h = await host({ onAudit: sink.onAudit });
    const session = await h.openSession();
    await session.dispatchBatch([
      { id: 'c1', name: 'tool:glob', arguments: { pattern: '*' } },
      {
        id: 'c2',
        name: 'use_capability',
        arguments: { action: 'call', capability_id: 'tool:ls', arguments: {} },
      },
      { id: 'c3', name: 'read_file', arguments: { path: 'nope.txt' } },
      { id: 'c4', name: 'no_such_tool', arguments: {} },
    ]);
    const finished = sink.events.filter((event) => event.type === 'call-finished');
    assert.deepEqual(finished.map((event) => event.callId).sort(), ['c1', 'c2', 'c3', 'c4']);
    assert.ok(finished.every((event) => event.sessionId === session.id));
    const perCall = sink.events.filter((event) => event.callId !== undefined);
    assert.ok(
      perCall.every((event) => event.sessionId === session.id),
      'every call event names its session',
    );
  });

  it('keeps .toolhost out of git status after a session stored results, ran a job and connected an MCP server', async (t) => {
    try {
      execFileSync('git', ['--version'], { stdio: 'ignore' });
    } catch {
      return t.skip('git is not installed');
    }
    execFileSync('git', ['init', '-q'], { cwd: root.dir });
    bigFile();
    const server = createRequire(import.meta.url).resolve(
      '@modelcontextprotocol/server-everything/dist/index.js',
    );
    const h = await host({
      config: { mcpServers: { everything: { command: process.execPath, args: [server] } } },
    });
    const session = await h.openSession();
    assert.ok((await session.dispatch({ name: 'read_file', arguments: { path: 'big.txt' } })).resultRef);
    await session.dispatch({ name: 'bash', arguments: { command: 'echo hi' } });
    const connect = await session.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'mcp-server:everything' },
    });
    assert.equal(connect.status, 'ok', connect.output);
    await h.close();
    assert.ok(existsSync(join(root.dir, '.toolhost', 'sessions', session.id)));
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: root.dir,
      encoding: 'utf8',
    });
    assert.deepEqual(
      status.split('\n').filter((line) => line.includes('.toolhost')),
      [],
      status,
    );
    assert.equal(readFileSync(join(root.dir, '.toolhost', '.gitignore'), 'utf8'), '*\n');
  });

  it('prunes sessions older than the retention and beyond the disk budget at start, never one in use', async () => {
    const first = await host();
    const kept = await first.openSession();
    const old = await first.openSession();
    await old.dispatch({ name: 'ls', arguments: {} });
    await old.close();
    const stale = join(root.dir, '.toolhost', 'sessions', old.id);
    const past = new Date(Date.now() - 10 * 24 * 3600 * 1000);
    const touch = (dir: string) => {
      for (const name of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, name.name);
        if (name.isDirectory()) touch(path);
        utimesSync(path, past, past);
      }
      utimesSync(dir, past, past);
    };
    touch(stale);
    touch(join(root.dir, '.toolhost', 'sessions', kept.id));
    const second = await host();
    assert.equal(existsSync(stale), false, 'a week-old session is gone');
    assert.ok(existsSync(join(root.dir, '.toolhost', 'sessions', kept.id)), 'a session in use stays');
    await second.close();
  });
});

describe('Session.effectiveAnnotations', () => {
  const server = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-everything/dist/index.js',
  );

  it('honest MCP hints: use_capability and the shell never claim more safety than what they reach in the session', async () => {
    const readOnly = await host({ sandbox: 'read_only' });
    const ro = readOnly.defaultSession();
    // use_capability reaches web_fetch (read-only, open-world) besides the read-only catalog tools.
    assert.deepEqual(ro.effectiveAnnotations('use_capability'), {
      readOnly: true,
      destructive: false,
      openWorld: true,
    });
    assert.deepEqual(ro.effectiveAnnotations('bash'), {
      readOnly: true,
      destructive: false,
      openWorld: false,
    });

    const writing = await host({ sandbox: 'workspace_write' });
    const rw = writing.defaultSession();
    assert.deepEqual(rw.effectiveAnnotations('use_capability'), {
      readOnly: false,
      destructive: true,
      openWorld: true,
    });
    assert.deepEqual(rw.effectiveAnnotations('bash'), {
      readOnly: false,
      destructive: true,
      openWorld: false,
    });
    const networked = await host({ sandbox: 'workspace_write', network: true });
    assert.equal(networked.defaultSession().effectiveAnnotations('bash')?.openWorld, true);

    const withServer = await host({
      sandbox: 'read_only',
      config: { mcpServers: { everything: { command: process.execPath, args: [server] } } },
    });
    assert.deepEqual(withServer.defaultSession().effectiveAnnotations('use_capability'), {
      readOnly: false,
      destructive: true,
      openWorld: true,
    });
    // Every other surface tool keeps its contract's hints.
    for (const name of rw.surfaceNames()) {
      if (name === 'use_capability' || name === 'bash') continue;
      assert.deepEqual(
        rw.effectiveAnnotations(name),
        writing.registry.get(name)?.definition.annotations,
        name,
      );
    }
  });
});
