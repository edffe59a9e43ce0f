// The public-API gate every package runs as its test/api.test.ts (issue 24: a barrel is the public
// API): `src/index.ts` holds only named re-exports, and every name it exports is documented in the
// README's "## API" section. A name that is not public API therefore cannot reach a test, or anyone,
// through the barrel: tests import internals from their own files.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/** The names `src/index.ts` of `packageDir` exports, values and types, sorted. */
export function barrelNames(packageDir: string): string[] {
  const file = path.join(packageDir, 'src/index.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    assert.ok(
      ts.isExportDeclaration(statement) &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause),
      `the barrel of ${path.basename(packageDir)} holds only named re-exports (no export *, no code)`,
    );
    for (const element of statement.exportClause.elements) names.push(element.name.text);
  }
  return [...new Set(names)].sort();
}

/**
 * Every identifier inside a code span of the README's "## API" section (up to the next `## `
 * heading): a signature such as `createHost(options: HostOptions)` names both.
 */
export function documentedNames(packageDir: string): Set<string> {
  const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const section = /^## API\n([\s\S]*?)(?=^## (?!#)|(?![\s\S]))/m.exec(readme);
  assert.ok(section, `the README of ${path.basename(packageDir)} has an "## API" section`);
  const names = new Set<string>();
  for (const [, code] of section[1]!.matchAll(/`([^`]+)`/g))
    for (const [name] of code!.matchAll(/[A-Za-z_$][A-Za-z0-9_$]*/g)) names.add(name);
  return names;
}

/** Registers the gate's test for the package at `packageDir`. */
export function describeApiGate(packageDir: string): void {
  describe(`the public API of ${path.basename(packageDir)} (issue 24: a barrel is the public API)`, () => {
    it('exports only named re-exports, each documented in the README API section', () => {
      const documented = documentedNames(packageDir);
      assert.deepEqual(
        { undocumentedExports: barrelNames(packageDir).filter((name) => !documented.has(name)) },
        { undocumentedExports: [] },
      );
    });
  });
}
