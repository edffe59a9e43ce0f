// The JS fallback of `grep` takes ripgrep's (Rust regex) syntax, so a pattern means the same thing
// whether or not ripgrep is installed. Rust syntax is close to JavaScript's but not equal; this module
// translates it into a JavaScript RegExp (flag `u`) and refuses what it cannot translate:
//
// translated:  `(?P<name>...)` → `(?<name>...)`; leading inline flags `(?i)`, `(?s)`, `(?x)` (`m` and
//              `u` are always on); `\A` / `\z`; POSIX classes `[[:alpha:]]`; `\pL`, `\p{Greek}`;
//              `\x{...}`, `\U...`; `\a`; an escaped punctuation character; a leading `]` in a class;
//              `.` (Rust's `.` excludes only `\n`, JavaScript's also `\r` and U+2028/2029).
// refused like ripgrep refuses them: look-around, backreferences, a line break in the pattern
//              without `multiline` (ripgrep: "the literal \n is not allowed").
// refused because JavaScript lacks them (the message says so): inline flags anywhere but the start,
//              scoped flag groups `(?i:...)`, `(?U)`, nested classes and class set operations
//              (`&&`, `--`, `~~`), negated POSIX classes inside brackets.
// known differences: `\w`, `\d` and `\b` are ASCII-only in JavaScript (Unicode in Rust); the
//              fallback accepts `(?<name>...)` and escapes of any punctuation, which ripgrep 13 refuses.

import { errorMessage } from '@toolhost/contracts';

/** Options of {@link compileGrepRegex}. */
export interface CompileGrepRegexOptions {
  readonly pattern: string;
  /** The pattern is plain text. */
  readonly literal: boolean;
  readonly ignoreCase: boolean;
  /** Matches may span lines (`.` then matches a line break too, as ripgrep's `--multiline-dotall`). */
  readonly multiline: boolean;
}

/** A compiled pattern, or the problem with it (value-free: it never quotes the pattern). */
export type CompileGrepRegexResult = { ok: true; regex: RegExp } | { ok: false; problem: string };

/**
 * Compiles a grep pattern for the JS engine. In multiline mode the regex has flags `gmu` and is run
 * over a whole file; otherwise it has flags `mu` and is tested line by line (and once over the whole
 * file, as a prefilter that can only over-approximate).
 */
export function compileGrepRegex(options: CompileGrepRegexOptions): CompileGrepRegexResult {
  let source: string;
  let ignoreCase = options.ignoreCase;
  if (options.literal) {
    if (!options.multiline && options.pattern.includes('\n'))
      return { ok: false, problem: LINE_BREAK_PROBLEM };
    source = options.pattern.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  } else {
    const translated = translateRustRegex(options.pattern, options.multiline);
    if (!translated.ok) return translated;
    source = translated.source;
    ignoreCase ||= translated.ignoreCase;
  }
  const flags = `${options.multiline ? 'g' : ''}m${ignoreCase ? 'i' : ''}u`;
  try {
    return { ok: true, regex: new RegExp(source, flags) };
  } catch (error) {
    const message = errorMessage(error);
    // V8 says "Invalid regular expression: /<source>/<flags>: <problem>"; keep only the problem.
    const prefix = `/${source}/${flags}: `;
    const at = message.lastIndexOf(prefix);
    const problem = at >= 0 ? message.slice(at + prefix.length) : message.replace(/^.*: /s, '');
    return { ok: false, problem: problem.charAt(0).toLowerCase() + problem.slice(1) };
  }
}

/** The problem reported for a line break in a pattern without `multiline` (both engines say it the same way). */
export const LINE_BREAK_PROBLEM =
  'the pattern contains a line break, which can only match with multiline=true (matches are found within single lines)';

type TranslateResult = { ok: true; source: string; ignoreCase: boolean } | { ok: false; problem: string };

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

class Refusal {
  constructor(readonly problem: string) {}
}

function refuse(problem: string, index: number): never {
  throw new Refusal(`${problem} (at character ${index + 1})`);
}

function unsupported(feature: string, index: number): never {
  refuse(
    `${feature} is not supported by the built-in search used when ripgrep is not installed; rewrite the pattern without it`,
    index,
  );
}

/** Translates a Rust-syntax regex into JavaScript `u`-mode syntax (see the header comment). */
export function translateRustRegex(pattern: string, multiline: boolean): TranslateResult {
  try {
    return { ok: true, ...new Translator(pattern, multiline).run() };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, problem: error.problem };
    throw error;
  }
}

class Translator {
  private index = 0;
  private out = '';
  private ignoreCase = false;
  private dotAll: boolean;
  private verbose = false;

  constructor(
    private readonly pattern: string,
    private readonly multiline: boolean,
  ) {
    this.dotAll = multiline;
  }

  run(): { source: string; ignoreCase: boolean } {
    this.leadingFlags();
    const { pattern } = this;
    while (this.index < pattern.length) {
      const char = pattern[this.index]!;
      if (this.verbose && this.skipVerbose()) continue;
      if (char === '\\') {
        this.out += this.escape(false);
      } else if (char === '[') {
        this.out += this.characterClass();
      } else if (char === '(') {
        this.out += this.group();
      } else if (char === '.') {
        this.out += this.dotAll ? '[^]' : '[^\\n]';
        this.index += 1;
      } else if (char === '\n') {
        if (!this.multiline) refuse(LINE_BREAK_PROBLEM, this.index);
        this.out += '\\n';
        this.index += 1;
      } else {
        this.out += char;
        this.index += 1;
      }
    }
    return { source: this.out, ignoreCase: this.ignoreCase };
  }

  /** In verbose mode, skips whitespace and `#` comments; true when something was skipped. */
  private skipVerbose(): boolean {
    const char = this.pattern[this.index]!;
    if (/\s/.test(char)) {
      this.index += 1;
      return true;
    }
    if (char === '#') {
      const end = this.pattern.indexOf('\n', this.index);
      this.index = end < 0 ? this.pattern.length : end + 1;
      return true;
    }
    return false;
  }

  /** `(?flags)` groups at the very start set flags for the whole pattern. */
  private leadingFlags(): void {
    for (;;) {
      const match = /^\(\?([a-zA-Z-]*)\)/.exec(this.pattern.slice(this.index));
      if (!match) return;
      let enable = true;
      for (const flag of match[1]!) {
        if (flag === '-') {
          enable = false;
        } else if (flag === 'i') {
          this.ignoreCase = enable;
        } else if (flag === 's') {
          this.dotAll = enable;
        } else if (flag === 'x') {
          this.verbose = enable;
        } else if ((flag === 'm' || flag === 'u') && enable) {
          // Always on: ^ and $ match at line boundaries, and matching is Unicode-aware.
        } else if (flag === 'U') {
          unsupported('the swap-greed flag (?U)', this.index);
        } else {
          refuse(`unrecognized or unsupported inline flag "${flag === '-' ? '-' : flag}"`, this.index);
        }
      }
      this.index += match[0].length;
    }
  }

  private group(): string {
    const { pattern } = this;
    const start = this.index;
    if (pattern[start + 1] !== '?') {
      this.index += 1;
      return '(';
    }
    const rest = pattern.slice(start + 2);
    if (rest.startsWith(':')) {
      this.index += 3;
      return '(?:';
    }
    if (rest.startsWith('=') || rest.startsWith('!') || rest.startsWith('<=') || rest.startsWith('<!')) {
      refuse('look-around (look-ahead and look-behind) is not supported', start);
    }
    const named = /^P?<([^>]*)>/.exec(rest);
    if (named) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(named[1]!)) {
        refuse('a group name must start with a letter or "_" and hold only letters, digits and "_"', start);
      }
      this.index += 2 + named[0].length;
      return `(?<${named[1]}>`;
    }
    if (/^[a-zA-Z-]*[):]/.test(rest)) {
      unsupported('an inline flag group anywhere but at the very start of the pattern', start);
    }
    refuse('unrecognized group syntax after "(?"', start);
  }

  /** Translates one escape starting at `\`; `inClass` when inside brackets. */
  private escape(inClass: boolean): string {
    const { pattern } = this;
    const start = this.index;
    const char = pattern[start + 1];
    if (char === undefined) refuse('the pattern ends with an incomplete escape "\\"', start);
    this.index += 2;
    switch (char) {
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
      case 't':
      case 'r':
      case 'f':
      case 'v':
        return `\\${char}`;
      case 'n':
        if (!this.multiline) refuse(LINE_BREAK_PROBLEM, start);
        return '\\n';
      case 'a':
        return '\\x07';
      case 'b':
      case 'B':
        if (inClass) refuse(`the escape "\\${char}" is not allowed inside a character class`, start);
        return `\\${char}`;
      case 'A':
      case 'z':
        if (inClass) refuse(`the escape "\\${char}" is not allowed inside a character class`, start);
        if (char === 'A') return this.multiline ? '(?<![^])' : '^';
        return this.multiline ? '(?![^])' : '$';
      case 'p':
      case 'P':
        return this.unicodeClass(char, start);
      case 'x':
      case 'u':
      case 'U':
        return this.codePoint(char, start);
      default:
        break;
    }
    if (/[0-9]/.test(char) || char === 'k') refuse('backreferences are not supported', start);
    if (/[A-Za-z]/.test(char)) refuse(`unrecognized escape sequence "\\${char}"`, start);
    const code = char.codePointAt(0)!;
    if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
    // A non-ASCII character (possibly a surrogate pair) stands for itself.
    const full = String.fromCodePoint(pattern.codePointAt(start + 1)!);
    this.index = start + 1 + full.length;
    return full;
  }

  private unicodeClass(letter: 'p' | 'P', start: number): string {
    const { pattern } = this;
    let name: string;
    if (pattern[this.index] === '{') {
      const end = pattern.indexOf('}', this.index);
      if (end < 0) refuse('unclosed Unicode class "\\p{"', start);
      name = pattern.slice(this.index + 1, end).trim();
      this.index = end + 1;
    } else {
      name = pattern[this.index] ?? '';
      if (name === '') refuse('the pattern ends with an incomplete Unicode class', start);
      this.index += 1;
    }
    const candidates = name.includes('=') ? [name] : [name, `Script=${name}`, `General_Category=${name}`];
    for (const candidate of candidates) {
      try {
        new RegExp(`\\p{${candidate}}`, 'u');
        return `\\${letter}{${candidate}}`;
      } catch {
        // try the next spelling
      }
    }
    unsupported('this Unicode class name (JavaScript spells some names differently)', start);
  }

  private codePoint(letter: 'x' | 'u' | 'U', start: number): string {
    const { pattern } = this;
    let digits: string;
    if (pattern[this.index] === '{') {
      const end = pattern.indexOf('}', this.index);
      if (end < 0) refuse(`unclosed escape "\\${letter}{"`, start);
      digits = pattern.slice(this.index + 1, end);
      this.index = end + 1;
    } else {
      const width = letter === 'x' ? 2 : letter === 'u' ? 4 : 8;
      digits = pattern.slice(this.index, this.index + width);
      if (digits.length !== width) digits = '';
      this.index += width;
    }
    if (!/^[0-9A-Fa-f]{1,8}$/.test(digits) || Number.parseInt(digits, 16) > 0x10ffff) {
      refuse(`invalid hexadecimal character code in "\\${letter}"`, start);
    }
    const code = Number.parseInt(digits, 16);
    if (code === 0x0a && !this.multiline) refuse(LINE_BREAK_PROBLEM, start);
    return `\\u{${code.toString(16)}}`;
  }

  private characterClass(): string {
    const { pattern } = this;
    const start = this.index;
    let out = '[';
    this.index += 1;
    if (pattern[this.index] === '^') {
      out += '^';
      this.index += 1;
    }
    // A `]` right after `[` or `[^` is a literal in Rust (JavaScript would read an empty class).
    if (pattern[this.index] === ']') {
      out += '\\]';
      this.index += 1;
    }
    for (;;) {
      const char = pattern[this.index];
      if (char === undefined) refuse('unclosed character class "["', start);
      if (this.verbose && /\s/.test(char)) {
        this.index += 1;
        continue;
      }
      if (char === ']') {
        this.index += 1;
        return `${out}]`;
      }
      if (char === '\\') {
        out += this.escape(true);
        continue;
      }
      if (char === '[') {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(this.index));
        if (!posix) unsupported('a nested character class', this.index);
        const expansion = POSIX_CLASSES[posix[2]!];
        if (expansion === undefined) refuse(`unknown POSIX class "[:${posix[2]}:]"`, this.index);
        if (posix[1] === '^') unsupported('a negated POSIX class inside brackets', this.index);
        if (posix[2] === 'space' && !this.multiline) out += '\\t\\v\\f\\r ';
        else out += expansion;
        this.index += posix[0].length;
        continue;
      }
      const pair = pattern.slice(this.index, this.index + 2);
      if (pair === '&&' || pair === '--' || pair === '~~') {
        unsupported(`the character class operator "${pair}"`, this.index);
      }
      if (char === '\n' && !this.multiline) refuse(LINE_BREAK_PROBLEM, this.index);
      out += char === '\n' ? '\\n' : char;
      this.index += 1;
    }
  }
}
