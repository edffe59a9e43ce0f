// Requirements cited: RE-24 (observing a window or a file), RE-25 (mutating an observed file), RE-26
// (creating a file), RE-27 (moving an observed file). See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createFileLocks,
  createObservationStore,
  createObservedFile,
  type EvidenceError,
  fileVersionOf,
  moveObservedFile,
  type MutationOutcome,
  mutateObservedFile,
  observeFile,
  observeWindow,
  type PinnedLocation,
  sha256Of,
} from '../src/index.js';
import { expectError, expectOk, tempDir } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const leftovers = async (directory: string) =>
  (await readdir(directory)).filter((name) => name.endsWith('.toolhost-tmp'));

/** The evidence error of a failed outcome (fails the test on success or on a caller refusal). */
function evidenceErrorOf<T, F>(outcome: MutationOutcome<T, F>): EvidenceError {
  if (outcome.ok) throw new Error('expected a failure, got success');
  if (outcome.error === undefined) throw new Error('expected an evidence error, got a refusal');
  return outcome.error;
}

/** A transform that appends a line. */
const append =
  (line: string) =>
  ({ decoded }: { decoded: { text: string } }) =>
    ({ ok: true, text: decoded.text + line, report: line.length }) as const;

/** A location with a pin check that can be turned off, counting closes. */
function location(diskPath: string): PinnedLocation & { moved: boolean; closes: number } {
  const at = {
    diskPath,
    moved: false,
    closes: 0,
    check: (): EvidenceError | undefined =>
      at.moved ? { code: 'PATH_INVALID', message: 'the directory moved' } : undefined,
    close() {
      at.closes += 1;
    },
  };
  return at;
}

describe('observeWindow', () => {
  it('records the version it read, so a mutation needs no other read (RE-24)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    const store = createObservationStore();
    const window = expectOk(await observeWindow(store, file, { offset: 1, limit: 1 }));
    assert.deepEqual(window.lines, ['two']);
    const observed = store.lookup(file);
    assert.equal(observed.state, 'present');
    assert.deepEqual(observed.state === 'present' && observed.version, window.version);
    assert.equal(window.version.sha256, sha256Of(Buffer.from('one\ntwo\nthree\n')));
    assert.equal(store.observedContent(file)?.sha256, window.version.sha256);
  });

  it('records a missing file as absent and a file that changed while read as nothing (RE-24)', async (t) => {
    const directory = await tempDir(t);
    const store = createObservationStore();
    const missing = join(directory, 'missing.txt');
    assert.equal(expectError(await observeWindow(store, missing)).code, 'FS_NOT_FOUND');
    assert.equal(store.lookup(missing).state, 'absent');

    const file = join(directory, 'b.txt');
    await writeFile(file, 'one\n');
    let checks = 0;
    const signal = {
      get aborted() {
        if (++checks === 1) appendFileSync(file, 'changed while read\n');
        return false;
      },
    } as AbortSignal;
    assert.equal(expectError(await observeWindow(store, file, { signal })).code, 'FS_STALE_VERSION');
    assert.equal(store.lookup(file).state, 'unseen');
  });

  it('returns the pin re-check error and records nothing when the directory moved during the read (RE-24)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    const refused = expectError(
      await observeWindow(store, file, {
        readPath: file,
        confirm: () => ({ code: 'PATH_INVALID', message: 'the directory moved' }),
      }),
    );
    assert.equal(refused.code, 'PATH_INVALID');
    assert.equal(store.lookup(file).state, 'unseen');
  });

  it('enforces the line and window byte limits given as options (RE-24, RE-17)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, `${'x'.repeat(100)}\nshort\n`);
    const store = createObservationStore();
    assert.equal(expectError(await observeWindow(store, file, { maxLineBytes: 50 })).code, 'FILE_TOO_LARGE');
    assert.equal(store.lookup(file).state, 'unseen');
    const cut = expectOk(await observeWindow(store, file, { maxWindowBytes: 104 }));
    assert.equal(cut.lines.length, 1);
    assert.deepEqual(cut.cut, { reason: 'window-bytes', nextOffset: 1 });
    assert.equal(store.lookup(file).state, 'present');
  });

  it('takes the observed hash for equal bytes on a re-read, and the version equals a full hash (RE-24, RE-23)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'same\n');
    const store = createObservationStore();
    const first = expectOk(await observeWindow(store, file));
    await writeFile(file, 'diff\n'); // same size, other bytes
    const second = expectOk(await observeWindow(store, file));
    assert.notEqual(second.version.sha256, first.version.sha256);
    assert.equal(second.version.sha256, sha256Of(Buffer.from('diff\n')));
  });
});

describe('observeFile', () => {
  it('records the whole file only when accept agrees (RE-24)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.json');
    await writeFile(file, '{"cells":[]}');
    const store = createObservationStore();
    const refused = expectOk(await observeFile(store, file, { accept: () => false }));
    assert.equal(refused.recorded, false);
    assert.equal(store.lookup(file).state, 'unseen');
    const taken = expectOk(await observeFile(store, file, { accept: (s) => s.bytes.length > 0 }));
    assert.equal(taken.recorded, true);
    assert.equal(store.lookup(file).state, 'present');
    assert.equal(expectError(await observeFile(store, file, { maxBytes: 3 })).code, 'FILE_TOO_LARGE');
  });
});

describe('mutateObservedFile', () => {
  it('refuses a file never observed with FS_NOT_OBSERVED and writes nothing (RE-25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    let ran = false;
    const outcome = await mutateObservedFile(store, file, {
      transform: () => {
        ran = true;
        return { ok: true, text: 'two\n', report: null };
      },
    });
    assert.equal(evidenceErrorOf(outcome).code, 'FS_NOT_OBSERVED');
    assert.equal(ran, false);
    assert.equal(await readFile(file, 'utf8'), 'one\n');
  });

  it('refuses stale evidence with FS_STALE_VERSION when the file changed after it was observed (RE-25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    appendFileSync(file, 'someone else\n');
    let ran = false;
    const outcome = await mutateObservedFile(store, file, {
      transform: () => {
        ran = true;
        return { ok: true, text: 'mine\n', report: null };
      },
    });
    const error = evidenceErrorOf(outcome);
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.doesNotMatch(error.message, /someone else/);
    assert.equal(ran, false);
    assert.equal(await readFile(file, 'utf8'), 'one\nsomeone else\n');
    assert.deepEqual(await leftovers(directory), []);
  });

  it('writes the transform in the file encoding, records the new version and edits again without a read (RE-25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    await writeFile(file, utf16('one\r\ntwo\r\n'));
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    const first = await mutateObservedFile(store, file, { transform: append('three\r\n') });
    assert.ok(first.ok);
    assert.equal(first.changed, true);
    assert.equal(first.report, 7);
    assert.equal(first.source.decoded.lineEnding, 'crlf');
    assert.deepEqual(await readFile(file), utf16('one\r\ntwo\r\nthree\r\n'));
    const bytes = await readFile(file);
    assert.deepEqual(first.version, fileVersionOf(await stat(file, { bigint: true }), sha256Of(bytes)));
    const observed = store.lookup(file);
    assert.deepEqual(observed.state === 'present' && observed.version, first.version);
    const second = await mutateObservedFile(store, file, { transform: append('four\r\n') });
    assert.ok(second.ok, 'the recorded version is current: no read needed');
    assert.deepEqual(await readFile(file), utf16('one\r\ntwo\r\nthree\r\nfour\r\n'));
  });

  it('writes nothing for an unchanged text and hands back a transform refusal as is (RE-25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    const before = await stat(file, { bigint: true });
    const same = await mutateObservedFile(store, file, {
      transform: ({ decoded }) => ({ ok: true, text: decoded.text, report: 'same' }),
    });
    assert.ok(same.ok);
    assert.equal(same.changed, false);
    assert.equal(same.version, undefined);
    assert.equal((await stat(file, { bigint: true })).ino, before.ino);
    const refused = await mutateObservedFile<never, { reason: string }>(store, file, {
      transform: () => ({ ok: false, refusal: { reason: 'no match' } }),
    });
    assert.ok(!refused.ok);
    assert.deepEqual(refused.refusal, { reason: 'no match' });
    assert.equal(refused.error, undefined);
    assert.equal((await stat(file, { bigint: true })).ino, before.ino);
  });

  it('goes through the caller location, fails on its re-check and always closes it (RE-25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    const at = location(file);
    at.moved = true;
    const moved = await mutateObservedFile(store, file, {
      locate: () => ({ ok: true, value: at }),
      transform: append('two\n'),
    });
    assert.equal(evidenceErrorOf(moved).code, 'PATH_INVALID');
    assert.equal(at.closes, 1);
    assert.equal(await readFile(file, 'utf8'), 'one\n');
    at.moved = false;
    const done = await mutateObservedFile(store, file, {
      locate: () => ({ ok: true, value: at }),
      transform: append('two\n'),
    });
    assert.ok(done.ok);
    assert.equal(at.closes, 2);
    assert.equal(await readFile(file, 'utf8'), 'one\ntwo\n');
  });

  it('reports a missing location by the observation: stale when observed present, not found when unseen, else the refusal (RE-25, RE-7)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const locate = () => ({ ok: false, missing: true, refusal: 'the directory is missing' }) as const;
    // The file is there and observed current: the caller's refusal is handed back unchanged.
    const current = createObservationStore();
    expectOk(await observeWindow(current, file));
    const refused = await mutateObservedFile(current, file, { locate, transform: append('x') });
    assert.ok(!refused.ok);
    assert.equal(refused.refusal, 'the directory is missing');
    assert.equal(refused.error, undefined);
    await rm(file);
    const gone = await mutateObservedFile(current, file, { locate, transform: append('x') });
    assert.equal(evidenceErrorOf(gone).code, 'FS_STALE_VERSION');
    const unseen = await mutateObservedFile(createObservationStore(), file, {
      locate,
      transform: append('x'),
    });
    assert.equal(evidenceErrorOf(unseen).code, 'FS_NOT_FOUND');
  });

  it('loses no write of a writer that takes no lock: a change during the transform is FS_STALE_VERSION (RE-25, RE-21)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    const outcome = await mutateObservedFile(store, file, {
      transform: ({ decoded }) => {
        appendFileSync(file, 'an editor saved\n');
        return { ok: true, text: `${decoded.text}mine\n`, report: null };
      },
    });
    assert.equal(evidenceErrorOf(outcome).code, 'FS_STALE_VERSION');
    assert.equal(await readFile(file, 'utf8'), 'one\nan editor saved\n');
    assert.deepEqual(await leftovers(directory), []);
  });

  it('serialises two agents of one process: exactly one of two concurrent edits of one version wins (RE-25, RE-14)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const agents = [createObservationStore(), createObservationStore()];
    for (const store of agents) expectOk(await observeWindow(store, file));
    const outcomes = await Promise.all(
      agents.map((store, index) =>
        mutateObservedFile(store, file, { transform: append(`agent ${index}\n`) }),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.ok);
    assert.equal(won.length, 1);
    const lost = outcomes.find((outcome) => !outcome.ok);
    assert.equal(lost && evidenceErrorOf(lost).code, 'FS_STALE_VERSION');
    const text = await readFile(file, 'utf8');
    assert.match(text, /^one\nagent [01]\n$/);
  });

  it('loses no append when another toolhost process appends to the same file concurrently (RE-25, RE-20)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'log.txt');
    const lockDirectory = join(directory, 'locks');
    writeFileSync(file, '');
    const count = 25;
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--conditions=@toolhost/source',
        '--import',
        'tsx',
        fixture('append-observed.ts'),
        file,
        lockDirectory,
        'child',
        String(count),
      ],
      { cwd: packageDir, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    t.after(() => child.kill());
    let output = '';
    const nextLine = () =>
      new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const end = output.indexOf('\n');
          if (end < 0) return;
          const line = output.slice(0, end);
          output = output.slice(end + 1);
          child.stdout!.off('data', onData);
          resolve(line);
        };
        child.stdout!.on('data', onData);
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
    assert.equal(await nextLine(), 'ready');
    const childDone = nextLine();
    child.stdin!.write('go\n');
    const store = createObservationStore();
    const fileLocks = createFileLocks({ directory: lockDirectory, timeoutMs: 60_000 });
    for (let n = 0; n < count; ) {
      // A read that meets the other process's write is stale too (RE-8): read again.
      const seen = await observeWindow(store, file, { limit: 1 });
      if (!seen.ok) {
        assert.equal(seen.error.code, 'FS_STALE_VERSION');
        continue;
      }
      const outcome = await mutateObservedFile(store, file, {
        fileLocks,
        transform: append(`parent ${n}\n`),
      });
      if (outcome.ok) n += 1;
      else assert.equal(evidenceErrorOf(outcome).code, 'FS_STALE_VERSION');
    }
    assert.match(await childDone, /^done \d+$/);
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    assert.equal(lines.length, 2 * count);
    for (const marker of ['parent', 'child'])
      assert.deepEqual(
        lines.filter((line) => line.startsWith(`${marker} `)),
        Array.from({ length: count }, (_, n) => `${marker} ${n}`),
      );
    assert.deepEqual(await leftovers(directory), []);
  });
});

describe('createObservedFile', () => {
  it('creates a missing file, records it, and never overwrites one that exists (RE-26)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'new.txt');
    const store = createObservationStore();
    const created = await createObservedFile(store, file, Buffer.from('hello\n'));
    assert.ok(created.ok);
    assert.equal(created.value.version?.sha256, sha256Of(Buffer.from('hello\n')));
    const edited = await mutateObservedFile(store, file, { transform: append('again\n') });
    assert.ok(edited.ok, 'a created file can be edited without a read');
    const again = await createObservedFile(store, file, Buffer.from('other\n'));
    assert.ok(!again.ok);
    assert.equal(again.error?.code, 'FS_ALREADY_EXISTS');
    assert.equal(await readFile(file, 'utf8'), 'hello\nagain\n');
  });

  it('refuses to create a file that was observed present and removed since, as stale (RE-26, RE-7)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    await writeFile(file, 'one\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, file));
    await rm(file);
    const refused = await createObservedFile(store, file, Buffer.from('two\n'));
    assert.ok(!refused.ok);
    assert.equal(refused.error?.code, 'FS_STALE_VERSION');
    await assert.rejects(stat(file), { code: 'ENOENT' });
  });
});

describe('moveObservedFile', () => {
  it('moves an observed file, records the source absent and the destination present, and never replaces (RE-27)', async (t) => {
    const directory = await tempDir(t);
    const from = join(directory, 'a.txt');
    const to = join(directory, 'b.txt');
    const taken = join(directory, 'c.txt');
    await writeFile(from, 'one\n');
    await writeFile(taken, 'keep\n');
    const store = createObservationStore();
    expectOk(await observeWindow(store, from));
    const refused = await moveObservedFile(store, from, taken);
    assert.ok(!refused.ok);
    assert.equal(refused.error?.code, 'FS_ALREADY_EXISTS');
    assert.equal(await readFile(taken, 'utf8'), 'keep\n');
    const moved = await moveObservedFile(store, from, to);
    assert.ok(moved.ok);
    assert.equal(moved.value.crossDevice, false);
    assert.equal(store.lookup(from).state, 'absent');
    assert.deepEqual(
      moved.value.version,
      fileVersionOf(await stat(to, { bigint: true }), sha256Of(Buffer.from('one\n'))),
    );
    const edited = await mutateObservedFile(store, to, { transform: append('two\n') });
    assert.ok(edited.ok, 'the observation followed the file');
    assert.equal(await readFile(to, 'utf8'), 'one\ntwo\n');
  });

  it('refuses an unobserved or stale source and moves nothing (RE-27)', async (t) => {
    const directory = await tempDir(t);
    const from = join(directory, 'a.txt');
    const to = join(directory, 'b.txt');
    await writeFile(from, 'one\n');
    const store = createObservationStore();
    const unseen = await moveObservedFile(store, from, to);
    assert.ok(!unseen.ok);
    assert.equal(unseen.error?.code, 'FS_NOT_OBSERVED');
    expectOk(await observeWindow(store, from));
    appendFileSync(from, 'changed\n');
    const stale = await moveObservedFile(store, from, to);
    assert.ok(!stale.ok);
    assert.equal(stale.error?.code, 'FS_STALE_VERSION');
    assert.equal(await readFile(from, 'utf8'), 'one\nchanged\n');
    await assert.rejects(stat(to), { code: 'ENOENT' });
  });
});
