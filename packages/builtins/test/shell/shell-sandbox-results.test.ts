// What the bash tool tells the model about issue 15's sandbox and disk findings: DISK_FULL instead of
// COMMAND_FAILED "(no output)" on a full disk, and the note that a protected path the command created
// was moved to the quarantine.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { resultText, shellFixture } from './shell-helpers.js';

/** A small tmpfs (needs root), or undefined; `release` unmounts it (register it after the fixture). */
function smallFileSystem(size: string): { dir: string; release: () => void } | undefined {
  const base = realpathSync.native(mkdtempSync(path.join(tmpdir(), 'shell-disk-')));
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
        // left for the system's temporary-file clean-up
      }
    },
  };
}

describe('bash results for the sandbox and the disk', () => {
  it('answers DISK_FULL rather than COMMAND_FAILED with no output when the disk of the job logs is full (full disk, issue 15)', async (t) => {
    const disk = smallFileSystem('256k');
    if (!disk) return t.skip('cannot mount a tmpfs here');
    const fixture = shellFixture(t, { mode: 'read_only', jobs: { stateDir: path.join(disk.dir, 'state') } });
    t.after(disk.release);
    const filler = path.join(disk.dir, 'filler');
    try {
      for (;;) writeFileSync(filler, Buffer.alloc(64 * 1024), { flag: 'a' });
    } catch {
      // full now
    }
    const result = await fixture.call('bash', { command: 'echo hi' });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.error.code, 'DISK_FULL');
    assert.match(
      resultText(result),
      /^DISK_FULL: the file system holding the job logs .* is full.*; free disk space/,
    );
    rmSync(filler);
    // A job that fills the disk while it runs is reported the same way, with what it could write.
    const filling = await fixture.call('bash', {
      command: 'head -c 4000000 /dev/zero | tr "\\0" x; echo end',
    });
    assert.equal(!filling.ok && filling.error.code, 'DISK_FULL', resultText(filling).slice(0, 200));
    assert.match(resultText(filling), /output log was full/);
  });

  it('tells the model after the output that a .git it created was moved to the quarantine (nested protected paths, issue 15)', async (t) => {
    const fixture = shellFixture(t, { mode: 'workspace_write' });
    const result = await fixture.call('bash', { command: 'git init -q nested && echo made' });
    assert.ok(result.ok, resultText(result));
    const text = resultText(result);
    assert.match(
      text,
      /^made\n\[sandbox note: the command created or changed .*nested\/\.git, a protected path/,
    );
    assert.match(text, /moved into the host's quarantine/);
    assert.ok(!text.includes(fixture.root), "the note never shows the root's absolute path");
    assert.equal(existsSync(path.join(fixture.root, 'nested', '.git')), false);
    assert.equal(result.ok && result.output.details?.contained, true);
  });
});
