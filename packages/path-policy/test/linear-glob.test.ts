import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { compileLinearGlob, type LinearGlobOptions } from '../src/linear-glob.js';

// The linear matcher replaces picomatch's backtracking regexes wherever a glob meets a path on the
// host's thread. These properties hold it to picomatch on the syntax both share.

/** The picomatch options of globset's (ripgrep's) semantics, as builtins' ignore files use them. */
const GLOBSET_LIKE = Object.freeze({
  dot: true,
  noextglob: true,
  nonegate: true,
  windows: false,
  posix: true,
  literalBrackets: false,
} as const);

// Pieces of one name (no `/` outside braces); names are joined with `/`, and `**` is only ever a
// whole name: picomatch gives `**` next to other characters of a name, and a wildcard right after an
// extglob, meanings of its own that the matcher does not copy (see linear-glob.ts).
const NAME_PIECES = [
  'a',
  'b',
  'ab',
  '.',
  '.a',
  '-',
  '*',
  '?',
  '[ab]',
  '[!a]',
  '[^b]',
  '[a-c]',
  '[.]',
  '[[:alpha:]]',
  '[]a]',
  '{a,b}',
  '{a,}',
  '{,b}',
  '{a,b/a}',
  '{a,{b,.a}}',
  '{a..c}',
  '{1..3}',
  '1',
  '\\*',
  '\\a',
];
const EXTGLOB_PIECES = ['@(a|b)', '?(a)', '*(a|b)', '+(a)', '+(a|.b)'];

function globArbitrary(extglob: boolean): fc.Arbitrary<string> {
  const pieces = extglob ? [...NAME_PIECES, ...EXTGLOB_PIECES] : NAME_PIECES;
  const name = fc.oneof(
    { weight: 1, arbitrary: fc.constant('**') },
    {
      weight: 4,
      arbitrary: fc
        .array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 })
        .map((parts) => parts.join('')),
    },
  );
  return fc
    .array(name, { minLength: 1, maxLength: 4 })
    .map((names) => names.join('/'))
    .filter(
      (glob) =>
        !/[^/]\*\*|\*\*[^/]|\)[*?]/.test(glob) &&
        !UNESCAPED_DOT.test(glob) &&
        !NAME_THAT_MAY_BE_EMPTY_AFTER_GLOBSTAR.test(glob),
    );
}

// picomatch lets `a/**/X` match `a` itself when the name X may be empty (`{,b}`, `?(a)`); the matcher
// reads `/**/` as `/`, names, `/` (a bug in picomatch's regex, not a meaning to copy); and
// picomatch compiles a glob that holds a POSIX class or a brace range along another path, which
// leaves a `.` unescaped (any character) and, without `dot`, keeps a leading `.` from any class.
const OTHER_PATH = /\[\[:|\{a\.\.c\}|\{1\.\.3\}/;
const UNESCAPED_DOT = /^(?=.*(\[\[:|\{a\.\.c\}|\{1\.\.3\}))(?=.*\.(?!\.[c3]\})(?<!\.\.))/;
const NAME_THAT_MAY_BE_EMPTY_AFTER_GLOBSTAR =
  /\*\*\/(\{a,\}|\{,b\}|\?\(a\)|\*\(a\|b\))(\{a,\}|\{,b\}|\?\(a\)|\*\(a\|b\)|\*)*(\/|$)/;

// picomatch's dot rule is syntactic (a wildcard written first in a name), the matcher's is about the
// path (a wildcard never takes a name's first character when it is a `.`): they differ only when a
// group that may match nothing comes before the wildcard, such as `{a,}*`.
const EMPTY_GROUP_THEN_WILDCARD =
  /(\{a,\}|\{,b\}|\?\(a\)|\*\(a\|b\))[*?]|(\{a,\}|\{,b\}|\?\(a\)|\*\(a\|b\))+\*\(/;

const NAMES = ['a', 'b', 'ab', 'ba', '.a', '.b', 'a.b', 'aa', 'c', '1', '2', '-', '*', 'a-b', '.ab', 'x'];
const pathArbitrary = fc
  .array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 4 })
  .map((names) => names.join('/'));

function check(
  glob: string,
  paths: readonly string[],
  options: LinearGlobOptions,
  reference: (path: string) => boolean,
): void {
  const compiled = compileLinearGlob(glob, options);
  assert.ok(compiled.ok, `${glob}: ${compiled.ok ? '' : compiled.problem}`);
  for (const path of paths) {
    assert.equal(
      compiled.value.test(path),
      reference(path),
      `${glob} on ${path} (${JSON.stringify(options)})`,
    );
    // Pruning never hides a match: if the path matches, every directory above it may hold one.
    if (compiled.value.test(path)) {
      const names = path.split('/');
      for (let depth = 1; depth < names.length; depth += 1) {
        assert.ok(
          compiled.value.couldMatchBelow(names.slice(0, depth).join('/')),
          `${glob} prunes above ${path}`,
        );
      }
    }
  }
}

describe('compileLinearGlob', () => {
  it('matches as picomatch does with globset options (ignore files, grep globs; property)', () => {
    fc.assert(
      fc.property(
        globArbitrary(false),
        fc.array(pathArbitrary, { minLength: 1, maxLength: 10 }),
        (glob, paths) => {
          const regex = picomatch.makeRe(glob, GLOBSET_LIKE);
          check(glob, paths, { dot: true, extglob: false }, (path) => regex.test(path));
        },
      ),
      { numRuns: 4000 },
    );
  });

  for (const dot of [false, true]) {
    it(`matches as picomatch does with extglobs and dot=${dot} (the glob tool; property)`, () => {
      fc.assert(
        fc.property(
          globArbitrary(true),
          fc.array(pathArbitrary, { minLength: 1, maxLength: 10 }),
          (glob, paths) => {
            if (!dot && (EMPTY_GROUP_THEN_WILDCARD.test(glob) || OTHER_PATH.test(glob))) return;
            const regex = picomatch.makeRe(glob, {
              dot,
              literalBrackets: false,
              posix: true,
              windows: false,
            });
            check(glob, paths, { dot, extglob: true }, (path) => regex.test(path));
          },
        ),
        { numRuns: 4000 },
      );
    });
  }

  it('says which directories may hold a match, so a walk can skip the others', () => {
    const compiled = compileLinearGlob('src/**/test/*.ts', { dot: false, extglob: true });
    assert.ok(compiled.ok);
    const glob = compiled.value;
    assert.equal(glob.couldMatchBelow('src'), true);
    assert.equal(glob.couldMatchBelow('src/a/b'), true);
    assert.equal(glob.couldMatchBelow('lib'), false);
    assert.equal(glob.couldMatchBelow('src/.hidden'), false, 'without dot, ** does not enter dot-names');
    assert.equal(glob.test('src/test/a.ts'), true);
    assert.equal(glob.test('src/x/y/test/a.ts'), true);
    assert.equal(glob.test('src/x/test/.a.ts'), false);
  });

  it('runs a glob of 12 wildcards against a 100-character name in linear time', () => {
    const compiled = compileLinearGlob('**/*a*a*a*a*a*a*a*a*a*a*a*b', { dot: false, extglob: true });
    assert.ok(compiled.ok);
    assert.equal(compiled.value.test('a'.repeat(100)), false);
    assert.equal(compiled.value.test(`dir/${'a'.repeat(10_000)}b`), true);
    assert.equal(compiled.value.test(`${'a/'.repeat(2000)}${'a'.repeat(4000)}`), false);
  });

  it('refuses a negated extglob, a lone trailing backslash, a huge brace range and an over-long glob', () => {
    for (const glob of ['!(a)', 'a\\', '{1..100000}', 'a'.repeat(20_000)]) {
      const compiled = compileLinearGlob(glob, { dot: false, extglob: true });
      assert.equal(compiled.ok, false, glob.slice(0, 20));
      if (!compiled.ok) assert.ok(!compiled.problem.includes(glob), compiled.problem);
    }
  });

  it('matches case-insensitively when asked, classes included', () => {
    const compiled = compileLinearGlob('*.[a-c]X', { dot: true, extglob: false, caseInsensitive: true });
    assert.ok(compiled.ok);
    assert.equal(compiled.value.test('file.Bx'), true);
    assert.equal(compiled.value.test('file.dx'), false);
  });
});
