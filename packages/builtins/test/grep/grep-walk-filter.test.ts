import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import picomatch from 'picomatch';
import {
  compileGlobLines,
  GLOBSET_LIKE,
  type IgnoreLevel,
  ignoreLevelFromTexts,
  matchIgnoreLevels,
} from '../../src/discovery/discovery-ignore.js';
import { GREP_FILE_TYPES } from '../../src/grep/grep-file-types.js';
import { createWalkFilter, type WireLevel, wireLevel, wireMatcher } from '../../src/grep/grep-walk-filter.js';
import { compileLinearGlob, createProgramMatcher } from '@toolhost/path-policy';

/** A type glob as the JS engine sends it to its workers. */
function typeGlob(glob: string) {
  const compiled = compileLinearGlob(glob, { dot: true, extglob: false });
  assert.ok(compiled.ok, glob);
  return { glob, program: compiled.value.program };
}

// The grep workers decide what to walk and search from rules sent as data (createWalkFilter); the
// rest of the package decides with the compiled matchers of discovery-ignore.ts (the reference for
// type globs is picomatch itself).
// Both must agree on every path: this holds the workers' copy to the reference decision (ripgrep's
// order: overrides, ignore files, type, hidden), which the parity tests hold to ripgrep itself.

const LINES = [
  '*.log',
  '!keep.log',
  'b/',
  '/x',
  'a/**',
  '**/c',
  '[ab]*',
  '[!k]eep.log',
  '# comment',
  '\\!x',
  'sub/*.txt',
  '*',
  '!*.txt',
  '.h*',
  'deep/er',
  '{x,y}.md',
  '',
];
const NAMES = [
  'a',
  'b',
  'c',
  'x',
  'y.md',
  'keep.log',
  'z.log',
  'sub',
  'f.txt',
  '.hidden',
  '.h.txt',
  'deep',
  'er',
];

const ignoreText = fc.option(
  fc.array(fc.constantFrom(...LINES), { maxLength: 5 }).map((lines) => lines.join('\n')),
  {
    nil: undefined,
  },
);

interface Reference {
  readonly overrides: ReturnType<typeof compileGlobLines>;
  readonly typeMatcher: ((name: string) => boolean) | undefined;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
}

/** The JS engine's decision as it stood on the main thread before the walk moved to the workers. */
function referenceIncludes(
  filter: Reference,
  level: IgnoreLevel | undefined,
  absolute: string,
  relative: string,
  name: string,
  isDirectory: boolean,
): boolean {
  const override = filter.overrides.match(relative, isDirectory);
  if (override === 'ignore') return true;
  if (override === 'whitelist') return false;
  if (filter.overrides.ignoreRuleCount > 0 && !isDirectory) return false;
  let whitelisted = false;
  if (!filter.noIgnore) {
    const ignored = matchIgnoreLevels(level, absolute, isDirectory);
    if (ignored === 'ignore') return false;
    if (ignored === 'whitelist') whitelisted = true;
  }
  if (filter.typeMatcher !== undefined && !isDirectory) {
    if (!filter.typeMatcher(name)) return false;
    whitelisted = true;
  }
  if (!whitelisted && !filter.includeHidden && name.startsWith('.')) return false;
  return true;
}

describe('createWalkFilter', () => {
  it('decides every entry as the main-thread matchers do (property)', () => {
    const levelTexts = fc.record({
      rgignore: ignoreText,
      ignore: ignoreText,
      gitignore: ignoreText,
      exclude: ignoreText,
      hasGit: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(levelTexts, { minLength: 1, maxLength: 3 }),
        fc.option(fc.constantFrom('*.log', '!*.txt', 'sub/**', '!.h*', '{a,b}', '*'), { nil: undefined }),
        fc.option(fc.constantFrom('txt', 'md', 'make', 'c', 'ts'), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        fc.array(
          fc.tuple(fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 }), fc.boolean()),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        (texts, glob, type, includeHidden, noIgnore, entries) => {
          // Levels at /r (the search root's parent: an ancestor level), /r/p and /r/p/q.
          const directories = ['/r', '/r/p', '/r/p/q'];
          let level: IgnoreLevel | undefined;
          const wire: WireLevel[] = [];
          const ids = new Map<IgnoreLevel, number>();
          texts.forEach((levelText, index) => {
            const parent = level;
            level = ignoreLevelFromTexts(directories[index]!, parent, levelText);
            if (level !== undefined && level !== parent) {
              ids.set(level, wire.length);
              wire.push(wireLevel(level, wire.length, parent === undefined ? -1 : ids.get(parent)!));
            }
          });
          const overrides = compileGlobLines([...(glob === undefined ? [] : [glob]), '!.git']);
          const globs = type === undefined ? undefined : GREP_FILE_TYPES[type]!;
          const reference: Reference = {
            overrides,
            typeMatcher: globs === undefined ? undefined : picomatch([...globs], GLOBSET_LIKE),
            includeHidden,
            noIgnore,
          };
          const root = '/r/p';
          const filter = createWalkFilter(
            {
              root,
              overrides: wireMatcher(overrides) ?? [],
              typeGlobs: globs === undefined ? null : globs.map(typeGlob),
              includeHidden,
              noIgnore,
            },
            createProgramMatcher,
          );
          filter.addLevels(wire);
          const levelId = level === undefined ? -1 : ids.get(level)!;
          for (const [names, isDirectory] of entries) {
            const relative = names.join('/');
            const absolute = `${root}/${relative}`;
            const name = names[names.length - 1]!;
            assert.equal(
              filter.includes(levelId, absolute, relative, name, isDirectory),
              referenceIncludes(reference, level, absolute, relative, name, isDirectory),
              JSON.stringify({ texts, glob, type, includeHidden, noIgnore, relative, isDirectory }),
            );
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('matches type globs as picomatch does, a name equal to the glob included', () => {
    const filter = createWalkFilter(
      { root: '/r', overrides: [], typeGlobs: [typeGlob('[abc].c')], includeHidden: false, noIgnore: true },
      createProgramMatcher,
    );
    assert.equal(picomatch('[abc].c', GLOBSET_LIKE)('[abc].c'), true);
    assert.equal(filter.includes(-1, '/r/[abc].c', '[abc].c', '[abc].c', false), true);
    assert.equal(filter.includes(-1, '/r/a.c', 'a.c', 'a.c', false), true);
    assert.equal(filter.includes(-1, '/r/d.c', 'd.c', 'd.c', false), false);
  });
});
