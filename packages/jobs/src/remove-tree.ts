import { chmodSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * Removes a directory tree that commands wrote (a private `/tmp`), whatever modes they left on it: a
 * directory that cannot be listed or emptied (mode 0000, 0500) is made accessible to its owner
 * first. Links are never followed. Best effort: what cannot be removed stays.
 */
export function removeTree(target: string): void {
  try {
    rmSync(target, { recursive: true, force: true });
    return;
  } catch {
    // Fall through: open up the directories on the way, then try again.
  }
  const stack = [target];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(current);
    } catch {
      continue;
    }
    if (!stats.isDirectory()) continue;
    try {
      chmodSync(current, 0o700);
      for (const name of readdirSync(current)) stack.push(path.join(current, name));
    } catch {
      // not ours, or gone
    }
  }
  try {
    rmSync(target, { recursive: true, force: true });
  } catch {
    // left for the next manager's clean-up
  }
}
