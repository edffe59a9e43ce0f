import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const repo = path.resolve(import.meta.dirname, '..', '..', '..');
const here = path.resolve(import.meta.dirname, '..');
const manifest = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    name: string;
    private?: boolean;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every workspace package (packages/* and apps/*) whose sources import @toolhost/internal. */
function consumers(): string[] {
  const found: string[] = [];
  for (const folder of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(repo, folder))) {
      const dir = path.join(repo, folder, name);
      if (dir === here) continue;
      let files: string[];
      try {
        files = sourceFiles(path.join(dir, 'src'));
      } catch {
        continue;
      }
      if (files.some((file) => readFileSync(file, 'utf8').includes("from '@toolhost/internal'")))
        found.push(dir);
    }
  }
  return found;
}

describe('the private package', () => {
  it('INT-PKG-1: is private, and every consumer has it as a workspace devDependency its build bundles', () => {
    assert.equal(manifest(here).private, true);
    const users = consumers();
    assert.ok(users.length >= 6, `${users.length} consumers`);
    for (const dir of users) {
      const pkg = manifest(dir);
      assert.equal(pkg.dependencies?.['@toolhost/internal'], undefined, pkg.name);
      assert.equal(pkg.devDependencies?.['@toolhost/internal'], 'workspace:*', pkg.name);
      assert.match(readFileSync(path.join(dir, 'tsup.config.ts'), 'utf8'), /packageBuild\(/, pkg.name);
    }
    const base = readFileSync(path.join(repo, 'tsup.config.base.ts'), 'utf8');
    assert.match(base, /noExternal: \[INTERNAL\]/);
    assert.match(base, /dts: \{ resolve: \[INTERNAL\] \}/);
  });

  it('INT-PKG-2: depends on nothing but Node built-ins', () => {
    const pkg = manifest(here);
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), []);
    for (const file of sourceFiles(path.join(here, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)) {
        assert.ok(match[1]!.startsWith('node:') || match[1]!.startsWith('./'), `${file}: ${match[1]}`);
      }
    }
  });

  it('INT-KW-1: contracts and provider-dialects re-export the one keyword table instead of keeping copies', () => {
    for (const file of [
      'packages/contracts/src/schema-keywords.ts',
      'packages/provider-dialects/src/schema-common.ts',
    ]) {
      const text = readFileSync(path.join(repo, file), 'utf8');
      assert.doesNotMatch(text, /SINGLE_SCHEMA_KEYWORDS = \[/, file);
      assert.match(text, /SINGLE_SCHEMA_KEYWORDS,?\s[\s\S]*?from '@toolhost\/internal'/, file);
    }
  });
});
