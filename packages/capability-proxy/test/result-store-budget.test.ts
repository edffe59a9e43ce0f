import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ToolhostError } from '@toolhost/contracts';
import { createResultStore, DEFAULT_RESULT_DISK_BYTES } from '../src/result-store.js';
import { tempDir } from './helpers.js';

/** The `details.reason` of a failed lookup, or `ok`. */
function reasonOf(result: { ok: true } | { ok: false; error: ToolhostError }): unknown {
  return result.ok ? 'ok' : result.error.details.reason;
}

function body(index: number, bytes: number): string {
  return `${index}:`.padEnd(bytes, 'x');
}

/**
 * Mounts a tmpfs of `size` bytes (possible as root, as on this project's CI); undefined when mounting
 * is not possible here. `cleanup` unmounts it and removes the directory.
 */
function smallDisk(size: number): { dir: string; cleanup: () => void } | undefined {
  const parent = mkdtempSync(join(tmpdir(), 'result-store-disk-'));
  const dir = join(parent, 'disk');
  mkdirSync(dir);
  const remove = () => rmSync(parent, { recursive: true, force: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    remove();
    return undefined;
  }
  return {
    dir,
    cleanup: () => {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      remove();
    },
  };
}

describe('createResultStore (disk budget)', () => {
  it('keeps stored results within a per-host disk budget, evicting the oldest first, and says RESULT_NOT_FOUND evicted on a later read', (t) => {
    const dir = tempDir(t);
    const store = createResultStore({ dir, maxDiskBytes: 100_000 });
    const refs = [0, 1, 2, 3, 4].map(
      (index) => store.put({ callId: `c${index}`, toolName: 'bash', body: body(index, 30_000) }).resultRef,
    );
    assert.ok(store.diskBytes <= 100_000, `${store.diskBytes} bytes on disk`);
    assert.equal(readdirSync(dir).filter((name) => name.endsWith('.txt')).length, 3);
    for (const index of [0, 1]) {
      const gone = store.page({ toolCallId: `c${index}`, resultRef: refs[index]! });
      assert.ok(!gone.ok);
      assert.equal(gone.error.code, 'RESULT_NOT_FOUND');
      assert.equal(gone.error.details.reason, 'evicted');
      assert.match(
        gone.error.message,
        /was evicted: the host keeps at most 100000 bytes of stored results and removes the oldest first/,
      );
      assert.match(gone.error.message, /re-run bash with narrower arguments/);
      // Without the ref too.
      assert.equal(reasonOf(store.get({ toolCallId: `c${index}` })), 'evicted');
    }
    for (const index of [2, 3, 4]) assert.ok(store.get({ toolCallId: `c${index}` }).ok);
    assert.deepEqual(
      store.entries().map((entry) => entry.callId),
      ['c2', 'c3', 'c4'],
    );
    store.close();

    // A store over the same directory remembers the evictions, and a lower budget evicts at once.
    const resumed = createResultStore({ dir, maxDiskBytes: 70_000 });
    assert.equal(reasonOf(resumed.get({ toolCallId: 'c0' })), 'evicted');
    assert.deepEqual(
      resumed.entries().map((entry) => entry.callId),
      ['c3', 'c4'],
    );
    assert.equal(reasonOf(resumed.get({ toolCallId: 'c2' })), 'evicted');
    assert.ok(resumed.get({ toolCallId: 'c4' }).ok);
    resumed.close();
  });

  it('bounds the in-memory store and its spill directory by the same budget', (t) => {
    const store = createResultStore({ maxMemoryBytes: 40_000, spillBytes: 20_000, maxDiskBytes: 60_000 });
    t.after(() => store.close());
    for (let index = 0; index < 10; index++)
      store.put({ callId: `m${index}`, toolName: 'grep', body: body(index, 25_000) });
    assert.ok(store.diskBytes <= 60_000, `${store.diskBytes} bytes spilled`);
    assert.equal(reasonOf(store.get({ toolCallId: 'm0' })), 'evicted');
    assert.ok(store.get({ toolCallId: 'm9' }).ok);
  });

  it('refuses a body larger than the whole budget with DISK_FULL and keeps nothing of it', (t) => {
    const dir = tempDir(t);
    const store = createResultStore({ dir, maxDiskBytes: 10_000 });
    t.after(() => store.close());
    store.put({ callId: 'small', toolName: 'bash', body: body(0, 5_000) });
    assert.throws(
      () => store.put({ callId: 'huge', toolName: 'bash', body: body(1, 20_000) }),
      (error: unknown) =>
        ToolhostError.isInstance(error) &&
        error.code === 'DISK_FULL' &&
        error.details.reason === 'over_budget',
    );
    assert.ok(store.get({ toolCallId: 'small' }).ok, 'a refused body evicts nothing');
    assert.equal(readFileSync(join(dir, 'index.jsonl'), 'utf8').trim().split('\n').length, 1);
  });

  it('has a finite default budget', () => {
    assert.equal(DEFAULT_RESULT_DISK_BYTES, 256 * 1024 * 1024);
  });

  it('reports DISK_FULL on a full disk instead of crashing, leaving no partial body or index line, and keeps serving what it holds', (t) => {
    const mounted = smallDisk(256 * 1024);
    if (!mounted) {
      t.skip('a tmpfs cannot be mounted here');
      return;
    }
    const disk = mounted.dir;
    const store = createResultStore({ dir: join(disk, 'results') });
    t.after(() => {
      store.close();
      mounted.cleanup();
    });
    const first = store.put({ callId: 'a', toolName: 'bash', body: body(0, 150_000) });
    assert.throws(
      () => store.put({ callId: 'b', toolName: 'bash', body: body(1, 150_000) }),
      (error: unknown) => {
        assert.ok(ToolhostError.isInstance(error), String(error));
        assert.equal(error.code, 'DISK_FULL');
        assert.match(
          error.toModelText(),
          /^DISK_FULL: the file system holding the stored tool results is full/,
        );
        return true;
      },
    );
    assert.deepEqual(
      readdirSync(join(disk, 'results')).sort(),
      ['index.jsonl', `${first.resultRef}.txt`],
      'no temp file, no partial body',
    );
    assert.ok(store.page({ toolCallId: 'a' }).ok);
    assert.equal(
      (store.get({ toolCallId: 'b' }) as { ok: false; error: ToolhostError }).error.code,
      'RESULT_NOT_FOUND',
    );
  });
});
