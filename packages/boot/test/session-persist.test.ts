import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type Host } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

/**
 * Waits past the session's snapshot timer (250 ms, armed when a call ends). Node fires timers in
 * order of their expiry, so a longer timer armed after the calls ended always fires after the
 * session's: this orders the check after the timer, it does not guess a duration.
 */
const pastSnapshotTimer = () => new Promise((resolve) => setTimeout(resolve, 600));

/** The snapshot file's inode: every write is a new temporary file renamed over the old one. */
const snapshotInode = (dir: string) => statSync(join(dir, 'snapshot.json'), { bigint: true }).ino;

describe('session snapshot', () => {
  it('is not rewritten (fsync and rename) by calls that leave the session unchanged, and is after a change (issue 25)', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\ntwo\n');
    writeFileSync(join(root.dir, 'b.txt'), 'three\n');
    const host = await createHost({ root: root.dir, config: false });
    hosts.push(host);
    const session = await host.openSession();
    const read = async (path: string) => {
      const result = await session.dispatch({ name: 'read_file', arguments: { path } });
      assert.equal(result.status, 'ok', result.output);
    };
    await read('a.txt');
    await pastSnapshotTimer();
    const first = snapshotInode(session.dir);
    assert.match(readFileSync(join(session.dir, 'snapshot.json'), 'utf8'), /a\.txt/);

    // Re-reads of an unchanged file observed already: the state is what the snapshot holds.
    for (let index = 0; index < 5; index += 1) await read('a.txt');
    await pastSnapshotTimer();
    assert.equal(snapshotInode(session.dir), first, 'the unchanged snapshot was written again');

    // A new observation changes the state: it is written.
    await read('b.txt');
    await pastSnapshotTimer();
    assert.notEqual(snapshotInode(session.dir), first);
    assert.match(readFileSync(join(session.dir, 'snapshot.json'), 'utf8'), /b\.txt/);
  });

  it('of a new session is written at its first state change, not at open, and still found without a close (issue 25 target 6)', async () => {
    writeFileSync(join(root.dir, 'a.txt'), 'one\n');
    const host = await createHost({ root: root.dir, config: false });
    hosts.push(host);
    const session = await host.openSession();
    const file = join(session.dir, 'snapshot.json');
    assert.equal(existsSync(file), false, 'the new session wrote a snapshot before anything happened');
    const result = await session.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } });
    assert.equal(result.status, 'ok', result.output);
    await pastSnapshotTimer();
    // No close: what a process that dies now leaves behind.
    const onDisk = JSON.parse(readFileSync(file, 'utf8')) as { id: string; observations: unknown };
    assert.equal(onDisk.id, session.id);
    assert.match(JSON.stringify(onDisk.observations), /a\.txt/);
    // A session closed without any call is written by its close, and resumable.
    const idle = await host.openSession();
    assert.equal(existsSync(join(idle.dir, 'snapshot.json')), false);
    await idle.close();
    const resumed = await host.resumeSession(idle.id);
    assert.equal(resumed.id, idle.id);
    await resumed.close();
  });
});
