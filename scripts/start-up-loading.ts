// The start-up loading probe the packages' test/start-up-loading.test.ts share (issue 25: cold
// start): runs a body in a fresh Node that imports the package's sources as `pkg`, and reports which
// modules of the named libraries the ES loader loaded and which files CommonJS required.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What a fresh process loaded of the watched libraries. */
export interface LoadedLibraries {
  /** URLs the ES loader loaded. */
  readonly esm: string[];
  /** Files in the CommonJS require cache. */
  readonly cjs: string[];
}

/**
 * Runs `body` (ES module code that may use `pkg`, the package's `src/index.ts`) in a fresh Node
 * started in `packageDir`, watching the libraries named by `libraries` (package names).
 */
export function loadedIn(packageDir: string, libraries: readonly string[], body: string): LoadedLibraries {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-loading-'));
  const watched = JSON.stringify(libraries.map((name) => `/${name}/`));
  try {
    writeFileSync(
      join(dir, 'hook.mjs'),
      `export async function load(url, context, next) {
  if (${watched}.some((name) => url.includes(name))) process.stderr.write('ESM ' + url + '\\n');
  return next(url, context);
}
`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`,
    );
    const script = join(dir, 'main.mts');
    writeFileSync(
      script,
      `import { createRequire } from 'node:module';
const pkg = await import(${JSON.stringify(pathToFileURL(join(packageDir, 'src/index.ts')).href)});
${body}
const cache = Object.keys(createRequire(import.meta.url).cache).filter((file) => ${watched}.some((name) => file.includes(name)));
process.stdout.write(JSON.stringify(cache));
`,
    );
    const child = spawnSync(
      process.execPath,
      // Sources all the way down (the workspace packages' `@toolhost/source` export), as the tests run.
      [
        '--conditions=@toolhost/source',
        '--import',
        pathToFileURL(join(dir, 'register.mjs')).href,
        '--import',
        'tsx',
        script,
      ],
      { cwd: packageDir, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(child.status, 0, `the child failed: ${child.stderr}`);
    const esm = child.stderr
      .split('\n')
      .filter((line) => line.startsWith('ESM '))
      .map((line) => line.slice(4));
    return { esm, cjs: JSON.parse(child.stdout) as string[] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
