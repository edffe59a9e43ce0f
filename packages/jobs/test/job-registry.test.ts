import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createJobManager } from '../src/index.js';
import { readProcessIdentity } from '../src/process-table.js';
import { processesMatching, tempDir, uniqueTag, waitUntil } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = path.join(packageDir, 'test', 'fixtures', 'crashing-host.ts');

/** Starts a host process that starts one background job, and resolves once the job runs. */
async function crashingHost(
  t: TestContext,
  stateDir: string,
  root: string,
  mode: string,
  command: string,
  env: NodeJS.ProcessEnv = process.env,
) {
  // Node itself, with tsx as a loader: the `tsx` command would put a wrapper process in between, and
  // killing the wrapper is not a crash of the host.
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=@toolhost/source', '--import', 'tsx', fixture, stateDir, root, mode, command],
    {
      cwd: packageDir,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('\n')) resolve();
    });
    child.on('exit', () =>
      output.includes('\n') ? resolve() : reject(new Error(`the host exited early: ${output}`)),
    );
  });
  assert.match(output, /^started bash-1 \d+/);
  return child;
}

function crash(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** A process to impersonate a job or a host in hand-written registry entries. */
function sleeper(t: TestContext, tag: number): number {
  const child = spawn('sleep', [String(tag)], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  return child.pid!;
}

/** The per-job entries of the registry. */
function jobEntries(stateDir: string): string[] {
  return readdirSync(path.join(stateDir, 'live')).filter((name) => name.includes('.job.'));
}

function writeEntry(stateDir: string, name: string, entry: Record<string, unknown>): string {
  const live = path.join(stateDir, 'live');
  mkdirSync(live, { recursive: true });
  const file = path.join(live, name);
  writeFileSync(file, JSON.stringify({ version: 1, ...entry }));
  return file;
}

describe('JobRegistry (through createJobManager)', () => {
  it('records each live job with pid, start time and command hash in a 0600 file (JOB-REG-1)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    // Without a working bubblewrap the job is not contained, so the registry is what reaps it.
    const jobs = createJobManager({
      stateDir,
      sandbox: { mode: 'danger_full_access', roots: [root], bubblewrapPath: path.join(root, 'no-bwrap') },
    });
    t.after(() => jobs.close());
    const started = await jobs.start({ shell: 'bash', command: `sleep ${tag}`, cwd: root, background: true });
    assert.ok(started.ok);
    assert.equal(started.value.contained, false);
    const files = jobEntries(stateDir);
    assert.equal(files.length, 1);
    const file = path.join(stateDir, 'live', files[0]!);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const entry = JSON.parse(readFileSync(file, 'utf8'));
    const identity = readProcessIdentity(started.value.pid!);
    assert.equal(entry.pid, started.value.pid);
    assert.equal(entry.jobId, 'bash-1');
    assert.equal(entry.startTime, identity?.startTime);
    assert.match(entry.commandHash, /^[0-9a-f]{32}$/);
    assert.match(entry.marker, /^[0-9a-f]{32}$/);
    jobs.kill('bash-1');
    await jobs.wait('bash-1');
    assert.deepEqual(jobEntries(stateDir), [], 'the entry goes when the job ends');
  });

  it('writes no registry entry for a contained job, only one per host (JOB-REG-1)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    for (const mode of ['danger_full_access', 'read_only'] as const) {
      const jobs = createJobManager({ stateDir, sandbox: { mode, roots: [root] } });
      for (let index = 0; index < 3; index++) {
        const started = await jobs.start({
          shell: 'bash',
          command: 'sleep 0.05',
          cwd: root,
          background: true,
        });
        assert.ok(started.ok);
        assert.equal(started.value.contained, true, mode);
        assert.deepEqual(jobEntries(stateDir), [], `${mode}: a contained job dies with its host`);
      }
      assert.equal(
        readdirSync(path.join(stateDir, 'live')).filter((name) => name.endsWith('.host.json')).length,
        1,
      );
      await jobs.close();
      assert.deepEqual(readdirSync(path.join(stateDir, 'live')), [], `${mode}: the host entry goes on close`);
    }
  });

  it('reaps the orphans of a crashed host on the next start, setsid ones included (JOB-REG-2)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    // No working bubblewrap, so no pid namespace: the registry is all that can find the orphans.
    const noBubblewrap = path.join(root, 'no-bwrap');
    const host = await crashingHost(
      t,
      stateDir,
      root,
      'danger_full_access',
      `setsid sleep ${tag} & nohup setsid bash -c "trap '' TERM HUP; sleep ${tag}" >/dev/null 2>&1 & sleep ${tag}`,
      { ...process.env, BUBBLEWRAP_PATH: noBubblewrap },
    );
    await waitUntil('three sleepers run', () => processesMatching(`sleep ${tag}`).length === 3);
    await crash(host);
    assert.equal(
      processesMatching(`sleep ${tag}`).length,
      3,
      'without a sandbox or a pid namespace the orphans outlive their host',
    );
    const jobs = createJobManager({
      stateDir,
      sandbox: { mode: 'danger_full_access', roots: [root], bubblewrapPath: noBubblewrap },
    });
    t.after(() => jobs.close());
    assert.equal(jobs.reapedOrphans.length, 1);
    assert.equal(jobs.reapedOrphans[0]!.jobId, 'bash-1');
    assert.ok(jobs.reapedOrphans[0]!.killed >= 3);
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
    assert.deepEqual(readdirSync(path.join(stateDir, 'live')), []);
    assert.deepEqual(readdirSync(path.join(stateDir, 'logs')), [], "the orphan's log is removed too");
  });

  it('takes sandboxed jobs down with a crashed host at once (bubblewrap dies with its parent)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    const host = await crashingHost(t, stateDir, root, 'read_only', `setsid sleep ${tag} & sleep ${tag}`);
    await waitUntil('two sleepers run', () => processesMatching(`sleep ${tag}`).length === 2);
    await crash(host);
    await waitUntil('the sandbox is gone', () => processesMatching(`sleep ${tag}`).length === 0);
  });

  it('removes the placeholders of a crashed host on the next start (SB-8)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    const host = await crashingHost(t, stateDir, root, 'workspace_write', `sleep ${tag}`);
    assert.deepEqual(
      readdirSync(root).sort(),
      ['.git', '.toolhost'],
      'placeholders exist while the host lives',
    );
    // Crash only once the sandbox is set up: bubblewrap arms --die-with-parent during its set-up, and
    // a host dying before that leaves the sandbox to the registry (reaped like any orphan, below).
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    await crash(host);
    await waitUntil('the sandbox is gone', () => processesMatching(`sleep ${tag}`).length === 0);
    const jobs = createJobManager({ stateDir, sandbox: { mode: 'workspace_write', roots: [root] } });
    t.after(() => jobs.close());
    assert.deepEqual(readdirSync(root), []);
  });

  it('removes the private /tmp of a crashed host on the next start, never a live host’s (SB-16)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    const host = await crashingHost(
      t,
      stateDir,
      root,
      'workspace_write',
      `echo left-behind > /tmp/crash-note; sleep ${tag}`,
      { ...process.env, PERSISTENT_TMP: '1' },
    );
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    const tmpParent = path.join(stateDir, 'tmp');
    const [crashed] = readdirSync(tmpParent);
    assert.ok(crashed, 'the crashed host had a private /tmp');
    await waitUntil('the note is written', () => existsSync(path.join(tmpParent, crashed, 'crash-note')));
    await crash(host);
    await waitUntil('the sandbox is gone', () => processesMatching(`sleep ${tag}`).length === 0);
    // A live manager over the same state directory keeps its own.
    const live = createJobManager({
      stateDir,
      sandbox: { mode: 'workspace_write', roots: [root], persistentTmp: true },
    });
    t.after(() => live.close());
    const started = await live.start({ shell: 'bash', command: 'echo mine > /tmp/live-note', cwd: root });
    assert.ok(started.ok);
    await live.wait(started.value.id);
    assert.equal(existsSync(path.join(tmpParent, crashed)), false, 'the crashed host’s /tmp was removed');
    const next = createJobManager({ stateDir, sandbox: { mode: 'workspace_write', roots: [root] } });
    t.after(() => next.close());
    const [kept, ...others] = readdirSync(tmpParent);
    assert.deepEqual(others, []);
    assert.equal(readFileSync(path.join(tmpParent, kept!, 'live-note'), 'utf8'), 'mine\n');
  });

  it('kills the jobs of a host that exits without closing its manager, and drops its placeholders (JOB-REG-3)', async (t) => {
    // danger_full_access: only the exit hook can stop the setsid child; workspace_write: placeholders.
    for (const mode of ['danger_full_access', 'workspace_write']) {
      const root = tempDir(t);
      const stateDir = tempDir(t, 'jobs-state-');
      const tag = uniqueTag(t);
      const command = `setsid sleep ${tag} & sleep ${tag} & echo ready; wait`;
      const host = await crashingHost(t, stateDir, root, mode, command, {
        ...process.env,
        EXIT_AFTER_START: '1',
      });
      if (host.exitCode === null) await new Promise((resolve) => host.once('exit', resolve));
      assert.deepEqual(
        processesMatching(`sleep ${tag}`),
        [],
        `${mode}: the exit hook killed them synchronously`,
      );
      assert.equal(
        readdirSync(path.join(stateDir, 'logs')).length,
        1,
        `${mode}: a given state directory keeps its logs`,
      );
      assert.deepEqual(readdirSync(root), [], `${mode}: no placeholders are left`);
    }
  });

  it('never kills a reused pid or the jobs of a live host (JOB-REG-2)', async (t) => {
    const root = tempDir(t);
    const stateDir = tempDir(t, 'jobs-state-');
    const tag = uniqueTag(t);
    const stranger = sleeper(t, tag);
    const liveHost = sleeper(t, tag + 1);
    const liveHostStart = readProcessIdentity(liveHost)!.startTime;
    const strangerIdentity = readProcessIdentity(stranger)!;
    const deadHost = { hostPid: 999_999_999, hostStartTime: '1' };
    // A dead host's job whose pid now belongs to a stranger started at another time.
    writeEntry(stateDir, 'dead-a.job.bash-1.json', {
      ...deadHost,
      jobId: 'bash-1',
      pid: stranger,
      startTime: String(Number(strangerIdentity.startTime) - 1),
      commandHash: strangerIdentity.commandHash,
      marker: 'a'.repeat(32),
      logPath: path.join(stateDir, 'logs', 'bash-1.log'),
    });
    // Same start time but another command line and no marker: still not ours.
    writeEntry(stateDir, 'dead-b.job.bash-2.json', {
      ...deadHost,
      jobId: 'bash-2',
      pid: stranger,
      startTime: strangerIdentity.startTime,
      commandHash: 'f'.repeat(32),
      marker: 'b'.repeat(32),
      logPath: path.join(stateDir, 'logs', 'bash-2.log'),
    });
    // A live host's job: not an orphan at all.
    const liveEntry = writeEntry(stateDir, 'live-host.job.bash-1.json', {
      hostPid: liveHost,
      hostStartTime: liveHostStart,
      jobId: 'bash-1',
      pid: stranger,
      startTime: strangerIdentity.startTime,
      commandHash: strangerIdentity.commandHash,
      marker: 'c'.repeat(32),
      logPath: path.join(stateDir, 'logs', 'bash-3.log'),
    });
    const jobs = createJobManager({ stateDir, sandbox: { mode: 'danger_full_access', roots: [root] } });
    t.after(() => jobs.close());
    assert.deepEqual(
      jobs.reapedOrphans.map((orphan) => [orphan.jobId, orphan.killed]),
      [
        ['bash-1', 0],
        ['bash-2', 0],
      ],
    );
    assert.deepEqual(processesMatching(`sleep ${tag}`), [stranger], 'the stranger is alive');
    assert.deepEqual(readdirSync(path.join(stateDir, 'live')), [path.basename(liveEntry)]);
  });
});
