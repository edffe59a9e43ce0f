// Regression tests for the disk findings of issue 15: a full disk reported as a failed command with no
// output, and job logs that can fill the state directory's file system.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createJobManager } from '../src/index.js';
import { tempDir } from './helpers.js';

/**
 * A small tmpfs of `size` mounted for one test (this needs root, or a mount namespace), or undefined
 * when mounting is not possible here. `release` unmounts and removes it: register it after the job
 * manager's close (`after` hooks run in the order they were added).
 */
function smallFileSystem(size: string): { dir: string; release: () => void } | undefined {
  const base = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'jobs-disk-')));
  const dir = path.join(base, 'mnt');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(base, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    release: () => {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
        rmSync(base, { recursive: true, force: true });
      } catch {
        // left for the system's temporary-file clean-up rather than removing a mounted tree
      }
    },
  };
}

/** Fills the file system holding `dir` with one file, until it is full. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const block = Buffer.alloc(64 * 1024);
  for (;;) {
    try {
      writeFileSync(file, block, { flag: 'a' });
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
      break;
    }
  }
  // A partial block may still fit.
  try {
    writeFileSync(file, Buffer.alloc(4096), { flag: 'a' });
  } catch {
    // full
  }
  return file;
}

describe('createJobManager on a small disk', () => {
  it('refuses with DISK_FULL and runs nothing when the file system of the job logs is full (full disk, JOB-DISK-1)', async (t) => {
    const disk = smallFileSystem('256k');
    if (!disk) return t.skip('cannot mount a tmpfs here');
    const mount = disk.dir;
    const root = tempDir(t, 'jobs-root-');
    const marker = path.join(root, 'ran');
    const jobs = createJobManager({
      stateDir: path.join(mount, 'state'),
      sandbox: { mode: 'read_only', roots: [root] },
    });
    t.after(() => jobs.close());
    t.after(disk.release);
    const filler = fill(mount);
    for (const command of ['echo hi', `touch ${marker}`]) {
      const started = await jobs.start({ shell: 'bash', command, cwd: root });
      assert.equal(started.ok, false);
      assert.equal(!started.ok && started.error.code, 'DISK_FULL');
      assert.match(!started.ok ? started.error.message : '', /file system holding the job logs/);
    }
    assert.equal(jobs.list().length, 0, 'nothing was spawned');
    rmSync(filler);
    const started = await jobs.start({ shell: 'bash', command: 'echo back', cwd: root });
    assert.ok(started.ok, 'with space again, commands run');
    await jobs.wait(started.value.id);
    assert.equal(jobs.output(started.value.id).ok && jobs.output(started.value.id).ok, true);
  });

  it('marks a job that failed while its log could not be written as diskFull (full disk, JOB-DISK-1)', async (t) => {
    const disk = smallFileSystem('512k');
    if (!disk) return t.skip('cannot mount a tmpfs here');
    const mount = disk.dir;
    const root = tempDir(t, 'jobs-root-');
    const jobs = createJobManager({
      stateDir: path.join(mount, 'state'),
      minFreeDiskBytes: 0,
      sandbox: { mode: 'read_only', roots: [root] },
    });
    t.after(() => jobs.close());
    t.after(disk.release);
    const started = await jobs.start({
      shell: 'bash',
      command: 'head -c 4000000 /dev/zero | tr "\\0" x; echo after',
      cwd: root,
    });
    assert.ok(started.ok);
    const waited = await jobs.wait(started.value.id);
    assert.ok(waited.ok);
    assert.equal(waited.value.snapshot.state, 'failed');
    assert.equal(waited.value.snapshot.diskFull, true);
    // A command that fails on its own, with space left, is not blamed on the disk.
    rmSync(path.join(mount, 'state', 'logs'), { recursive: true, force: true });
    mkdirSync(path.join(mount, 'state', 'logs'), { mode: 0o700 });
    const plain = await jobs.start({ shell: 'bash', command: 'exit 3', cwd: root });
    assert.ok(plain.ok);
    const done = await jobs.wait(plain.value.id);
    assert.ok(done.ok);
    assert.equal(done.value.snapshot.exitCode, 3);
    assert.equal(done.value.snapshot.diskFull, undefined);
  });

  it('stops running jobs whose logs exceed their share of the disk budget and keeps what they wrote (job logs fill the disk, JOB-DISK-2)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const budget = 1024 * 1024;
    const jobs = createJobManager({
      maxTotalLogBytes: budget,
      sandbox: { mode: 'read_only', roots: [root] },
    });
    t.after(() => jobs.close());
    const writer = 'while :; do head -c 65536 /dev/zero | tr "\\0" y; sleep 0.02; done';
    const ids: string[] = [];
    for (let index = 0; index < 2; index++) {
      const started = await jobs.start({ shell: 'bash', command: writer, cwd: root, background: true });
      assert.ok(started.ok);
      ids.push(started.value.id);
    }
    for (const id of ids) {
      const waited = await jobs.wait(id, { timeoutMs: 60_000 });
      assert.ok(waited.ok);
      assert.equal(waited.value.timedOut, false, 'the budget stopped the job');
      const { snapshot } = waited.value;
      assert.equal(snapshot.state, 'killed');
      assert.equal(snapshot.endReason, 'output_limit');
      assert.match(snapshot.notes.join(' '), /disk budget \(1048576 bytes/);
      // What it wrote stays readable (bounded by the budget plus a tick of writing).
      const range = jobs.readLog(id, { offset: 0, length: 16 });
      assert.ok(range.ok);
      assert.equal(range.value.bytes.toString(), 'y'.repeat(16));
      assert.ok(snapshot.outputBytes > budget / 4, `${snapshot.outputBytes} bytes kept`);
      assert.ok(
        snapshot.outputBytes < 16 * budget,
        `${snapshot.outputBytes} bytes: stopped close to the budget`,
      );
    }
    const note = jobs.drainCompletionNotes() ?? '';
    assert.match(note, /disk budget/);
  });

  it('stops the job that grew most when the log file system is nearly full (JOB-DISK-2)', async (t) => {
    const disk = smallFileSystem('16m');
    if (!disk) return t.skip('cannot mount a tmpfs here');
    const mount = disk.dir;
    const root = tempDir(t, 'jobs-root-');
    const jobs = createJobManager({
      stateDir: path.join(mount, 'state'),
      sandbox: { mode: 'read_only', roots: [root] },
    });
    t.after(() => jobs.close());
    t.after(disk.release);
    // Leave about 1 MiB: the floor on a 16 MiB file system is 1% of it (about 160 KiB).
    writeFileSync(path.join(mount, 'filler'), Buffer.alloc(15 * 1024 * 1024));
    const quiet = await jobs.start({ shell: 'bash', command: 'sleep 60', cwd: root, background: true });
    const noisy = await jobs.start({
      shell: 'bash',
      command: 'while :; do head -c 8192 /dev/zero | tr "\\0" z; sleep 0.02; done',
      cwd: root,
      background: true,
    });
    assert.ok(quiet.ok && noisy.ok);
    const waited = await jobs.wait(noisy.value.id, { timeoutMs: 60_000 });
    assert.ok(waited.ok);
    assert.equal(waited.value.timedOut, false);
    assert.equal(waited.value.snapshot.endReason, 'output_limit');
    assert.match(waited.value.snapshot.notes.join(' '), /less than \d+ bytes free/);
    assert.equal(waited.value.snapshot.diskFull, undefined, 'stopped before the disk was full');
    assert.equal(jobs.get(quiet.value.id)?.state, 'running', 'the job that did not grow keeps running');
    assert.ok(existsSync(waited.value.snapshot.logPath));
  });
});
