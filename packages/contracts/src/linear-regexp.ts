import type { RE2JS } from 're2js';
import { errorMessage } from './error-message.js';
import { lazyRequire } from '@toolhost/internal';

/**
 * Loads RE2JS on the first pattern compiled. It is 260 KB of JavaScript, which every process that
 * compiles no pattern (`toolhost tools`, most `serve` sessions) would otherwise parse at start-up
 * (issue 25: cold start); it ships a CommonJS build, so a synchronous require keeps compiling
 * synchronous.
 */
const re2jsModule = lazyRequire<{ RE2JS: typeof RE2JS }>(import.meta.url, 're2js');
function loadRe2js(): typeof RE2JS {
  return re2jsModule().RE2JS;
}

// Model-supplied regular expressions (job_output filters, `pattern` keywords of third-party schemas
// checked against model-supplied values) must never run on V8's backtracking engine on the main
// thread: `^(a+)+$` over 46 `a`s takes longer than the age of the host. This module reads a pattern
// in JavaScript syntax and runs it with RE2JS, a pure-JavaScript port of RE2 whose matching time is
// linear in the input (a lazily built DFA, an NFA when the DFA would grow too large).
//
// Why RE2JS, measured on Node 20 (see the package README for the figures): V8's own linear engine
// (`--enable-experimental-regexp-engine` and the `l` flag) can only be switched on for the whole
// process, refuses the `i` and `u` flags and any counted repetition above 16, and ran a 200,000-line
// log 15 to 30 times slower than the backtracking engine; re2-wasm copies every subject into WASM
// memory and ran 20 to 40 times slower. RE2JS ran the same log at 0.5 to 7 times the backtracking
// engine's time, holds no global state, and works in any thread.
//
// RE2's syntax is close to JavaScript's but not equal, so the pattern is first checked by V8 (it must
// be a valid JavaScript regex) and then translated, node by node, into RE2 syntax with JavaScript's
// meaning (`.` excludes \r and U+2028/2029, `\s` is JavaScript's Unicode space set, `\uXXXX`, `\cX`,
// legacy identity escapes, ...). What needs backtracking is refused with a reason: look-ahead,
// look-behind and backreferences. The one known difference: without the `u` flag JavaScript matches
// UTF-16 code units, RE2 whole code points, so `.` (or a negated class) matches an astral character
// (an emoji) as one character, as it does with `u`.

/** A compiled linear-time pattern: `test` answers whether it matches anywhere in `text`. */
export interface LinearRegExp {
  /** The pattern as given (JavaScript syntax). */
  readonly source: string;
  /** The flags as given (`''` or `'u'`). */
  readonly flags: string;
  /** Whether the pattern matches anywhere in `text`; time linear in `text.length`. */
  test(text: string): boolean;
  /** `/source/flags`, marked as linear (ajv keys its pattern cache by it). */
  toString(): string;
}

/**
 * Why a pattern cannot run on the linear engine. `syntax`: it is not a valid JavaScript regex;
 * `backtracking`: it uses look-around or backreferences, which only a backtracking engine runs;
 * `unsupported`: a flag other than `u`, or a repetition count above 1000 or a program too large.
 * `problem` never quotes the pattern.
 */
export interface LinearRegExpRefusal {
  readonly reason: 'syntax' | 'backtracking' | 'unsupported';
  readonly problem: string;
}

/** What {@link compileLinearRegExp} returns. */
export type CompileLinearRegExpResult =
  | { readonly ok: true; readonly value: LinearRegExp }
  | { readonly ok: false; readonly error: LinearRegExpRefusal };

/** The longest pattern accepted, in UTF-16 code units (a filter or schema pattern, not a program). */
export const LINEAR_REGEXP_MAX_SOURCE_LENGTH = 32 * 1024;

/**
 * Compiles a JavaScript-syntax pattern (flags `''` or `'u'`) to a linear-time matcher.
 * Refusals (values, never thrown): `syntax` when V8 rejects the pattern (its message, without the
 * pattern), `backtracking` for look-ahead, look-behind and backreferences, `unsupported` for any
 * other flag, a repetition count above 1000 (RE2's limit) or a pattern longer than
 * {@link LINEAR_REGEXP_MAX_SOURCE_LENGTH}.
 */
export function compileLinearRegExp(source: string, flags = ''): CompileLinearRegExpResult {
  if (flags !== '' && flags !== 'u') {
    return refusal('unsupported', 'only the u flag is supported by the linear-time engine');
  }
  if (source.length > LINEAR_REGEXP_MAX_SOURCE_LENGTH) {
    return refusal('unsupported', `the pattern is longer than ${LINEAR_REGEXP_MAX_SOURCE_LENGTH} characters`);
  }
  try {
    // Syntax check only: V8 parses here and compiles on first use, which never happens.
    new RegExp(source, flags);
  } catch (error) {
    return refusal('syntax', syntaxProblem(error, source, flags));
  }
  let translated: string;
  try {
    translated = new Translator(source, flags === 'u').run();
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, error: error.refusal };
    throw error;
  }
  let compiled: RE2JS;
  try {
    compiled = loadRe2js().compile(translated);
  } catch (error) {
    const detail =
      error instanceof Error && 'error' in error ? String(error.error) : 'the pattern is too large';
    return refusal(
      'unsupported',
      detail === 'invalid repeat count'
        ? 'a repetition count is above 1000 (nested counts multiply), the linear-time engine limit'
        : `the linear-time engine cannot compile it (${detail})`,
    );
  }
  const shown = `/${source}/${flags} (linear)`;
  return {
    ok: true,
    value: Object.freeze({
      source,
      flags,
      test: (text: string) => compiled.test(text),
      toString: () => shown,
    }),
  };
}

function refusal(reason: LinearRegExpRefusal['reason'], problem: string): CompileLinearRegExpResult {
  return { ok: false, error: { reason, problem } };
}

/** V8 says "Invalid regular expression: /<source>/<flags>: <problem>"; keep only the problem. */
function syntaxProblem(error: unknown, source: string, flags: string): string {
  const message = errorMessage(error);
  const prefix = `/${source}/${flags}: `;
  const at = message.lastIndexOf(prefix);
  const problem = at >= 0 ? message.slice(at + prefix.length) : (message.split(': ').at(-1) ?? message);
  return problem.charAt(0).toLowerCase() + problem.slice(1);
}

class Refusal extends Error {
  constructor(readonly refusal: LinearRegExpRefusal) {
    super(refusal.problem);
  }
}

function backtracking(feature: string, index: number): never {
  throw new Refusal({
    reason: 'backtracking',
    problem: `${feature} (at character ${index + 1}) needs a backtracking engine, which can take exponential time; only linear-time patterns are run here`,
  });
}

function unsupported(feature: string, index: number): never {
  throw new Refusal({
    reason: 'unsupported',
    problem: `${feature} (at character ${index + 1}) is not supported by the linear-time engine`,
  });
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator code points, as ranges. */
const SPACE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const DIGIT_RANGES: ReadonlyArray<readonly [number, number]> = [[0x30, 0x39]];
const WORD_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
/** What `.` matches without the `s` flag: everything but the line terminators. */
const DOT_EXCLUDED: ReadonlyArray<readonly [number, number]> = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const MAX_CODE_POINT = 0x10ffff;

function complement(ranges: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  const result: Array<readonly [number, number]> = [];
  let next = 0;
  for (const [low, high] of ranges) {
    if (low > next) result.push([next, low - 1]);
    next = high + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

const hex = (codePoint: number) => `\\x{${codePoint.toString(16)}}`;

function rangesText(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('');
}

/** A literal code point in RE2 syntax: letters, digits and `_` as they are, anything else escaped. */
function literalText(codePoint: number): string {
  if (
    (codePoint >= 0x30 && codePoint <= 0x39) ||
    (codePoint >= 0x41 && codePoint <= 0x5a) ||
    (codePoint >= 0x61 && codePoint <= 0x7a) ||
    codePoint === 0x5f
  ) {
    return String.fromCharCode(codePoint);
  }
  return hex(codePoint);
}

/** `\p{...}` names of General_Category and Script that RE2 knows under the same value name. */
const PROPERTY = /^(?:(?:General_Category|gc|Script|sc)=)?([A-Za-z_]+)$/;

/** A class member: a set of code point ranges (already JavaScript's meaning) or an RE2 `\p{..}` item. */
type ClassItem =
  | { readonly kind: 'ranges'; readonly ranges: ReadonlyArray<readonly [number, number]> }
  | { readonly kind: 'text'; readonly text: string };

/**
 * Translates a pattern V8 accepted (so its structure is valid) into RE2 syntax. Groups become
 * non-capturing (only `test` is ever asked); every literal and class member is written as a code
 * point, so nothing of JavaScript's syntax is left for RE2 to read differently.
 */
class Translator {
  private index = 0;
  private readonly named: boolean;

  constructor(
    private readonly pattern: string,
    private readonly unicode: boolean,
  ) {
    // Without `u`, `\k` is a backreference only when the pattern has a named group.
    this.named = /\(\?<[^=!]/.test(pattern);
  }

  run(): string {
    const out = this.alternation();
    if (this.index !== this.pattern.length) unsupported('this construct', this.index);
    return out;
  }

  private peek(offset = 0): string | undefined {
    return this.pattern[this.index + offset];
  }

  private alternation(): string {
    let out = this.sequence();
    while (this.peek() === '|') {
      this.index += 1;
      out += `|${this.sequence()}`;
    }
    return out;
  }

  private sequence(): string {
    let out = '';
    for (;;) {
      const char = this.peek();
      if (char === undefined || char === '|' || char === ')') return out;
      const start = this.index;
      const atom = this.atom();
      const quantifier = this.quantifier();
      if (quantifier !== '') {
        if (atom.assertion) unsupported('a quantified assertion', start);
        out += `(?:${atom.text})${quantifier}`;
      } else {
        out += atom.text;
      }
    }
  }

  /** A quantifier after an atom (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy), or ''. */
  private quantifier(): string {
    const char = this.peek();
    let out: string;
    if (char === '*' || char === '+' || char === '?') {
      this.index += 1;
      out = char;
    } else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.pattern.slice(this.index, this.index + 24));
      if (match === null) return '';
      this.index += match[0].length;
      // Leading zeros mean nothing to either engine; RE2 wants plain numbers.
      const min = Number(match[1]);
      out =
        match[2] === undefined ? `{${min}}` : match[3] === '' ? `{${min},}` : `{${min},${Number(match[3])}}`;
    } else {
      return '';
    }
    if (this.peek() === '?') {
      this.index += 1;
      out += '?';
    }
    return out;
  }

  private atom(): { text: string; assertion: boolean } {
    const start = this.index;
    const char = this.pattern[this.index]!;
    switch (char) {
      case '(':
        return { text: this.group(), assertion: false };
      case '[':
        return { text: this.characterClass(), assertion: false };
      case '.':
        this.index += 1;
        return { text: `[^${rangesText(DOT_EXCLUDED)}]`, assertion: false };
      case '^':
      case '$':
        this.index += 1;
        return { text: char, assertion: true };
      case '\\':
        return this.escape();
      default: {
        // `{`, `}` and `]` reach here only as literals (V8 accepted the pattern without `u`).
        const codePoint = this.codePointAt(start);
        return { text: literalText(codePoint), assertion: false };
      }
    }
  }

  /**
   * Reads one literal character, a surrogate pair as one code point (RE2 reads the subject by code
   * points, so a pair written in the pattern must become one); a lone surrogate is refused.
   */
  private codePointAt(at: number): number {
    const codePoint = this.pattern.codePointAt(at)!;
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) unsupported('a lone surrogate', at);
    this.index = at + (codePoint > 0xffff ? 2 : 1);
    return codePoint;
  }

  private group(): string {
    const start = this.index;
    const rest = this.pattern.slice(start + 1, start + 4);
    if (rest.startsWith('?=') || rest.startsWith('?!')) backtracking('a look-ahead', start);
    if (rest.startsWith('?<=') || rest.startsWith('?<!')) backtracking('a look-behind', start);
    if (rest.startsWith('?:')) {
      this.index += 3;
    } else if (rest.startsWith('?<')) {
      const end = this.pattern.indexOf('>', start);
      this.index = end + 1;
    } else if (rest.startsWith('?')) {
      unsupported('this group syntax', start);
    } else {
      this.index += 1;
    }
    const inner = this.alternation();
    if (this.peek() !== ')') unsupported('an unclosed group', start);
    this.index += 1;
    return `(?:${inner})`;
  }

  private escape(): { text: string; assertion: boolean } {
    const start = this.index;
    const char = this.peek(1);
    if (char === 'b' || char === 'B') {
      // ASCII word boundaries in both engines.
      this.index += 2;
      return { text: `\\${char}`, assertion: true };
    }
    if (char !== undefined && /[1-9]/.test(char)) backtracking('a backreference', start);
    if (char === 'k' && (this.unicode || this.named)) backtracking('a backreference', start);
    const item = this.classEscape(false);
    return { text: item.kind === 'text' ? item.text : classText([item], false), assertion: false };
  }

  /**
   * Reads an escape (at `\`) as a class item: a character, a character class escape or a property.
   * `inClass`: inside `[...]`, where `\b` is a backspace and `\B` or `\k` are not allowed.
   */
  private classEscape(inClass: boolean): ClassItem {
    const start = this.index;
    const char = this.peek(1);
    if (char === undefined) unsupported('a trailing backslash', start);
    this.index += 2;
    const single = (codePoint: number): ClassItem => ({ kind: 'ranges', ranges: [[codePoint, codePoint]] });
    switch (char) {
      case 'd':
        return { kind: 'ranges', ranges: DIGIT_RANGES };
      case 'D':
        return { kind: 'ranges', ranges: complement(DIGIT_RANGES) };
      case 'w':
        return { kind: 'ranges', ranges: WORD_RANGES };
      case 'W':
        return { kind: 'ranges', ranges: complement(WORD_RANGES) };
      case 's':
        return { kind: 'ranges', ranges: SPACE_RANGES };
      case 'S':
        return { kind: 'ranges', ranges: complement(SPACE_RANGES) };
      case 't':
        return single(0x09);
      case 'n':
        return single(0x0a);
      case 'v':
        return single(0x0b);
      case 'f':
        return single(0x0c);
      case 'r':
        return single(0x0d);
      case 'b':
        return single(0x08);
      case '0':
        if (/[0-9]/.test(this.peek() ?? '')) unsupported('an octal escape', start);
        return single(0);
      case 'c': {
        const letter = this.peek();
        if (letter !== undefined && /[A-Za-z]/.test(letter)) {
          this.index += 1;
          return single(letter.charCodeAt(0) % 32);
        }
        // Legacy: `\c` not followed by a letter is a backslash and a `c`.
        if (inClass && letter !== undefined && /[0-9_]/.test(letter)) unsupported('this \\c escape', start);
        this.index -= 1;
        return single(0x5c);
      }
      case 'x': {
        const digits = this.pattern.slice(this.index, this.index + 2);
        if (/^[0-9A-Fa-f]{2}$/.test(digits)) {
          this.index += 2;
          return single(Number.parseInt(digits, 16));
        }
        return single(0x78);
      }
      case 'u':
        return single(this.unicodeEscape(start));
      case 'p':
      case 'P': {
        if (!this.unicode) return single(char.charCodeAt(0));
        const end = this.pattern.indexOf('}', this.index);
        const name = this.pattern.slice(this.index + 1, end);
        this.index = end + 1;
        const property = PROPERTY.exec(name);
        if (property === null || property[1] === 'Any' || property[1] === 'ASCII') {
          unsupported('this Unicode property', start);
        }
        return { kind: 'text', text: `\\${char}{${property[1]}}` };
      }
      default: {
        if (char >= '1' && char <= '9') backtracking('a backreference', start);
        // An identity escape: the character itself (legacy mode allows any non-letter-escape).
        this.index -= 1;
        return single(this.codePointAt(this.index));
      }
    }
  }

  /** `\uXXXX` (a surrogate pair of them joins), `\u{...}` with `u`, or a legacy `u`. */
  private unicodeEscape(start: number): number {
    const braced = this.unicode
      ? /^\{([0-9A-Fa-f]+)\}/.exec(this.pattern.slice(this.index, this.index + 10))
      : null;
    if (braced !== null) {
      this.index += braced[0].length;
      return Number.parseInt(braced[1]!, 16);
    }
    const digits = this.pattern.slice(this.index, this.index + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(digits)) {
      if (this.unicode) unsupported('this \\u escape', start);
      return 0x75;
    }
    this.index += 4;
    const code = Number.parseInt(digits, 16);
    if (code >= 0xd800 && code <= 0xdbff) {
      const low = /^\\u([dD][c-fC-F][0-9A-Fa-f]{2})/.exec(this.pattern.slice(this.index, this.index + 6));
      if (low !== null) {
        this.index += 6;
        return 0x10000 + ((code - 0xd800) << 10) + (Number.parseInt(low[1]!, 16) - 0xdc00);
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) unsupported('a lone surrogate', start);
    return code;
  }

  private characterClass(): string {
    const start = this.index;
    this.index += 1;
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.index += 1;
    }
    const items: ClassItem[] = [];
    for (;;) {
      const char = this.peek();
      if (char === undefined) unsupported('an unclosed class', start);
      if (char === ']') {
        this.index += 1;
        break;
      }
      const low = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        const dash = this.index;
        this.index += 1;
        const high = this.classAtom();
        const lowPoint = singlePoint(low);
        const highPoint = singlePoint(high);
        if (lowPoint !== undefined && highPoint !== undefined) {
          if (lowPoint > highPoint) unsupported('a class range out of order', dash);
          items.push({ kind: 'ranges', ranges: [[lowPoint, highPoint]] });
        } else {
          // Legacy: a range with a class escape at an end is the escape, a `-` and the other end.
          items.push(low, { kind: 'ranges', ranges: [[0x2d, 0x2d]] }, high);
        }
        continue;
      }
      items.push(low);
    }
    return classText(items, negated);
  }

  private classAtom(): ClassItem {
    const start = this.index;
    if (this.peek() === '\\') {
      const next = this.peek(1);
      if (next === 'B' || (next === 'k' && this.unicode)) unsupported('this escape in a class', start);
      if (next !== undefined && next >= '1' && next <= '9' && this.unicode) unsupported('this escape', start);
      if (next !== undefined && next >= '1' && next <= '9') unsupported('an octal escape', start);
      return this.classEscape(true);
    }
    const codePoint = this.codePointAt(start);
    return { kind: 'ranges', ranges: [[codePoint, codePoint]] };
  }
}

function singlePoint(item: ClassItem): number | undefined {
  if (item.kind !== 'ranges' || item.ranges.length !== 1) return undefined;
  const [low, high] = item.ranges[0]!;
  return low === high ? low : undefined;
}

/** A class of items in RE2 syntax; an empty class never matches, a negated empty one matches anything. */
function classText(items: readonly ClassItem[], negated: boolean): string {
  if (items.length === 0)
    return negated ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
  const body = items.map((item) => (item.kind === 'text' ? item.text : rangesText(item.ranges))).join('');
  return `[${negated ? '^' : ''}${body}]`;
}
