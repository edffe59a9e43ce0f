import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

const cache = new Map<string, string | null>();

/**
 * Finds the `rg` executable on a `PATH` value (default: this process's), or `null`. The answer is
 * cached per `PATH` value, so the search runs once per process in practice. On Windows the
 * extensions of `PATHEXT` are tried.
 */
export function findRipgrep(searchPath: string | undefined = process.env.PATH): string | null {
  const key = searchPath ?? '';
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const names =
    process.platform === 'win32'
      ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT')
          .split(';')
          .map((extension) => `rg${extension.toLowerCase()}`)
      : ['rg'];
  let found: string | null = null;
  search: for (const directory of key.split(path.delimiter)) {
    if (directory === '' || !path.isAbsolute(directory)) continue; // never a relative PATH entry
    for (const name of names) {
      const candidate = path.join(directory, name);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        found = candidate;
        break search;
      } catch {
        // not here
      }
    }
  }
  cache.set(key, found);
  return found;
}
