import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const packageDir = path.resolve(import.meta.dirname, '..');

/** The names `src/index.ts` exports, values and types. */
function barrelNames(): string[] {
  const file = path.join(packageDir, 'src/index.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    assert.ok(
      ts.isExportDeclaration(statement) &&
        statement.exportClause &&
        ts.isNamedExports(statement.exportClause),
      'the barrel holds only named re-exports',
    );
    for (const element of statement.exportClause.elements) names.push(element.name.text);
  }
  return names.sort();
}

/** The identifiers the README's "## API" section names in backticks (those with a capital letter). */
function documentedNames(): string[] {
  const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
  const section = /^## API\n([\s\S]*?)^## /m.exec(readme);
  assert.ok(section, 'the README has an "## API" section');
  const names = new Set<string>();
  for (const [, code] of section[1]!.matchAll(/`([^`]+)`/g))
    for (const [name] of code!.matchAll(/\b[A-Za-z_][A-Za-z0-9_]*\b/g))
      if (/[A-Z]/.test(name)) names.add(name);
  return [...names].sort();
}

describe('the public API', () => {
  it('is exactly what the README API section lists (regression: the barrel exported 145 names, 63 of them internals no consumer used and the README did not document)', () => {
    assert.deepEqual(barrelNames(), documentedNames());
  });

  it('is not how the tests reach internals: no test imports src/index.ts', () => {
    const testDir = path.join(packageDir, 'test');
    const offenders = readdirSync(testDir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .filter((name) =>
        /from '(?:\.\.\/)+src\/index\.js'|import\('(?:\.\.\/)+src\/index\.js'\)/.test(
          readFileSync(path.join(testDir, name), 'utf8'),
        ),
      );
    assert.deepEqual(offenders, []);
  });
});
