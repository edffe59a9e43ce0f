import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compileLinearRegExp } from '../src/linear-regexp.js';

/** Random patterns in JavaScript syntax built from the constructs the translator rewrites. */
function patternArbitrary(unicode: boolean): fc.Arbitrary<string> {
  const literal = fc.constantFrom(
    'a',
    'b',
    'A',
    '1',
    '_',
    ' ',
    '-',
    'é',
    ',',
    '\\.',
    '\\-',
    '\\/',
    '\\{',
    '\\*',
  );
  const legacy = unicode
    ? fc.constant('a')
    : fc.constantFrom('{', '}', ']', '\\a', '\\q', 'x{', 'a{1,', '\\c', '\\x4', '\\u00');
  const escaped = fc.constantFrom(
    '\\d',
    '\\D',
    '\\w',
    '\\W',
    '\\s',
    '\\S',
    '\\n',
    '\\r',
    '\\t',
    '\\v',
    '\\f',
    '\\0',
    '\\x41',
    '\\u0061',
    '\\u00e9',
    '\\cJ',
    '\\ca',
    ...(unicode ? ['\\u{61}', '\\p{L}', '\\P{L}', '\\p{Lu}', '\\p{Script=Latin}', '\\u{1F600}'] : []),
  );
  const classMember = fc.constantFrom(
    'a',
    'b',
    'a-c',
    'A-Z',
    '0-9',
    ' ',
    '.',
    '\\d',
    '\\s',
    '\\S',
    '\\w',
    '\\W',
    '\\n',
    '\\-',
    '\\]',
    '\\b',
    '^',
    'é',
    ...(unicode ? ['\\p{L}', '\\u{1F600}'] : ['\\d-z', '[']),
  );
  const characterClass = fc
    .tuple(fc.boolean(), fc.array(classMember, { maxLength: 4 }))
    .map(([negated, members]) => `[${negated ? '^' : ''}${members.join('')}]`);
  const assertion = fc.constantFrom('^', '$', '\\b', '\\B');
  const quantifier = fc.constantFrom(
    '',
    '',
    '',
    '*',
    '+',
    '?',
    '{2}',
    '{1,3}',
    '{0,}',
    '{02}',
    '*?',
    '+?',
    '??',
    '{1,2}?',
  );
  const { pattern } = fc.letrec<{ pattern: string; atom: string; sequence: string }>((tie) => ({
    atom: fc.oneof(
      { weight: 6, arbitrary: literal },
      { weight: 3, arbitrary: escaped },
      { weight: 2, arbitrary: legacy },
      { weight: 3, arbitrary: characterClass },
      { weight: 2, arbitrary: fc.constant('.') },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom('(', '(?:', '(?<g>'), tie('pattern'))
          .map(([open, inner]) => `${open}${inner})`),
      },
    ),
    sequence: fc
      .array(
        fc.oneof(
          { weight: 5, arbitrary: fc.tuple(tie('atom'), quantifier).map(([atom, q]) => atom + q) },
          { weight: 1, arbitrary: assertion },
        ),
        { minLength: 0, maxLength: 4 },
      )
      .map((parts) => parts.join('')),
    pattern: fc.array(tie('sequence'), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('|')),
  }));
  return pattern.filter((source) => {
    // Only patterns V8 accepts (a named group may appear once).
    if ((source.match(/\(\?<g>/g) ?? []).length > 1) return false;
    try {
      new RegExp(source, unicode ? 'u' : '');
      return true;
    } catch {
      return false;
    }
  });
}

function subjectArbitrary(unicode: boolean): fc.Arbitrary<string> {
  const characters = [
    'a',
    'b',
    'A',
    'c',
    '1',
    '9',
    '_',
    ' ',
    '-',
    '.',
    ',',
    '{',
    '}',
    ']',
    '[',
    '\\',
    '/',
    '*',
    '\n',
    '\r',
    '\t',
    '\v',
    '\f',
    '\0',
    '\u2028',
    '\u00a0',
    '\u3000',
    '\ufeff',
    'é',
    'z',
    'q',
    '\u0001',
    '\n',
    ...(unicode ? ['😀', 'Ω'] : ['Ω']),
  ];
  return fc.array(fc.constantFrom(...characters), { maxLength: 12 }).map((parts) => parts.join(''));
}

describe('compileLinearRegExp', () => {
  for (const unicode of [false, true]) {
    it(`answers test() exactly as V8's RegExp does for JavaScript syntax (${unicode ? 'u flag' : 'no flag'}, property)`, () => {
      fc.assert(
        fc.property(
          patternArbitrary(unicode),
          fc.array(subjectArbitrary(unicode), { minLength: 1, maxLength: 8 }),
          (source, subjects) => {
            const flags = unicode ? 'u' : '';
            const compiled = compileLinearRegExp(source, flags);
            if (!compiled.ok) {
              // Only these are refused: nothing the generator builds needs backtracking.
              assert.equal(compiled.error.reason, 'unsupported', `${source}: ${compiled.error.problem}`);
              return;
            }
            const reference = new RegExp(source, flags);
            for (const subject of subjects) {
              // V8 finds an empty `\B` match between the two halves of an astral character even with
              // `u` (a code-point regex has no such position); RE2 does not. Not a meaning to keep.
              if (source.includes('\\B') && /[\u{10000}-\u{10FFFF}]/u.test(subject)) continue;
              assert.equal(
                compiled.value.test(subject),
                reference.test(subject),
                `/${source}/${flags} on ${JSON.stringify(subject)}`,
              );
            }
          },
        ),
        { numRuns: 3000 },
      );
    });
  }

  it('runs ^(a+)+$ over 46 a and a b, and over a million, without backtracking', () => {
    const compiled = compileLinearRegExp('^(a+)+$');
    assert.ok(compiled.ok);
    assert.equal(compiled.value.test(`${'a'.repeat(46)}b`), false);
    assert.equal(compiled.value.test('a'.repeat(1_000_000)), true);
    assert.equal(compiled.value.test(`${'a'.repeat(1_000_000)}b`), false);
  });

  const refusals: Array<[string, string, string, RegExp]> = [
    ['a look-ahead', '(?=a)b', 'backtracking', /look-ahead .*needs a backtracking engine/],
    ['a negative look-ahead', 'a(?!b)', 'backtracking', /look-ahead/],
    ['a look-behind', '(?<=a)b', 'backtracking', /look-behind/],
    ['a numbered backreference', '(a)\\1', 'backtracking', /backreference/],
    ['a named backreference', '(?<x>a)\\k<x>', 'backtracking', /backreference/],
    ['a repetition above 1000', 'a{1001}', 'unsupported', /above 1000/],
    ['nested repetitions multiplying past 1000', '(a{100}){100}', 'unsupported', /above 1000/],
    ['invalid syntax', '(a', 'syntax', /unterminated group/],
  ];
  for (const [label, source, reason, problem] of refusals) {
    it(`refuses ${label} with a reason that does not quote the pattern`, () => {
      const compiled = compileLinearRegExp(source);
      assert.equal(compiled.ok, false);
      if (compiled.ok) return;
      assert.equal(compiled.error.reason, reason);
      assert.match(compiled.error.problem, problem);
      assert.ok(!compiled.error.problem.includes(source), compiled.error.problem);
    });
  }

  it('refuses flags other than u, and over-long patterns', () => {
    for (const flags of ['i', 'g', 'm', 'ui']) {
      const compiled = compileLinearRegExp('a', flags);
      assert.ok(!compiled.ok && compiled.error.reason === 'unsupported', flags);
    }
    const long = compileLinearRegExp('a'.repeat(40_000));
    assert.ok(!long.ok && long.error.reason === 'unsupported');
  });

  it('keeps JavaScript meanings where RE2 differs: dot, \\s, $, legacy escapes and braces', () => {
    const cases: Array<[string, string, string, boolean]> = [
      ['^.$', '', '\r', false],
      ['^.$', '', '\u2028', false],
      ['^\\s$', '', '\u00a0', true],
      ['^\\s$', '', '\ufeff', true],
      ['a$', '', 'a\n', false],
      ['^\\a$', '', 'a', true],
      ['^a{$', '', 'a{', true],
      ['^x{,5}$', '', 'x{,5}', true],
      ['^[[:a]]$', '', ':]', true],
      ['^\\cJ$', '', '\n', true],
      ['^[]$', '', '', false],
      ['^[^]$', '', '\n', true],
      ['^\\u{1F600}$', 'u', '😀', true],
      ['^\\uD83D\\uDE00$', '', '😀', true],
      ['^\\p{Lu}$', 'u', 'Ω', true],
    ];
    for (const [source, flags, subject, expected] of cases) {
      const compiled = compileLinearRegExp(source, flags);
      assert.ok(compiled.ok, source);
      assert.equal(new RegExp(source, flags).test(subject), expected, `V8 ${source}`);
      assert.equal(compiled.value.test(subject), expected, source);
    }
  });
});
