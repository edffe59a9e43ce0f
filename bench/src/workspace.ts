import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The repository root: `bench/` sits directly below it. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** A plain-JavaScript helper script of this package (run by `node` without a loader). */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`./children/${name}`, import.meta.url));
}

/** The built CLI entry point. */
export function cliBinPath(repoRoot: string): string {
  return `${repoRoot}/apps/cli/dist/bin.js`;
}

/**
 * Throws a clear error when a build output the benchmark runs is missing (child processes import the
 * packages' `dist`, as users do; `pnpm bench` builds them first, `pnpm test` through turbo's `^build`).
 */
export function requireBuilt(repoRoot: string): void {
  for (const relative of [
    'apps/cli/dist/bin.js',
    'packages/boot/dist/index.js',
    'packages/builtins/dist/index.js',
    'packages/capability-proxy/dist/index.js',
    'packages/contracts/dist/index.js',
    'packages/jobs/dist/index.js',
    'packages/path-policy/dist/index.js',
    'packages/provider-dialects/dist/index.js',
    'packages/read-evidence/dist/index.js',
  ]) {
    if (!existsSync(`${repoRoot}/${relative}`)) {
      throw new Error(`${relative} is missing: run \`pnpm build\` (pnpm bench builds it first)`);
    }
  }
}

/** The text of line `n` (1-based) of a file made by {@link writeNumberedLines}. */
export function numberedLine(n: number): string {
  return `line ${n} ${'x'.repeat(80)}`;
}

/**
 * Writes a text file of numbered lines (`line <n> xxx…`, about 90 bytes each) of at least `bytes`
 * bytes, in 1 MB writes, and returns how many lines it holds.
 */
export async function writeNumberedLines(path: string, bytes: number): Promise<number> {
  const handle = await open(path, 'w');
  let written = 0;
  let line = 0;
  try {
    while (written < bytes) {
      const parts: string[] = [];
      let size = 0;
      while (size < 1_000_000 && written + size < bytes) {
        const text = `${numberedLine(++line)}\n`;
        parts.push(text);
        size += text.length;
      }
      const chunk = parts.join('');
      await handle.write(chunk);
      written += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return line;
}
