import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { writeFileAtomicSync } from '../src/atomic-write.js';
import { processStartTime } from '../src/process-start-time.js';

const root = mkdtempSync(join(tmpdir(), 'toolhost-internal-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('writeFileAtomicSync', () => {
  it('INT-WRITE-1: replaces the file with a 0600 one and leaves no temporary file', () => {
    const dir = mkdtempSync(join(root, 'write-'));
    const target = join(dir, 'state.json');
    writeFileSync(target, 'old', { mode: 0o644 });
    writeFileAtomicSync(target, '{"new":true}\n');
    assert.equal(readFileSync(target, 'utf8'), '{"new":true}\n');
    if (process.platform !== 'win32') assert.equal(statSync(target).mode & 0o777, 0o600);
    writeFileAtomicSync(target, Buffer.from('bytes é'), { fsync: false });
    assert.equal(readFileSync(target, 'utf8'), 'bytes é');
    assert.deepEqual(readdirSync(dir), ['state.json']);
  });

  it('INT-WRITE-2: a failed rename leaves no temporary file, throws, and keeps the old contents', () => {
    const dir = mkdtempSync(join(root, 'fail-'));
    // A non-empty directory at the target: the rename fails (EISDIR / ENOTEMPTY / EPERM).
    const target = join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'kept');
    assert.throws(
      () => writeFileAtomicSync(target, 'new'),
      (error: NodeJS.ErrnoException) => {
        return typeof error.code === 'string';
      },
    );
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.equal(readFileSync(join(target, 'inside'), 'utf8'), 'kept');
    // A directory that does not exist: the temporary file cannot be made, nothing appears.
    assert.throws(() => writeFileAtomicSync(join(dir, 'missing', 'file'), 'x'), { code: 'ENOENT' });
    assert.deepEqual(readdirSync(dir), ['taken']);
  });
});

describe('processStartTime', () => {
  it('INT-PROC-1: a process has one start time, also with spaces and parentheses in its name', async (t) => {
    if (process.platform !== 'linux') {
      assert.equal(processStartTime('self'), null);
      t.skip('start times are read from /proc on Linux only');
      return;
    }
    const own = processStartTime('self');
    assert.match(own ?? '', /^\d+$/);
    assert.equal(processStartTime(process.pid), own);
    // A child whose command name is `a) (b c` (the name of the link it was started through), which
    // naive field splitting misreads.
    const link = join(root, 'a) (b c');
    symlinkSync(execFileSync('bash', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), link);
    const child = spawn(link, ['30'], { stdio: 'ignore' });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      const pid = child.pid!;
      const comm = readFileSync(`/proc/${pid}/stat`, 'utf8');
      assert.ok(comm.includes('(a) (b c)'), comm);
      const expected = comm.slice(comm.lastIndexOf(')') + 2).split(' ')[19];
      assert.match(expected ?? '', /^\d+$/);
      assert.equal(processStartTime(pid), expected);
      assert.equal(processStartTime(pid), processStartTime(pid));
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
    assert.equal(processStartTime(2 ** 22 + 1), null);
  });
});
