import { statSync } from 'node:fs';
import path from 'node:path';
import { HOST_CASE_SENSITIVE } from './path-syntax.js';

function swapCase(name: string): string {
  let swapped = '';
  for (const character of name) {
    const upper = character.toUpperCase();
    swapped += upper === character ? character.toLowerCase() : upper;
  }
  return swapped;
}

/**
 * Whether the volume holding an existing directory compares names case-sensitively, found by looking
 * the directory (or its nearest ancestor whose name has letters) up under a case-swapped name: the
 * same file (device and inode) means case-insensitive; nothing, or another file, means case-sensitive.
 *
 * Falls back to {@link HOST_CASE_SENSITIVE} (false on Windows and macOS) when no name on the way has
 * letters or the probe cannot stat. Costs two `stat` calls; never throws.
 */
export function detectCaseSensitivity(realDirectory: string): boolean {
  let current = realDirectory;
  for (;;) {
    const name = path.basename(current);
    const parent = path.dirname(current);
    if (parent === current) return HOST_CASE_SENSITIVE;
    const swapped = swapCase(name);
    if (swapped !== name) {
      const rest = path.relative(current, realDirectory);
      try {
        const original = statSync(realDirectory, { bigint: true });
        const probe = statSync(path.join(parent, swapped, rest), { bigint: true, throwIfNoEntry: false });
        if (probe === undefined) return true;
        return !(probe.dev === original.dev && probe.ino === original.ino);
      } catch {
        return HOST_CASE_SENSITIVE;
      }
    }
    current = parent;
  }
}
