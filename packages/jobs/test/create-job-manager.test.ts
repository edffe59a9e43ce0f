import assert from 'node:assert/strict';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createJobManager } from '../src/index.js';
import { manager, processesMatching, tempDir, uniqueTag, waitUntil } from './helpers.js';

async function finish(jobs: ReturnType<typeof createJobManager>, id: string) {
  const waited = await jobs.wait(id);
  assert.ok(waited.ok);
  return waited.value.snapshot;
}

async function run(jobs: ReturnType<typeof createJobManager>, root: string, command: string) {
  const started = await jobs.start({ shell: 'bash', command, cwd: root });
  assert.ok(started.ok, started.ok ? '' : started.error.message);
  return finish(jobs, started.value.id);
}

describe('createJobManager', () => {
  it('numbers jobs <shell>-<n> with one counter across shells (JOB-ID-1)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const first = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
    const second = await jobs.start({ shell: 'bash', command: 'true', cwd: root, background: true });
    assert.ok(first.ok && second.ok);
    assert.equal(first.value.id, 'bash-1');
    assert.equal(second.value.id, 'bash-2');
    assert.equal(second.value.background, true);
  });

  it('reports done for exit 0 and failed with the exit code otherwise (JOB-STATE-1)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const done = await run(jobs, root, 'echo fine');
    assert.equal(done.state, 'done');
    assert.equal(done.exitCode, 0);
    assert.equal(done.endReason, 'exit');
    const failed = await run(jobs, root, 'echo broken; exit 7');
    assert.equal(failed.state, 'failed');
    assert.equal(failed.exitCode, 7);
    assert.ok(failed.durationMs !== undefined && failed.durationMs >= 0);
  });

  it('merges stdout and stderr in arrival order into a 0600 log (JOB-OUT-1)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const snapshot = await run(jobs, root, 'for i in 1 2 3; do echo out$i; echo err$i >&2; done');
    const read = await jobs.readNew(snapshot.id);
    assert.ok(read.ok);
    assert.equal(read.value.text, 'out1\nerr1\nout2\nerr2\nout3\nerr3\n');
    assert.equal(statSync(snapshot.logPath).mode & 0o777, 0o600);
    assert.equal(snapshot.outputBytes, Buffer.byteLength(read.value.text));
  });

  it('returns only the output written since the previous read (JOB-OUT-2)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const gate = path.join(root, 'gate');
    const started = await jobs.start({
      shell: 'bash',
      command: `echo one; while [ ! -e ${gate} ]; do sleep 0.05; done; echo two`,
      cwd: root,
      background: true,
    });
    assert.ok(started.ok);
    const id = started.value.id;
    await waitUntil('the first line is written', () => (jobs.get(id)?.outputBytes ?? 0) >= 4);
    const first = await jobs.readNew(id);
    assert.ok(first.ok);
    assert.equal(first.value.text, 'one\n');
    assert.equal(first.value.snapshot.state, 'running');
    const empty = await jobs.readNew(id);
    assert.ok(empty.ok);
    assert.equal(empty.value.text, '');
    writeFileSync(gate, '');
    await finish(jobs, id);
    const second = await jobs.readNew(id);
    assert.ok(second.ok);
    assert.equal(second.value.text, 'two\n');
    assert.equal(second.value.snapshot.state, 'done');
  });

  it('keeps a partly written UTF-8 character for the next read', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const gate = path.join(root, 'gate');
    // "é" is C3 A9: write the first byte, wait, then the second.
    const started = await jobs.start({
      shell: 'bash',
      command: `printf 'a\\303'; while [ ! -e ${gate} ]; do sleep 0.05; done; printf '\\251b'`,
      cwd: root,
    });
    assert.ok(started.ok);
    const id = started.value.id;
    await waitUntil('two bytes are written', () => (jobs.get(id)?.outputBytes ?? 0) >= 2);
    const first = await jobs.readNew(id);
    assert.ok(first.ok);
    assert.equal(first.value.text, 'a');
    writeFileSync(gate, '');
    await finish(jobs, id);
    const second = await jobs.readNew(id);
    assert.ok(second.ok);
    assert.equal(second.value.text, 'éb');
  });

  it('returns the newest maxBytes of a large read and says how much it skipped (JOB-OUT-2)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const snapshot = await run(jobs, root, 'seq 1 100000');
    const read = await jobs.readNew(snapshot.id, { maxBytes: 1000 });
    assert.ok(read.ok);
    assert.ok(Buffer.byteLength(read.value.text) <= 1000);
    assert.ok(read.value.text.endsWith('99999\n100000\n'));
    assert.equal(read.value.skippedBytes + Buffer.byteLength(read.value.text), snapshot.outputBytes);
    assert.equal(read.value.toOffset, snapshot.outputBytes);
  });

  it('filters new output by a regular expression over the whole new range (JOB-OUT-3)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const snapshot = await run(jobs, root, 'seq 1 200000; echo ERROR at the end');
    const read = await jobs.readNew(snapshot.id, { filter: /^(1234|ERROR)/, maxBytes: 4096 });
    assert.ok(read.ok);
    assert.equal(read.value.matchedLines, 1 + 10 + 100 + 1);
    assert.match(read.value.text, /^1234\n12340\n/);
    assert.ok(read.value.text.endsWith('ERROR at the end\n'));
    const again = await jobs.readNew(snapshot.id);
    assert.ok(again.ok);
    assert.equal(again.value.text, '', 'filtered-out lines are consumed too');
  });

  it('keeps a 64 KiB tail while the full log stays readable by byte offset (JOB-OUT-4)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    // 300 000 lines of 7 bytes: 2.1 MB.
    const snapshot = await run(jobs, root, "seq -f '%06g' 1 300000");
    assert.equal(snapshot.outputBytes, 2_100_000);
    const excerpt = jobs.output(snapshot.id);
    assert.ok(excerpt.ok);
    assert.equal(Buffer.byteLength(excerpt.value.head) + Buffer.byteLength(excerpt.value.tail), 64 * 1024);
    assert.ok(excerpt.value.head.startsWith('000001\n000002\n'));
    assert.ok(excerpt.value.tail.endsWith('299999\n300000\n'));
    assert.equal(excerpt.value.omittedBytes, 2_100_000 - 64 * 1024);
    const middle = jobs.readLog(snapshot.id, { offset: 7 * 149_999, length: 14 });
    assert.ok(middle.ok);
    assert.equal(middle.value.bytes.toString(), '150000\n150001\n');
    const end = jobs.readLog(snapshot.id, { offset: 2_100_000, length: 10 });
    assert.ok(end.ok);
    assert.equal(end.value.bytes.length, 0);
    assert.equal(end.value.complete, true);
  });

  it('returns promptly when a grandchild keeps stdout open after the main process exits (JOB-OUT-5)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    for (const mode of ['danger_full_access', 'read_only'] as const) {
      const jobs = manager(t, mode, [root]);
      // The grandchild inherits stdout and would hold a pipe open for 300 s.
      const snapshot = await run(jobs, root, `(sleep ${tag}.${mode.length} &) ; echo parent done`);
      assert.equal(snapshot.state, 'done', mode);
      const read = await jobs.readNew(snapshot.id);
      assert.ok(read.ok);
      assert.equal(read.value.text, 'parent done\n');
      // What the main process left behind ends with the job (JOB-TREE-3).
      assert.deepEqual(processesMatching(`sleep ${tag}.${mode.length}`), [], mode);
    }
  });

  it('gives commands no stdin, so a prompt reads end-of-file instead of hanging (JOB-TREE-1)', async (t) => {
    const root = tempDir(t);
    // Contained (a pid namespace whose init leads a new session: the shell's session is 1 there) and
    // uncontained (no working bubblewrap: the shell leads its own session).
    for (const bubblewrapPath of [undefined, path.join(root, 'no-bwrap')]) {
      const jobs = manager(t, 'danger_full_access', [root], {
        sandbox: { mode: 'danger_full_access', roots: [root], ...(bubblewrapPath ? { bubblewrapPath } : {}) },
      });
      const snapshot = await run(
        jobs,
        root,
        `if read -r answer; then echo got; else echo eof; fi; [ "$(ps -o sid= -p $$)" -eq ${bubblewrapPath ? '$$' : '1'} ] && echo own-session`,
      );
      assert.equal(snapshot.contained, bubblewrapPath === undefined);
      const read = await jobs.readNew(snapshot.id);
      assert.ok(read.ok);
      assert.equal(read.value.text, 'eof\nown-session\n');
    }
  });

  it('hides secrets of the host environment from the command (JOB-ENV-1, JOB-ENV-2)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root], {
      hostEnvironment: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENAI_API_KEY: 'sk-live-secret-1',
        AWS_SECRET_ACCESS_KEY: 'aws-secret-2',
        GITHUB_TOKEN: 'ghp-secret-3',
        DB_PASSWORD: 'hunter2-secret-4',
        RANDOM_UNLISTED: 'unlisted-5',
        LC_TIME: 'C.UTF-8',
        SERVICE_TOKEN: 'configured-6',
      },
      environment: { pass: ['SERVICE_TOKEN', 'AWS_*'], set: { FROM_CONFIG: 'yes' } },
    });
    const snapshot = await run(jobs, root, 'env');
    const read = await jobs.readNew(snapshot.id);
    assert.ok(read.ok);
    const text = read.value.text;
    for (const secret of [
      'sk-live-secret-1',
      'aws-secret-2',
      'ghp-secret-3',
      'hunter2-secret-4',
      'unlisted-5',
    ]) {
      assert.ok(!text.includes(secret), `${secret} leaked`);
    }
    assert.match(
      text,
      /^SERVICE_TOKEN=configured-6$/m,
      'a secret-looking name passes when configured by name',
    );
    assert.match(text, /^FROM_CONFIG=yes$/m);
    assert.match(text, /^LC_TIME=C\.UTF-8$/m);
    assert.match(text, /^CI=1$/m);
    assert.match(text, /^TERM=dumb$/m);
    assert.match(text, /^GIT_PAGER=cat$/m);
    assert.match(text, /^LANG=C\.UTF-8$/m);
  });

  it('hides the real host environment from env in every sandbox mode', async (t) => {
    const root = tempDir(t);
    process.env.TOOLHOST_TEST_SECRET_KEY = 'real-host-secret-value';
    t.after(() => delete process.env.TOOLHOST_TEST_SECRET_KEY);
    for (const mode of ['danger_full_access', 'read_only', 'workspace_write'] as const) {
      const jobs = manager(t, mode, [root]);
      const snapshot = await run(jobs, root, 'env; cat /proc/self/environ');
      const read = await jobs.readNew(snapshot.id);
      assert.ok(read.ok);
      assert.ok(!read.value.text.includes('real-host-secret-value'), mode);
      assert.ok(read.value.text.includes('CI=1'), mode);
    }
  });

  it('refuses a start past the live-job limit with JOB_LIMIT_REACHED (JOB-LIMIT-1)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root], { maxLiveJobs: 2 });
    for (let index = 0; index < 2; index++) {
      const started = await jobs.start({
        shell: 'bash',
        command: `sleep ${tag}`,
        cwd: root,
        background: true,
      });
      assert.ok(started.ok);
    }
    const refused = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.error.code, 'JOB_LIMIT_REACHED');
    jobs.kill('bash-1');
    await jobs.wait('bash-1');
    const again = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
    assert.ok(again.ok, 'a slot frees up when a job ends');
  });

  it('rejects a missing or non-directory working directory before spawning', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    writeFileSync(path.join(root, 'file'), '');
    const missing = await jobs.start({ shell: 'bash', command: 'true', cwd: path.join(root, 'nope') });
    assert.equal(!missing.ok && missing.error.code, 'FS_NOT_FOUND');
    const file = await jobs.start({ shell: 'bash', command: 'true', cwd: path.join(root, 'file') });
    assert.equal(!file.ok && file.error.code, 'NOT_A_DIRECTORY');
    assert.equal(jobs.list().length, 0);
  });

  it('kills on timeout, marks the job killed with reason timeout, and keeps the output (JOB-TREE-2)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const started = await jobs.start({
      shell: 'bash',
      command: `echo before; setsid sleep ${tag} & (trap '' TERM; sleep ${tag}) & sleep ${tag}`,
      cwd: root,
      // Long enough for the three sleepers to start on a loaded machine (with 300 ms the timeout
      // could fire first, and the wait below never saw three).
      timeoutMs: 5_000,
    });
    assert.ok(started.ok);
    await waitUntil('three sleepers run', () => processesMatching(`sleep ${tag}`).length === 3);
    const snapshot = await finish(jobs, started.value.id);
    assert.equal(snapshot.state, 'killed');
    assert.equal(snapshot.endReason, 'timeout');
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
    const excerpt = jobs.output(started.value.id);
    assert.ok(excerpt.ok);
    // bash may add "Terminated" when a child dies of the SIGTERM first: only the start is fixed.
    assert.match(excerpt.value.head, /^before\n/);
  });

  it('kills when the abort signal fires (reason aborted)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const controller = new AbortController();
    const started = await jobs.start({
      shell: 'bash',
      command: `sleep ${tag}`,
      cwd: root,
      signal: controller.signal,
    });
    assert.ok(started.ok);
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    controller.abort();
    const snapshot = await finish(jobs, started.value.id);
    assert.equal(snapshot.state, 'killed');
    assert.equal(snapshot.endReason, 'aborted');
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
  });

  it('flips to killed at once on kill and tears the tree down afterwards (JOB-STATE-1)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root], { killGraceMs: 1000 });
    const started = await jobs.start({
      shell: 'bash',
      command: `(trap '' TERM; sleep ${tag}) & wait`,
      cwd: root,
      background: true,
    });
    assert.ok(started.ok);
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    const killed = jobs.kill(started.value.id, { reason: 'not needed' });
    assert.ok(killed.ok);
    assert.equal(killed.value.wasRunning, true);
    assert.equal(killed.value.snapshot.state, 'killed');
    assert.equal(jobs.get(started.value.id)?.state, 'killed', 'an immediate read already says killed');
    const snapshot = await finish(jobs, started.value.id);
    assert.equal(snapshot.killReason, 'not needed');
    assert.deepEqual(processesMatching(`sleep ${tag}`), [], 'the TERM-ignoring sleeper got SIGKILL');
    const again = jobs.kill(started.value.id);
    assert.ok(again.ok);
    assert.equal(again.value.wasRunning, false);
    const unknown = jobs.kill('bash-99');
    assert.equal(!unknown.ok && unknown.error.code, 'JOB_NOT_FOUND');
  });

  it('waits without killing: a wait that times out leaves the job running (JOB-WAIT-1)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const started = await jobs.start({ shell: 'bash', command: `sleep ${tag}`, cwd: root, background: true });
    assert.ok(started.ok);
    const waited = await jobs.wait(started.value.id, { timeoutMs: 100 });
    assert.ok(waited.ok);
    assert.equal(waited.value.timedOut, true);
    assert.equal(waited.value.snapshot.state, 'running');
    assert.equal(processesMatching(`sleep ${tag}`).length, 1);
    const missing = await jobs.wait('bash-42', { timeoutMs: 10 });
    assert.equal(!missing.ok && missing.error.code, 'JOB_NOT_FOUND');
  });

  it('announces each finished background job once in the next completion note (JOB-NOTE-1)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const ok = await jobs.start({
      shell: 'bash',
      command: 'true',
      cwd: root,
      background: true,
      label: 'quick check',
    });
    const bad = await jobs.start({ shell: 'bash', command: 'exit 3', cwd: root, background: true });
    const foreground = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
    const seen = await jobs.start({ shell: 'bash', command: 'true', cwd: root, background: true });
    assert.ok(ok.ok && bad.ok && foreground.ok && seen.ok);
    for (const id of ['bash-1', 'bash-2', 'bash-3', 'bash-4']) await finish(jobs, id);
    await jobs.readNew('bash-4');
    const note = jobs.drainCompletionNotes();
    assert.equal(
      note,
      'Background job updates since your last message: bash-1 (quick check) — done (exit code 0); bash-2 (exit 3) — failed (exit code 3). Read their output with job_output.',
    );
    assert.equal(jobs.drainCompletionNotes(), undefined, 'announced once');
  });

  it('kills every process of every job on close, including setsid and TERM-ignoring ones (JOB-TREE-4)', async (t) => {
    const root = tempDir(t);
    const tag = uniqueTag(t);
    for (const mode of ['danger_full_access', 'read_only', 'workspace_write'] as const) {
      const jobs = createJobManager({ sandbox: { mode, roots: [root] }, killGraceMs: 300 });
      t.after(() => jobs.close());
      for (let index = 0; index < 3; index++) {
        const started = await jobs.start({
          shell: 'bash',
          command: `setsid sleep ${tag} & nohup setsid bash -c "trap '' TERM HUP; sleep ${tag}" >/dev/null 2>&1 & (trap '' TERM; sleep ${tag}) & sleep ${tag}`,
          cwd: root,
          background: true,
        });
        assert.ok(started.ok);
      }
      await waitUntil('twelve sleepers run', () => processesMatching(`sleep ${tag}`).length === 12);
      await jobs.close();
      assert.deepEqual(processesMatching(`sleep ${tag}`), [], mode);
      for (const job of jobs.list()) assert.equal(job.state, 'interrupted');
      assert.equal(jobs.drainCompletionNotes(), undefined);
      const refused = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
      assert.equal(!refused.ok && refused.error.code, 'EXECUTION_ERROR');
    }
  });

  it('removes its private state directory on close, and only the logs of a given one', async (t) => {
    const root = tempDir(t);
    const own = createJobManager({ sandbox: { mode: 'danger_full_access', roots: [root] } });
    t.after(() => own.close());
    await run(own, root, 'echo x');
    const ownDir = own.stateDir;
    await own.close();
    assert.throws(() => statSync(ownDir));
    const stateDir = path.join(tempDir(t), 'state');
    const given = createJobManager({ sandbox: { mode: 'danger_full_access', roots: [root] }, stateDir });
    t.after(() => given.close());
    const snapshot = await run(given, root, 'echo y');
    await given.close();
    assert.throws(() => statSync(snapshot.logPath));
    assert.equal(statSync(stateDir).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(path.join(stateDir, 'live')), []);
  });

  it('keeps finished logs within their disk budget and forgets the oldest jobs past the count', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root], { maxRetainedLogBytes: 1500, maxRetainedJobs: 3 });
    for (let index = 0; index < 4; index++) await run(jobs, root, `head -c 600 /dev/zero | tr '\\0' x`);
    assert.equal(jobs.get('bash-1'), undefined, 'the oldest job is forgotten past maxRetainedJobs');
    const kept = ['bash-2', 'bash-3', 'bash-4'].map((id) => jobs.get(id)!);
    assert.deepEqual(
      kept.map((job) => job.logRemoved === true),
      [true, false, false],
      'the oldest log goes once the budget is exceeded',
    );
    assert.throws(() => statSync(kept[0]!.logPath));
    assert.equal(kept[0]!.outputBytes, 600, 'the facts stay');
    const read = await jobs.readNew('bash-2');
    assert.ok(read.ok);
    assert.equal(read.value.text, '');
  });

  it('stops a job whose log outgrows maxLogBytes (reason output_limit)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root], { maxLogBytes: 1024 * 1024 });
    const snapshot = await run(jobs, root, 'yes');
    assert.equal(snapshot.state, 'killed');
    assert.equal(snapshot.endReason, 'output_limit');
  });

  it('throws a TypeError for an invalid configuration', () => {
    assert.throws(
      () => createJobManager({ sandbox: { mode: 'yolo' as 'read_only', roots: [] } }),
      /sandbox\.mode must be one of/,
    );
    assert.throws(
      () => createJobManager({ sandbox: { mode: 'read_only', roots: ['/definitely/not/here'] } }),
      /does not exist/,
    );
    assert.throws(
      () => createJobManager({ sandbox: { mode: 'read_only', roots: ['relative'] } }),
      /absolute/,
    );
    assert.throws(
      () => createJobManager({ sandbox: { mode: 'read_only', roots: [] }, maxLiveJobs: 0 }),
      /maxLiveJobs must be a positive integer/,
    );
  });
});
