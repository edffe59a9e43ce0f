import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const packageDir = path.resolve(import.meta.dirname, '..');
const requirements = readFileSync(path.join(packageDir, 'REQUIREMENTS.md'), 'utf8');
const testFiles = readdirSync(path.join(packageDir, 'test')).filter(
  (name) => name.endsWith('.test.ts') && name !== 'requirements.test.ts',
);
const testText = testFiles
  .map((name) => readFileSync(path.join(packageDir, 'test', name), 'utf8'))
  .join('\n');

describe('REQUIREMENTS.md', () => {
  it('has every requirement id cited by at least one test', () => {
    const ids = [...requirements.matchAll(/\*\*(PP-[A-Z]+-\d+)\*\*/g)].map((match) => match[1]!);
    assert.ok(ids.length >= 40, `${ids.length} ids`);
    assert.equal(new Set(ids).size, ids.length, 'duplicate ids');
    const uncited = ids.filter((id) => !new RegExp(`${id}(?!\\d)`).test(testText));
    assert.deepEqual(uncited, []);
  });

  it('names test files that exist', () => {
    const named = [...requirements.matchAll(/`(test\/[a-z-]+\.test\.ts)`/g)].map((match) => match[1]!);
    assert.ok(named.length >= 8);
    for (const file of named) assert.ok(existsSync(path.join(packageDir, file)), file);
  });

  it('cites only ids that exist', () => {
    const known = new Set([...requirements.matchAll(/\*\*(PP-[A-Z]+-\d+)\*\*/g)].map((match) => match[1]!));
    const cited = new Set([...testText.matchAll(/PP-[A-Z]+-\d+/g)].map((match) => match[0]));
    assert.deepEqual(
      [...cited].filter((id) => !known.has(id)),
      [],
    );
  });
});
