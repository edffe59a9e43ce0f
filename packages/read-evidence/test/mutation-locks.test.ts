// Requirements cited: RE-14 (per-file locks taken in sorted order). See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMutationLocks, sharedMutationLocks } from '../src/index.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createMutationLocks', () => {
  it('runs tasks on one key one at a time, in arrival order (RE-14)', async () => {
    const locks = createMutationLocks();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`start ${name}`);
      await tick();
      await tick();
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      locks.withLocks(['/a'], task('one')),
      locks.withLocks(['/a'], task('two')),
      locks.withLocks(['/a'], task('three')),
    ]);
    assert.deepEqual(results, ['one', 'two', 'three']);
    assert.deepEqual(events, ['start one', 'end one', 'start two', 'end two', 'start three', 'end three']);
    assert.equal(locks.pending, 0);
  });

  it('runs tasks on different keys side by side', async () => {
    const locks = createMutationLocks();
    const events: string[] = [];
    await Promise.all(
      ['/a', '/b'].map((key) =>
        locks.withLocks([key], async () => {
          events.push(`start ${key}`);
          await tick();
          events.push(`end ${key}`);
        }),
      ),
    );
    assert.deepEqual(events.slice(0, 2).sort(), ['start /a', 'start /b']);
  });

  it('cannot deadlock when two tasks take the same keys in opposite orders (RE-14)', async () => {
    const locks = createMutationLocks();
    let inside = 0;
    let maxInside = 0;
    const task = async () => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await tick();
      inside--;
    };
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        locks.withLocks(index % 2 ? ['/a', '/b'] : ['/b', '/a', '/b'], task),
      ),
    );
    assert.equal(maxInside, 1);
    assert.equal(locks.pending, 0);
  });

  it('releases the keys when the task throws', async () => {
    const locks = createMutationLocks();
    await assert.rejects(
      locks.withLocks(['/a'], async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await locks.withLocks(['/a'], async () => 'next'), 'next');
  });
});

describe('sharedMutationLocks', () => {
  it('returns one instance per process', () => {
    assert.equal(sharedMutationLocks(), sharedMutationLocks());
  });
});
