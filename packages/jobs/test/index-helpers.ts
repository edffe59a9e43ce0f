// Helpers of the protected-path index tests (protected-path-index, watcher-holes).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ProtectedPathIndex } from '../src/protected-path-index.js';
import { tempDir, waitUntil } from './helpers.js';

/** Waits until the coarse change-time clock has moved past everything made so far. */
export async function settle(): Promise<void> {
  const since = Date.now();
  await waitUntil('the change-time clock moved on', () => Date.now() - since > 120);
}

/** Refreshes until the watcher answers and every directory is settled (nothing left to look at). */
export async function untilSettled(index: ProtectedPathIndex): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const update = await index.refresh();
    if (index.watching && update.lookedAt === 0) return;
    if (Date.now() > deadline)
      throw new Error(
        `the watcher never settled every directory: ${JSON.stringify(update)} ${index.watching}`,
      );
    await delay(20);
  }
}

/** An index of a writable root (secrets: `.env`) with a watcher from the first directory on. */
export function watchedIndex(t: TestContext, root: string, queueLimit?: number): ProtectedPathIndex {
  const state = tempDir(t, 'jobs-watch-state-');
  const index = new ProtectedPathIndex({
    writableRoots: [root],
    readOnlyRoots: [],
    protectedPaths: [],
    secretPaths: ['.env'],
    watch: {
      directoryPrefix: path.join(state, 'tmp', 'h1.watch.'),
      minDirectories: 1,
      ...(queueLimit ? { queueLimit } : {}),
    },
  });
  t.after(() => index.close());
  return index;
}

/** A repository as git lays it out, made by hand (the index only cares about the name `.git`). */
export function makeRepository(directory: string): void {
  mkdirSync(path.join(directory, '.git', 'hooks'), { recursive: true });
  writeFileSync(path.join(directory, '.git', 'HEAD'), 'ref: refs/heads/main\n');
}
