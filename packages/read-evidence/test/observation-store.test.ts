// Requirements cited: RE-1..RE-7, RE-16, RE-23. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { chmod, link, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { createObservationStore, type ObservationStore, readTextWindow, sha256Of } from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

/** Observes a file the way read_file does: a one-line window. */
async function observe(store: ObservationStore, path: string): Promise<void> {
  const window = expectOk(
    await readTextWindow(path, { limit: 1, hashLimit: store.hashLimit, contentLimit: store.contentLimit }),
  );
  store.recordPresent(path, window.version, window.content ? { content: window.content } : {});
}

describe('createObservationStore', () => {
  it('starts unseen and refuses a check with FS_NOT_OBSERVED (RE-2)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'a\n');
    const store = createObservationStore();
    assert.deepEqual(store.lookup(file), { state: 'unseen' });
    const error = expectError(await store.check(file, { displayPath: 'a.txt' }));
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    assert.match(error.message, /a\.txt has not been observed in this session/);
  });

  it('takes a window whose content is undefined (a file over the content limit) as it comes (issue 23: the README example did not typecheck under exactOptionalPropertyTypes)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    const store = createObservationStore({ contentLimit: 4 });
    const window = expectOk(await readTextWindow(file, { limit: 1, contentLimit: store.contentLimit }));
    assert.equal(window.content, undefined);
    // The README's own line: `content` passed through, with no conditional spread.
    store.recordPresent(file, window.version, { content: window.content });
    assert.equal(store.lookup(file).state, 'present');
    assert.equal(expectOk(await store.check(file)).refreshed, false);
  });

  it('holds a read window as a current observation (RE-2, RE-4)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    const store = createObservationStore();
    await observe(store, file);
    assert.equal(store.lookup(file).state, 'present');
    assert.equal(expectOk(await store.check(file)).refreshed, false);
  });

  it('treats touch, chmod and an identical rewrite as current and refreshes silently (RE-4)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'same content\n');
    const store = createObservationStore();
    await observe(store, file);
    await utimes(file, new Date('2001-01-01'), new Date('2001-01-01'));
    assert.equal(expectOk(await store.check(file)).refreshed, true);
    await chmod(file, 0o600);
    assert.equal(expectOk(await store.check(file)).refreshed, true);
    await writeFile(file, 'same content\n');
    assert.equal(expectOk(await store.check(file)).refreshed, true);
    assert.equal(expectOk(await store.check(file)).refreshed, false, 'the refreshed metadata is now stored');
  });

  it('follows a replacement by an identical file (another program’s atomic save) (RE-4)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'content\n');
    const store = createObservationStore();
    await observe(store, file);
    await writeFile(join(directory, 'tmp'), 'content\n');
    await rename(join(directory, 'tmp'), file);
    const current = expectOk(await store.check(file));
    assert.equal(current.refreshed, true);
    assert.equal(current.version.ino, (await stat(file, { bigint: true })).ino.toString());
  });

  it('catches a content change even when size and mtime are restored, naming the changed lines (RE-4, RE-6)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'alpha\nbeta\ngamma\ndelta\n');
    const before = await stat(file);
    const store = createObservationStore();
    await observe(store, file);
    await writeFile(file, 'alpha\nBETA\ngamma\ndelta\n');
    await utimes(file, before.atime, before.mtime);
    const error = expectError(await store.check(file, { displayPath: 'a.txt' }));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(
      error.message,
      /a\.txt changed after it was read: its content changed \(line 2 in the current file\)/,
    );
    assert.doesNotMatch(error.message, /BETA|beta/, 'never file contents');
  });

  it('uses metadata alone beyond the hash limit, so any metadata change is stale (RE-5)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'x'.repeat(200));
    const store = createObservationStore({ hashLimit: 100 });
    await observe(store, file);
    const observed = store.lookup(file);
    assert.ok(observed.state === 'present' && observed.version.sha256 === null);
    expectOk(await store.check(file));
    await utimes(file, new Date('2001-01-01'), new Date('2001-01-01'));
    const error = expectError(await store.check(file));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(error.message, /too large to compare by content/);
  });

  it('reports a removed file as stale and a never-observed missing file as not found (RE-7)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'x\n');
    const store = createObservationStore();
    await observe(store, file);
    await rm(file);
    const removed = expectError(await store.check(file));
    assert.equal(removed.code, 'FS_STALE_VERSION');
    assert.match(removed.message, /was removed after it was observed/);
    assert.equal(expectError(await store.check(join(directory, 'never.txt'))).code, 'FS_NOT_FOUND');
  });

  it('remembers absence and refuses a file that appeared since (RE-2)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    const store = createObservationStore();
    store.recordAbsent(file);
    assert.deepEqual(store.lookup(file), { state: 'absent' });
    await writeFile(file, 'new\n');
    const error = expectError(await store.check(file));
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    assert.match(error.message, /did not exist when it was last observed/);
  });

  it('shares one observation between hard links (RE-1)', async (t) => {
    const directory = await tempDir(t);
    const first = join(directory, 'first.txt');
    const second = join(directory, 'second.txt');
    await writeFile(first, 'shared\n');
    await link(first, second);
    const store = createObservationStore();
    await observe(store, first);
    expectOk(await store.check(second));
    assert.equal(store.size, 1);
  });

  it('keeps observations per store: a clone and a second store are independent (RE-2)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'x\n');
    const parent = createObservationStore();
    const child = createObservationStore();
    await observe(child, file);
    assert.equal(expectError(await parent.check(file)).code, 'FS_NOT_OBSERVED');
    const copy = child.clone();
    child.clear();
    expectOk(await copy.check(file));
    assert.equal(expectError(await child.check(file)).code, 'FS_NOT_OBSERVED');
  });

  it('round-trips through toJSON and restore, re-validating restored versions by content hash (RE-16)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'persisted\n');
    const store = createObservationStore();
    await observe(store, file);
    const snapshot = JSON.parse(JSON.stringify(store.toJSON()));
    const resumed = createObservationStore();
    resumed.restore(snapshot);
    assert.equal(resumed.lookup(file).state, 'present');
    assert.equal(expectOk(await resumed.check(file)).refreshed, true, 'the first use re-hashes');

    // A restored version whose metadata matches but whose hash does not is stale: metadata is not
    // trusted across a restart (inode numbers are reused).
    const forged = structuredClone(snapshot);
    forged.entries[0].version.sha256 = '0'.repeat(64);
    const suspicious = createObservationStore();
    suspicious.restore(forged);
    assert.equal(expectError(await suspicious.check(file)).code, 'FS_STALE_VERSION');
    assert.throws(
      () => suspicious.restore({ format: 'other' } as never),
      /not an observation store snapshot/,
    );
  });

  it('hands out the kept bytes with the observed hash, and nothing it did not keep (RE-6, RE-23)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'kept\n');
    const store = createObservationStore({ contentLimit: 16 });
    assert.equal(store.observedContent(file), undefined, 'unseen');
    await observe(store, file);
    const kept = store.observedContent(file);
    assert.equal(kept?.bytes.toString(), 'kept\n');
    assert.equal(kept?.sha256, sha256Of(Buffer.from('kept\n')));
    const big = join(directory, 'big.txt');
    await writeFile(big, 'x'.repeat(17));
    await observe(store, big);
    assert.equal(store.observedContent(big), undefined, 'beyond the content limit');
    const resumed = createObservationStore();
    resumed.restore(store.toJSON());
    assert.equal(resumed.observedContent(file), undefined, 'a snapshot carries no content');
    store.recordAbsent(file);
    assert.equal(store.observedContent(file), undefined, 'observed absent since');
  });

  it('a re-read that takes the kept hash records the bytes it read, so a change back is still stale (RE-4, RE-23, issue 25)', async (t) => {
    // Read A; the file becomes B (same size, times put back); read again: the second read must
    // record B's hash, not A's. Then the file becomes A again: the agent last saw B, so it is stale.
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'alpha\nbeta\n');
    const before = await stat(file);
    const store = createObservationStore();
    const read = async () => {
      const known = store.observedContent(file);
      const window = expectOk(
        await readTextWindow(file, {
          hashLimit: store.hashLimit,
          contentLimit: store.contentLimit,
          ...(known ? { knownContent: known } : {}),
        }),
      );
      store.recordPresent(file, window.version, window.content ? { content: window.content } : {});
      return window;
    };
    await read();
    await read();
    assert.equal(store.observedContent(file)?.sha256, sha256Of(Buffer.from('alpha\nbeta\n')));
    await writeFile(file, 'alpha\nBETA\n');
    await utimes(file, before.atime, before.mtime);
    assert.deepEqual((await read()).lines, ['alpha', 'BETA']);
    assert.equal(store.observedContent(file)?.sha256, sha256Of(Buffer.from('alpha\nBETA\n')));
    await writeFile(file, 'alpha\nbeta\n');
    await utimes(file, before.atime, before.mtime);
    assert.equal(expectError(await store.check(file)).code, 'FS_STALE_VERSION');
  });

  it('keeps the buffer a re-read of unchanged bytes hands back instead of copying it on every read (RE-23, issue 25)', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, 'alpha\nbeta\n');
    const store = createObservationStore({ contentBudget: 64 });
    await observe(store, file);
    const kept = store.observedContent(file);
    assert.ok(kept);
    for (let round = 0; round < 3; round += 1) {
      const known = store.observedContent(file);
      const window = expectOk(
        await readTextWindow(file, {
          hashLimit: store.hashLimit,
          contentLimit: store.contentLimit,
          ...(known ? { knownContent: known } : {}),
        }),
      );
      assert.equal(window.content, kept.bytes, 'the read hands back the known buffer for equal bytes');
      store.recordPresent(file, window.version, { content: window.content });
      assert.equal(store.observedContent(file)?.bytes, kept.bytes, 'the store copied its own buffer');
    }
    // The budget still counts the kept bytes once: a second file that fits beside them is kept too.
    const other = join(dirname(file), 'b.txt');
    await writeFile(other, 'x'.repeat(40));
    await observe(store, other);
    assert.equal(store.observedContent(file)?.bytes, kept.bytes);
    assert.equal(store.observedContent(other)?.bytes.length, 40);
  });

  it('drops the oldest retained content beyond the budget but keeps the versions', async (t) => {
    const directory = await tempDir(t);
    const store = createObservationStore({ contentBudget: 64 });
    const first = join(directory, 'first.txt');
    const second = join(directory, 'second.txt');
    await writeFile(first, `${'a'.repeat(40)}\n`);
    await writeFile(second, `${'b'.repeat(40)}\n`);
    await observe(store, first);
    await observe(store, second);
    await writeFile(first, `${'c'.repeat(40)}\n`);
    const error = expectError(await store.check(first));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.doesNotMatch(error.message, /in the current file/, 'its content was evicted');
    assert.equal(store.size, 2);
  });
});
