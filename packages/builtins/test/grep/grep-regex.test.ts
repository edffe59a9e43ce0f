import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRipgrep } from '../../src/index.js';
import { compileGrepRegex } from '../../src/grep/grep-regex.js';

// The JS fallback takes ripgrep's (Rust) regex syntax. Each translated case is checked against
// ripgrep itself on the same lines when rg is installed, so the table cannot drift from what rg does.

const rg = findRipgrep();

function jsMatches(
  pattern: string,
  lines: readonly string[],
  options: { ignoreCase?: boolean } = {},
): number[] {
  const compiled = compileGrepRegex({
    pattern,
    literal: false,
    ignoreCase: options.ignoreCase ?? false,
    multiline: false,
  });
  if (!compiled.ok) throw new Error(`refused: ${compiled.problem}`);
  return lines.flatMap((line, index) => (compiled.regex.test(line) ? [index + 1] : []));
}

describe('compileGrepRegex', () => {
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'toolhost-regex-'));
  });
  after(() => rm(scratch, { recursive: true, force: true }));

  const translated: Array<[string, string[], number[]]> = [
    ['(?i)hello', ['Hello there', 'HELLO', 'help'], [1, 2]],
    ['(?P<word>ab)+c', ['ababc', 'abc', 'ac'], [1, 2]],
    ['\\Aab', ['ab start', 'x ab'], [1]],
    ['ab\\z', ['x ab', 'ab x'], [1]],
    ['[[:digit:]]+x', ['12x', 'ax'], [1]],
    ['[[:upper:][:digit:]]z', ['Az', '9z', 'az'], [1, 2]],
    ['[]a]b', [']b', 'ab', 'cb'], [1, 2]],
    ['[^]a]b', [']b', 'cb'], [2]],
    ['\\x41\\x{42}\\u0043\\U00000044', ['ABCD', 'abcd'], [1]],
    ['\\pL\\d', ['a1', '11'], [1]],
    ['\\p{Greek}+', ['Σίσυφος', 'plain'], [1]],
    ['\\PL\\PL', ['12', 'a1'], [1]],
    ['a.c', ['abc', 'ac', 'a\u2028c'], [1, 3]],
    ['(?x) a b  # spaces and comments are ignored', ['ab', 'a b'], [1]],
    ['\\#\\-\\&\\~', ['#-&~', '#-&'], [1]],
    ['a{2,3}$', ['aa', 'aaaa', 'a'], [1, 2]],
    ['\\bword\\b', ['a word here', 'swordfish'], [1]],
    ['(?s)a.b', ['axb'], [1]],
    ['^$', ['', 'x'], [1]],
    ['[\\d\\s]z', ['1z', ' z', 'az'], [1, 2]],
    ['(?i)straße', ['STRASSE', 'Straße', 'STRAẞE'], [2, 3]],
    ['colou?r|grey', ['color', 'colour', 'gray'], [1, 2]],
    ['\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\', ['.*+?()[]{}|^$\\'], [1]],
  ];

  for (const [pattern, lines, expected] of translated) {
    it(`matches ripgrep for ${JSON.stringify(pattern)}`, async (t) => {
      assert.deepEqual(jsMatches(pattern, lines), expected);
      if (rg === null) {
        // The JS half ran; the ripgrep half is reported as skipped, never passed silently.
        t.skip('rg is not on PATH: only the JS translation was checked');
        return;
      }
      const file = path.join(scratch, 'lines.txt');
      await writeFile(file, `${lines.join('\n')}\n`);
      let output = '';
      try {
        output = execFileSync(
          rg,
          ['--no-config', '--line-number', '--no-filename', '--regexp', pattern, file],
          {
            encoding: 'utf8',
          },
        );
      } catch (error) {
        if ((error as { status?: number }).status !== 1) throw error;
      }
      const ripgrepLines = output
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => Number.parseInt(line, 10));
      assert.deepEqual(ripgrepLines, expected, 'ripgrep agrees');
    });
  }

  it('treats a literal pattern as text', () => {
    const compiled = compileGrepRegex({
      pattern: 'a.b(c)[d]{e}|f\\g/',
      literal: true,
      ignoreCase: false,
      multiline: false,
    });
    assert.ok(compiled.ok);
    assert.equal(compiled.regex.test('x a.b(c)[d]{e}|f\\g/ y'), true);
    assert.equal(compiled.regex.test('axb(c)[d]{e}|f\\g/'), false);
  });

  it('lets "." match line breaks and spans lines in multiline mode', () => {
    const compiled = compileGrepRegex({ pattern: 'a.b', literal: false, ignoreCase: false, multiline: true });
    assert.ok(compiled.ok);
    assert.equal(compiled.regex.flags, 'gmu');
    assert.equal(compiled.regex.test('a\nb'), true);
    const start = compileGrepRegex({ pattern: '\\Ax', literal: false, ignoreCase: false, multiline: true });
    assert.ok(start.ok);
    assert.deepEqual(
      [...'x\nx'.matchAll(start.regex)].map((match) => match.index),
      [0],
    );
  });

  const refused: Array<[string, RegExp]> = [
    ['a(?=b)', /look-around .* is not supported \(at character 2\)/],
    ['(?<!a)b', /look-around/],
    ['(a)\\1', /backreferences are not supported/],
    ['\\k<x>', /backreferences are not supported/],
    ['a(?i)b', /inline flag group anywhere but at the very start .* not supported by the built-in search/],
    ['(?i:a)b', /inline flag group anywhere but at the very start/],
    ['(?U)a+', /swap-greed flag/],
    ['[a[bc]]', /nested character class is not supported by the built-in search/],
    ['[a-z&&[^aeiou]]', /character class operator "&&"/],
    ['[[:^alpha:]x]', /negated POSIX class inside brackets/],
    ['[[:nope:]]', /unknown POSIX class/],
    ['\\Qa', /unrecognized escape sequence "\\Q"/],
    ['a\\nb', /line break, which can only match with multiline=true/],
    ['(?P<a.b>x)', /group name must start with a letter/],
    ['\\p{NotAProperty}', /Unicode class name/],
    ['\\x{110000}', /invalid hexadecimal character code/],
    ['(x', /unterminated group/i],
    ['[x', /unclosed character class/],
    ['x{2', /incomplete quantifier|lone quantifier|unterminated/i],
  ];
  for (const [pattern, problem] of refused) {
    it(`refuses ${JSON.stringify(pattern)} naming the problem`, () => {
      const compiled = compileGrepRegex({ pattern, literal: false, ignoreCase: false, multiline: false });
      assert.equal(compiled.ok, false);
      if (!compiled.ok) assert.match(compiled.problem, problem);
    });
  }

  it('accepts a line break only in multiline mode, for literal text too', () => {
    assert.equal(
      compileGrepRegex({ pattern: 'a\nb', literal: true, ignoreCase: false, multiline: false }).ok,
      false,
    );
    assert.equal(
      compileGrepRegex({ pattern: 'a\nb', literal: true, ignoreCase: false, multiline: true }).ok,
      true,
    );
    assert.equal(
      compileGrepRegex({ pattern: 'a\\nb', literal: false, ignoreCase: false, multiline: true }).ok,
      true,
    );
  });
});
