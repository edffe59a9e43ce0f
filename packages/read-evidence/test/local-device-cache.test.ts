// A local device's answer is kept for a moment (issue 25: one statfs per read was 2.6% of a read
// with 10 in flight); remote answers were already kept.
import assert from 'node:assert/strict';
import fs, { statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it } from 'node:test';
import { isLocalFileSystem } from '../src/read-small-file.js';
import { localTempDir } from './helpers.js';

describe('the local file system check (issue 25)', () => {
  it('asks statfs once for a local device, not once per read', async (t) => {
    if (process.platform !== 'linux') return t.skip('Linux only; the fast path is off elsewhere');
    const dir = await localTempDir(t);
    if (!dir) return t.skip('no local temporary directory');
    const device = statSync(dir).dev;
    let calls = 0;
    const answers: boolean[] = [];
    const original = fs.statfsSync;
    fs.statfsSync = ((...args: Parameters<typeof fs.statfsSync>) => {
      calls += 1;
      return original(...args);
    }) as typeof fs.statfsSync;
    syncBuiltinESMExports();
    try {
      for (let read = 0; read < 20; read++) answers.push(isLocalFileSystem(dir, device));
    } finally {
      fs.statfsSync = original;
      syncBuiltinESMExports();
    }
    assert.deepEqual(answers, Array(20).fill(true));
    assert.ok(calls <= 1, `statfs was called ${calls} times for 20 reads of one local device`);
    // A remote (here: procfs) device stays remote however often it is asked.
    assert.equal(isLocalFileSystem('/proc/self/status', statSync('/proc/self/status').dev), false);
  });
});
