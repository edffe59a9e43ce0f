import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

// These tests run real commands inside the read-only / workspace OS sandbox (bubblewrap on Linux).
const posix = process.platform !== 'win32';

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

/** Processes whose command line is `sleep <marker>` (Linux /proc; 1 elsewhere so the check is vacuous). */
function sleepers(marker: string): number {
  if (process.platform !== 'linux') return 1;
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim() === `sleep ${marker}`)
        count++;
    } catch {
      // ended while we looked
    }
  }
  return count;
}

async function waitForJob(h: Host, id: string): Promise<string> {
  const result = await h.dispatch({
    name: 'job_output',
    arguments: { job_id: id, wait: true, timeout_ms: 60_000 },
  });
  assert.equal(result.status, 'ok', result.output);
  return result.output;
}

describe('Host shell', { skip: !posix && 'POSIX shell' }, () => {
  it('resolves shell, powershell and pwsh to the registered bash (BT-SURF-3)', async () => {
    const h = await host();
    for (const name of ['shell', 'powershell', 'pwsh', 'bash']) {
      const result = await h.dispatch({ name, arguments: { command: 'echo same-shell' } });
      assert.equal(result.toolName, 'bash', name);
      assert.equal(result.status, 'ok', result.output);
      assert.match(result.output, /same-shell/);
    }
  });

  it('runs commands in read_only inside the OS sandbox: allowed, but nothing is written (BT-SHELL-1)', async () => {
    const h = await host();
    const result = await h.dispatch({ name: 'bash', arguments: { command: 'echo hi > made.txt' } });
    assert.equal(result.permission?.source, 'sandbox');
    assert.equal(result.error?.code, 'COMMAND_FAILED', result.output);
    assert.equal(existsSync(join(root.dir, 'made.txt')), false);
  });

  it('applies shell prefix rules to the command, never to a compound command', async () => {
    const h = await host({
      sandbox: 'danger_full_access',
      config: { permissions: { allow: ['bash(echo:*)'], deny: ['bash(rm:*)'] } },
    });
    const allowed = await h.dispatch({ name: 'bash', arguments: { command: 'echo allowed' } });
    assert.equal(allowed.status, 'ok', allowed.output);
    assert.equal(allowed.permission?.source, 'rule');
    writeFileSync(join(root.dir, 'keep.txt'), 'x');
    const compound = await h.dispatch({ name: 'bash', arguments: { command: 'echo x && rm keep.txt' } });
    assert.equal(compound.error?.code, 'APPROVAL_DENIED', compound.output);
    const unsandboxed = await h.dispatch({ name: 'bash', arguments: { command: 'ls' } });
    assert.equal(unsandboxed.error?.code, 'APPROVAL_REQUIRED', 'an unsandboxed command asks');
    assert.ok(existsSync(join(root.dir, 'keep.txt')));
  });

  it('keeps jobs across turns, drains each completion note once, and kills in read_only', async () => {
    const sink = auditSink();
    const h = await host({ onAudit: sink.onAudit });
    const started = await h.dispatch({
      name: 'bash',
      arguments: { command: 'echo done-bg', run_in_background: true },
    });
    assert.equal(started.status, 'ok', started.output);
    const id = /"(bash-\d+)"/.exec(started.output)?.[1];
    assert.ok(id);
    // Wait for the end without reading it (a read would count as seen and suppress the note).
    let note: string | undefined;
    for (let attempt = 0; attempt < 1500 && note === undefined; attempt++) {
      note = h.drainNotes();
      if (note === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(note ?? '', new RegExp(`${id}`));
    assert.equal(h.drainNotes(), undefined, 'announced once');
    assert.ok(sink.types().includes('notes-drained'));
    const sleeper = await h.dispatch({
      name: 'bash',
      arguments: { command: 'sleep 60', run_in_background: true },
    });
    const sleeperId = /"(bash-\d+)"/.exec(sleeper.output)?.[1];
    const kill = await h.dispatch({ name: 'job_kill', arguments: { job_id: sleeperId } });
    assert.equal(kill.status, 'ok', kill.output);
    assert.match(kill.output, /\[status: killed\]/);
  });

  it('runs the hidden legacy aliases by name but lists them nowhere (BT-SURF-5)', async () => {
    const h = await host({ surface: 'full' });
    const started = await h.dispatch({
      name: 'bash',
      arguments: { command: 'echo legacy', run_in_background: true },
    });
    const id = /"(bash-\d+)"/.exec(started.output)?.[1];
    assert.match(await waitForJob(h, id as string), /legacy/);
    const alias = await h.dispatch({ name: 'bash_output', arguments: { job_id: id } });
    assert.equal(alias.toolName, 'bash_output');
    assert.equal(alias.status, 'ok', alias.output);
    const listed = await h.dispatch({ name: 'use_capability', arguments: { action: 'list' } });
    assert.ok(!/bash_output|kill_shell|tool:wait/.test(listed.output));
    const search = await h.dispatch({
      name: 'use_capability',
      arguments: { action: 'search', query: 'bash_output wait kill_shell' },
    });
    assert.ok(!/tool:bash_output|tool:kill_shell|tool:wait\b/.test(search.output), search.output);
    const viaProxy = await h.dispatch({ name: 'tool:bash_output', arguments: { job_id: id } });
    assert.equal(viaProxy.error?.code, 'CAPABILITY_RESOLUTION_FAILED');
  });

  it('lists glob, grep and ls in the catalog of the lean surface and runs them as tool:<name> (BT-SURF-4)', async () => {
    writeFileSync(join(root.dir, 'needle.txt'), 'a needle here\n');
    const h = await host();
    const listed = await h.dispatch({ name: 'use_capability', arguments: { action: 'list' } });
    for (const name of ['tool:glob', 'tool:grep', 'tool:ls']) assert.ok(listed.output.includes(name), name);
    // In read_only a writer off the surface is reachable by id (and refused), but no longer advertised
    // (issue 16: list must not offer writers that can only fail); a session that may write lists it.
    assert.ok(!listed.output.includes('- tool:multi_edit:'), 'read_only does not advertise writers');
    assert.match(listed.output, /Left out: \d+ built-in tools that this session refuses/);
    const writing = await host({ sandbox: 'workspace_write' });
    const writingList = await writing.dispatch({ name: 'use_capability', arguments: { action: 'list' } });
    assert.ok(
      writingList.output.includes('tool:multi_edit'),
      'every listed tool off the surface is reachable',
    );
    const found = await h.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'tool:grep', arguments: { pattern: 'needle' } },
    });
    assert.equal(found.status, 'ok', found.output);
    assert.match(found.output, /needle\.txt/);
    // A blank optional path means the tool's default, at the permission step as in the tool.
    const listing = await h.dispatch({ name: 'tool:ls', arguments: { path: '' } });
    assert.equal(listing.status, 'ok', listing.output);
    assert.match(listing.output, /needle\.txt/);
  });

  it('hides the state directory from file tools, searches and commands, but keeps job logs readable in the sandbox', async () => {
    for (const sandbox of ['read_only', 'workspace_write'] as const) {
      const created = await host({ sandbox, surface: 'full' });
      const flood = await created.dispatch({
        id: `flood-${sandbox}`,
        name: 'bash',
        arguments: { command: 'seq 1 40000' },
      });
      assert.equal(flood.status, 'ok', flood.output);
      assert.ok(flood.truncated, 'the output is large enough to be stored');
      const marker = '39999';
      const grep = await created.dispatch({
        name: 'grep',
        arguments: { pattern: marker, include_hidden: true, no_ignore: true },
      });
      assert.equal(grep.output.includes('.toolhost'), false, grep.output);
      const ls = await created.dispatch({ name: 'ls', arguments: { recursive: true } });
      assert.equal(ls.output.includes('.toolhost'), false, ls.output);
      const glob = await created.dispatch({ name: 'glob', arguments: { pattern: '**/*' } });
      assert.equal(glob.output.includes('.toolhost'), false, glob.output);
      const read = await created.dispatch({
        name: 'read_file',
        arguments: { path: '.toolhost/audit.jsonl' },
      });
      assert.equal(read.error?.code, 'PATH_PROTECTED');
      // Each session keeps its state in .toolhost/sessions/<id>/; only its own job logs are visible.
      const sessionId = created.defaultSession().id;
      const shell = await created.dispatch({
        name: 'bash',
        arguments: {
          command: `ls -A .toolhost; ls -A .toolhost/sessions; ls -A .toolhost/sessions/${sessionId}; cat .toolhost/sessions/*/results/* 2>/dev/null | wc -c`,
        },
      });
      assert.equal(shell.status, 'ok', shell.output);
      assert.deepEqual(
        shell.output.trim().split(/\s+/),
        ['sessions', sessionId, 'jobs', '0'],
        'only the job logs are visible inside the sandbox',
      );
      const logs = readdirSync(join(root.dir, '.toolhost', 'sessions', sessionId, 'jobs', 'logs')).filter(
        (name) => name.endsWith('.log'),
      );
      assert.ok(logs.length > 0);
      const tail = await created.dispatch({
        name: 'bash',
        arguments: { command: `tail -c 6 .toolhost/sessions/${sessionId}/jobs/logs/${logs[0]}` },
      });
      assert.equal(tail.status, 'ok', tail.output);
      assert.match(tail.output, /\d+\n?$/);
      await created.close();
    }
  });

  it('ends running jobs on close (no process left behind)', async () => {
    const h = await createHost({ root: root.dir, config: false });
    const started = await h.dispatch({
      name: 'bash',
      arguments: { command: 'sleep 61.25', run_in_background: true },
    });
    assert.equal(started.status, 'ok', started.output);
    for (let attempt = 0; attempt < 1500 && sleepers('61.25') === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(sleepers('61.25') > 0, 'the job runs');
    await h.close();
    assert.equal(sleepers('61.25'), 0);
  });

  it('names the jobs of the previous session in the first note after a restore', async () => {
    const first = await createHost({ root: root.dir, config: false });
    await first.dispatch({
      name: 'bash',
      arguments: { command: 'sleep 60', run_in_background: true, description: 'long sleep' },
    });
    const snapshot = first.snapshot();
    assert.equal(snapshot.jobs.length, 1);
    await first.close();
    const second = await host({ restore: snapshot });
    assert.match(second.drainNotes() ?? '', /bash-1 \(.*\) — interrupted/);
    assert.equal(second.drainNotes(), undefined);
  });
});
