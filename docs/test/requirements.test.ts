import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// The requirement gate (the pattern of path-policy's test/requirements.test.ts): every id of
// REQUIREMENTS.md is defined once and cited by a test, and no test cites an id that is not defined.
const packageDir = path.resolve(import.meta.dirname, '..');
const requirements = readFileSync(path.join(packageDir, 'REQUIREMENTS.md'), 'utf8');
const testFiles = readdirSync(path.join(packageDir, 'test')).filter(
  (name) => name.endsWith('.test.ts') && name !== 'requirements.test.ts',
);
const testText = testFiles
  .map((name) => readFileSync(path.join(packageDir, 'test', name), 'utf8'))
  .join('\n');
const ID = 'DOC-\\d+';
const defined = [...requirements.matchAll(new RegExp(`\\*\\*(${ID})\\*\\*|^\\| (${ID}) +\\|`, 'gm'))].map(
  (match) => (match[1] ?? match[2])!,
);

describe('REQUIREMENTS.md', () => {
  it('defines each requirement id once and has every id cited by at least one test', () => {
    assert.ok(defined.length >= 2, `${defined.length} ids`);
    assert.deepEqual(
      defined.filter((id, index) => defined.indexOf(id) !== index),
      [],
      'duplicate ids',
    );
    const uncited = defined.filter((id) => !new RegExp(`\\b${id}(?!\\d)`).test(testText));
    assert.deepEqual(uncited, []);
  });

  it('names test files that exist', () => {
    const named = [...requirements.matchAll(/`(test\/[a-z0-9-]+\.test\.ts)`/g)].map((match) => match[1]!);
    assert.ok(named.length >= 1);
    for (const file of named) assert.ok(existsSync(path.join(packageDir, file)), file);
  });

  it('cites only ids that exist', () => {
    const known = new Set(defined);
    const cited = new Set([...testText.matchAll(new RegExp(`\\b(?:${ID})`, 'g'))].map((match) => match[0]));
    assert.deepEqual(
      [...cited].filter((id) => !known.has(id)),
      [],
    );
  });
});
