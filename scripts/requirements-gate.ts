// The requirement gate every package with a REQUIREMENTS.md runs as its test/requirements.test.ts (the
// checks of path-policy's gate, written once): every id is defined once and cited by at least one
// test, the test files the document names exist, and no test cites an id the document does not define.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/** What a package's gate checks. */
export interface RequirementGateOptions {
  /** The package directory (holds REQUIREMENTS.md and test/). */
  readonly packageDir: string;
  /** A regular-expression source matching the package's ids, e.g. `CT-[A-Z]+-\\d+`. */
  readonly id: string;
  /** At least this many ids are defined. */
  readonly minIds: number;
  /** At least this many `test/<name>.test.ts` (or `test/<folder>/<name>.test.ts`) files are named by the document. */
  readonly minNamedFiles: number;
}

/**
 * Registers the gate's tests. Ids are defined as `**ID**` (a list item) or in the first cell of a
 * table row (`| ID |`); a test cites an id anywhere in its text (title or comment). Citing `X-1` does
 * not count as citing `X-12`.
 */
export function describeRequirementGate(options: RequirementGateOptions): void {
  const { packageDir, id } = options;
  const requirements = readFileSync(path.join(packageDir, 'REQUIREMENTS.md'), 'utf8');
  // Test files may sit in folders beneath test/ (builtins mirrors its src/ folders).
  const testText = readdirSync(path.join(packageDir, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts') && name !== 'requirements.test.ts')
    .sort()
    .map((name) => readFileSync(path.join(packageDir, 'test', name), 'utf8'))
    .join('\n');
  const defined = [...requirements.matchAll(new RegExp(`\\*\\*(${id})\\*\\*|^\\| (${id}) +\\|`, 'gm'))].map(
    (match) => (match[1] ?? match[2])!,
  );

  describe('REQUIREMENTS.md', () => {
    it('defines each requirement id once and has every id cited by at least one test', () => {
      assert.ok(defined.length >= options.minIds, `${defined.length} ids`);
      assert.deepEqual(
        defined.filter((name, index) => defined.indexOf(name) !== index),
        [],
        'duplicate ids',
      );
      const uncited = defined.filter((name) => !new RegExp(`\\b${name}(?!\\d)`).test(testText));
      assert.deepEqual(uncited, []);
    });

    it('names test files that exist', () => {
      const named = [...requirements.matchAll(/`(test\/[a-z0-9/-]+\.test\.ts)`/g)].map((match) => match[1]!);
      assert.ok(named.length >= options.minNamedFiles, `${named.length} test files named`);
      for (const file of named) assert.ok(existsSync(path.join(packageDir, file)), file);
    });

    it('cites only ids that exist', () => {
      const known = new Set(defined);
      const cited = new Set([...testText.matchAll(new RegExp(`\\b(?:${id})`, 'g'))].map((match) => match[0]));
      assert.deepEqual(
        [...cited].filter((name) => !known.has(name)),
        [],
      );
    });
  });
}
