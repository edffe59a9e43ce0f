import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createBytePrefilter, type GrepPrefilter, requiredLiterals } from '../../src/grep/grep-literals.js';
import { compileGrepRegex } from '../../src/grep/grep-regex.js';
import { fileBytes, grepPattern } from './grep-fixtures.js';

// The JS engine skips a file without decoding it when its bytes lack every literal the pattern
// requires. A wrong literal would silently drop matches, so besides the table below a property
// test holds the prefilter to the regex itself: whenever the regex matches a file's text, the
// prefilter must pass its bytes.

interface PatternOptions {
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
  readonly multiline?: boolean;
}

function compile(pattern: string, options: PatternOptions = {}): RegExp | undefined {
  const compiled = compileGrepRegex({
    pattern,
    literal: options.literal ?? false,
    ignoreCase: options.ignoreCase ?? false,
    multiline: options.multiline ?? false,
  });
  return compiled.ok ? compiled.regex : undefined;
}

function literalsOf(pattern: string, options: PatternOptions = {}): GrepPrefilter | undefined {
  const regex = compile(pattern, options);
  if (regex === undefined) throw new Error(`${pattern} does not compile`);
  return requiredLiterals(regex.source, regex.flags);
}

/** Whether the engine would find a match in `text` (line by line, or over the whole text with multiline). */
function regexFinds(regex: RegExp, text: string, multiline: boolean): boolean {
  const once = new RegExp(regex.source, regex.flags.replace('g', ''));
  if (multiline) return once.test(text);
  return text.split('\n').some((line) => once.test(line.endsWith('\r') ? line.slice(0, -1) : line));
}

describe('requiredLiterals', () => {
  const cases: Array<[string, PatternOptions, readonly string[] | undefined, boolean?]> = [
    ['SIGKILL', {}, ['SIGKILL']],
    ['zq_never_present_9x7', {}, ['zq_never_present_9x7']],
    ['createRequire\\(import\\.meta', {}, ['createRequire(import.meta']],
    ['foo|bar', {}, ['foo', 'bar']],
    ['(foo|bar)baz', {}, ['baz']],
    ['ne+dle', {}, ['dle']],
    ['a.*bc', {}, ['bc']],
    ['x\\x{41}?needle', {}, ['needle']],
    ['a{3}b', {}, ['aaab']],
    ['(ab){2}', {}, ['abab']],
    ['\\bneedle\\b', {}, ['needle']],
    ['^needle$', {}, ['needle']],
    ['\\p{Greek}+ needle', {}, [' needle']],
    ['[[:alpha:]]+ utf16', {}, [' utf16']],
    ['needle (?P<word>\\w+)', {}, ['needle ']],
    ['(?x) need  le  # verbose', {}, ['needle']],
    ['begin\\nneedle', { multiline: true }, ['begin\nneedle']],
    ['a.b*c(', { literal: true }, ['a.b*c(']],
    ['café', {}, ['café']],
    ['\\u{FFFD}xy', {}, ['xy']],
    // Case-insensitive: ASCII literals only (a non-ASCII character ends the run).
    ['needle', { ignoreCase: true }, ['needle'], true],
    ['(?i)NEEDLE', {}, ['NEEDLE'], true],
    ['cafébar', { ignoreCase: true }, ['caf'], true],
    ['éé', { ignoreCase: true }, undefined],
    // Nothing every match must contain.
    ['\\w+', {}, undefined],
    ['foo|\\w+', {}, undefined],
    ['foo|', {}, undefined],
    ['a*', {}, undefined],
    ['(?:)', {}, undefined],
    ['', {}, undefined],
    [Array.from({ length: 20 }, (_, index) => `w${index}`).join('|'), {}, undefined],
  ];
  for (const [pattern, options, expected, ignoreCase] of cases) {
    it(`finds ${JSON.stringify(expected)} in ${JSON.stringify(pattern)} ${JSON.stringify(options)}`, () => {
      const found = literalsOf(pattern, options);
      if (expected === undefined) {
        assert.equal(found, undefined);
        return;
      }
      assert.deepEqual(found, { literals: expected, ignoreCase: ignoreCase === true });
    });
  }

  it('gives up on regex syntax it does not know instead of guessing', () => {
    assert.equal(requiredLiterals('abc\\k<x>', 'mu'), undefined);
    assert.equal(requiredLiterals('abc(?<x>a)\\1', 'mu'), undefined);
    assert.equal(requiredLiterals('abc', 'm'), undefined, 'only u mode is read');
    assert.equal(requiredLiterals('abc)', 'mu'), undefined);
  });
});

describe('createBytePrefilter', () => {
  it('looks for any of the literals in the raw bytes', () => {
    const test = createBytePrefilter({ literals: ['foo', 'bär'], ignoreCase: false });
    assert.equal(test(Buffer.from('xx foo yy')), true);
    assert.equal(test(Buffer.from('xx bär yy')), true);
    assert.equal(test(Buffer.from('xx FOO bar yy')), false);
    assert.equal(test(Buffer.from('xx foo').subarray(0, 4)), false, 'only the bytes of the view');
  });

  it('matches ASCII letters in any case, with U+017F as s and U+212A as k', () => {
    const test = createBytePrefilter({ literals: ['sigkill'], ignoreCase: true });
    for (const text of [
      'SIGKILL',
      'SigKill',
      'x sigkill y',
      '\u017figkill',
      'sig\u212aill',
      '\u017fig\u212aILL',
    ])
      assert.equal(test(Buffer.from(text)), true, text);
    for (const text of ['sigkil', 'sig kill', 'sigk1ll', 'ßigkill'])
      assert.equal(test(Buffer.from(text)), false, text);
    assert.equal(createBytePrefilter({ literals: ['a.b'], ignoreCase: true })(Buffer.from('AxB')), false);
  });

  it('refuses a non-ASCII case-insensitive literal', () => {
    assert.throws(() => createBytePrefilter({ literals: ['é'], ignoreCase: true }), /must be ASCII/);
  });

  it('relies on no character but U+017F and U+212A matching an ASCII one case-insensitively (checked on every code point)', () => {
    const anyAscii = /^[\0-\x7f]$/iu;
    const found: number[] = [];
    for (let code = 0x80; code <= 0x10ffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (anyAscii.test(String.fromCodePoint(code))) found.push(code);
    }
    assert.deepEqual(found, [0x17f, 0x212a]);
    assert.match('\u017f', /^s$/iu);
    assert.match('\u212a', /^k$/iu);
    // Among ASCII characters, only a letter's other case matches it.
    for (let left = 0; left < 0x80; left += 1) {
      const regex = new RegExp(`^\\x${left.toString(16).padStart(2, '0')}$`, 'iu');
      for (let right = 0; right < 0x80; right += 1) {
        const same =
          left === right ||
          String.fromCharCode(left).toLowerCase() === String.fromCharCode(right).toLowerCase();
        assert.equal(regex.test(String.fromCharCode(right)), same, `${left} vs ${right}`);
      }
    }
  });

  it('never rejects the bytes of a text the regex matches (property)', { timeout: 300_000 }, () => {
    let withLiterals = 0;
    fc.assert(
      fc.property(
        grepPattern(),
        fc.record({ ignoreCase: fc.boolean(), multiline: fc.boolean(), literal: fc.boolean() }),
        fileBytes(),
        (pattern, options, bytes) => {
          const regex = compile(pattern, options);
          fc.pre(regex !== undefined);
          const prefilter = requiredLiterals(regex!.source, regex!.flags);
          if (prefilter === undefined) return;
          withLiterals += 1;
          const text = bytes.toString('utf8');
          if (regexFinds(regex!, text, options.multiline)) {
            assert.equal(createBytePrefilter(prefilter)(bytes), true, JSON.stringify({ prefilter, text }));
          }
        },
      ),
      { numRuns: 3000 },
    );
    // The property means something only if most generated patterns have literals.
    assert.ok(withLiterals > 1000, `${withLiterals} patterns with literals`);
  });
});
