// The JS engine's byte prefilter. Most files of a search hold no match, and turning a file into a
// JavaScript string costs far more than scanning its bytes (about 10x on this repository's
// node_modules), so the engine first asks whether the raw bytes contain a literal that every match
// must contain, and decodes only the files that do.
//
// `requiredLiterals` reads the compiled JavaScript regex (the output of compileGrepRegex, `u` mode)
// and returns a set of strings such that every match contains at least one of them, or nothing
// when it cannot say. It may only ever under-approximate what is required: anything it does not
// understand ends a literal run or gives up. Why a literal found in the text is also found in the
// bytes: every string the engine runs the regex on is a piece of the file's UTF-8 decoding (a line,
// a NUL-separated part, the text before a late NUL), and a character other than U+FFFD in a UTF-8
// decoding always comes from its own UTF-8 bytes. So literals holding U+FFFD or a lone surrogate
// are never used, and UTF-16 files (decoded differently) are never prefiltered.
//
// With `ignore_case` (flag `i` with `u`), two characters match when their simple case foldings are
// equal. For ASCII characters the only non-ASCII equivalents are U+017F (ſ, folds to s) and U+212A
// (Kelvin sign, folds to k); test/grep-literals.test.ts checks this against every code point. So a
// case-insensitive literal is used only when it is ASCII, and its byte pattern also accepts the
// UTF-8 bytes of those two characters.

/** What every match of a pattern contains: at least one of `literals` (case-folded when `ignoreCase`). */
export interface GrepPrefilter {
  readonly literals: readonly string[];
  readonly ignoreCase: boolean;
}

/** More alternatives than this and the prefilter is not worth its scans. */
const MAX_ALTERNATIVES = 16;
/** An exact repetition (`a{3}`) is expanded into a literal up to this length. */
const MAX_EXPANDED_LENGTH = 256;

/** What a node says: the one string it always matches, and strings one of which every match contains. */
interface Facts {
  /** The node always matches exactly this text (case-folded under `i`); undefined when it varies. */
  readonly exact: string | undefined;
  /** Every match contains one of these (none is empty); undefined: nothing is known. */
  readonly required: readonly string[] | undefined;
}

const UNKNOWN: Facts = { exact: undefined, required: undefined };

class GiveUp extends Error {}

/**
 * The literals every match of a compiled grep regex must contain, or undefined when none can be
 * found (or the regex uses syntax this reader does not know). `source` and `flags` are the
 * RegExp's; only `u`-mode regexes are read.
 */
export function requiredLiterals(source: string, flags: string): GrepPrefilter | undefined {
  if (!flags.includes('u') || flags.includes('v') || flags.includes('x')) return undefined;
  const ignoreCase = flags.includes('i');
  try {
    const parser = new LiteralParser(source, ignoreCase);
    const facts = parser.parse();
    const literals = facts.required;
    if (literals === undefined || literals.length === 0) return undefined;
    return { literals: [...literals], ignoreCase };
  } catch (error) {
    // A pattern nested deeper than the stack (thousands of groups) is read by no one here: search
    // without the prefilter rather than fail the call.
    if (error instanceof GiveUp || error instanceof RangeError) return undefined;
    throw error;
  }
}

/** A small recursive-descent reader of JavaScript `u`-mode regex syntax that keeps only literal facts. */
class LiteralParser {
  private index = 0;

  constructor(
    private readonly source: string,
    private readonly ignoreCase: boolean,
  ) {}

  parse(): Facts {
    const facts = this.alternation();
    if (this.index !== this.source.length) throw new GiveUp();
    return facts;
  }

  private alternation(): Facts {
    const branches = [this.sequence()];
    while (this.source[this.index] === '|') {
      this.index += 1;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0]!;
    const union = new Set<string>();
    for (const branch of branches) {
      if (branch.required === undefined) return UNKNOWN;
      for (const literal of branch.required) union.add(literal);
    }
    return { exact: undefined, required: union.size > MAX_ALTERNATIVES ? undefined : [...union] };
  }

  private sequence(): Facts {
    const candidates: Array<readonly string[]> = [];
    let run = '';
    let exact: string | undefined = '';
    const endRun = () => {
      if (run !== '') candidates.push([run]);
      run = '';
    };
    for (;;) {
      const char = this.source[this.index];
      if (char === undefined || char === '|' || char === ')') break;
      const atom = this.quantified();
      if (atom.exact !== undefined) {
        run += atom.exact;
      } else {
        endRun();
        if (atom.required !== undefined) candidates.push(atom.required);
      }
      exact = exact !== undefined && atom.exact !== undefined ? exact + atom.exact : undefined;
    }
    endRun();
    return { exact, required: best(candidates) };
  }

  /** An atom and the quantifier after it, if any. */
  private quantified(): Facts {
    const atom = this.atom();
    const bounds = this.quantifier();
    if (bounds === undefined) return atom;
    const [min, max] = bounds;
    if (min === 0) return UNKNOWN;
    const exact =
      atom.exact !== undefined && min === max && atom.exact.length * min <= MAX_EXPANDED_LENGTH
        ? atom.exact.repeat(min)
        : undefined;
    return { exact, required: exact !== undefined && exact !== '' ? [exact] : atom.required };
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (each optionally lazy), as [min, max]. */
  private quantifier(): [number, number] | undefined {
    const { source } = this;
    const char = source[this.index];
    let bounds: [number, number] | undefined;
    if (char === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (char === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (char === '?') bounds = [0, 1];
    if (bounds !== undefined) {
      this.index += 1;
    } else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(this.index));
      // In `u` mode a `{` that is not a quantifier is a syntax error: the regex compiled, so this is unknown syntax.
      if (match === null) throw new GiveUp();
      const min = Number(match[1]);
      const max =
        match[2] === undefined ? min : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
      bounds = [min, max];
      this.index += match[0].length;
    } else {
      return undefined;
    }
    if (source[this.index] === '?') this.index += 1;
    return bounds;
  }

  private atom(): Facts {
    const { source } = this;
    const char = source[this.index]!;
    switch (char) {
      case '(':
        return this.group();
      case '[':
        this.characterClass();
        return UNKNOWN;
      case '.':
      case '^':
      case '$':
        this.index += 1;
        return UNKNOWN;
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
        throw new GiveUp();
      default: {
        const codePoint = source.codePointAt(this.index)!;
        this.index += codePoint > 0xffff ? 2 : 1;
        return this.literal(codePoint);
      }
    }
  }

  private group(): Facts {
    const { source } = this;
    const rest = source.slice(this.index + 1, this.index + 4);
    let zeroWidth = false;
    if (!rest.startsWith('?')) {
      this.index += 1;
    } else if (rest.startsWith('?:')) {
      this.index += 3;
    } else if (rest.startsWith('?=') || rest.startsWith('?!')) {
      this.index += 3;
      zeroWidth = true;
    } else if (rest.startsWith('?<=') || rest.startsWith('?<!')) {
      this.index += 4;
      zeroWidth = true;
    } else if (rest.startsWith('?<')) {
      const end = source.indexOf('>', this.index);
      if (end < 0) throw new GiveUp();
      this.index = end + 1;
    } else {
      throw new GiveUp();
    }
    const inner = this.alternation();
    if (source[this.index] !== ')') throw new GiveUp();
    this.index += 1;
    return zeroWidth ? UNKNOWN : inner;
  }

  /** Skips a class `[...]` (no nesting in `u` mode). */
  private characterClass(): void {
    const { source } = this;
    this.index += 1;
    if (source[this.index] === '^') this.index += 1;
    for (;;) {
      const char = source[this.index];
      if (char === undefined) throw new GiveUp();
      if (char === ']') {
        this.index += 1;
        return;
      }
      this.index += char === '\\' ? 2 : 1;
    }
  }

  private escape(): Facts {
    const { source } = this;
    const char = source[this.index + 1];
    if (char === undefined) throw new GiveUp();
    this.index += 2;
    switch (char) {
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
      case 'b':
      case 'B':
        return UNKNOWN;
      case 't':
        return this.literal(0x09);
      case 'n':
        return this.literal(0x0a);
      case 'v':
        return this.literal(0x0b);
      case 'f':
        return this.literal(0x0c);
      case 'r':
        return this.literal(0x0d);
      case '0':
        if (/[0-9]/.test(source[this.index] ?? '')) throw new GiveUp();
        return this.literal(0);
      case 'c': {
        const letter = source[this.index];
        if (letter === undefined || !/[A-Za-z]/.test(letter)) throw new GiveUp();
        this.index += 1;
        return this.literal(letter.charCodeAt(0) % 32);
      }
      case 'x': {
        const digits = source.slice(this.index, this.index + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(digits)) throw new GiveUp();
        this.index += 2;
        return this.literal(Number.parseInt(digits, 16));
      }
      case 'u': {
        const braced = /^\{([0-9A-Fa-f]+)\}/.exec(source.slice(this.index));
        if (braced !== null) {
          this.index += braced[0].length;
          return this.literal(Number.parseInt(braced[1]!, 16));
        }
        const digits = source.slice(this.index, this.index + 4);
        if (!/^[0-9A-Fa-f]{4}$/.test(digits)) throw new GiveUp();
        this.index += 4;
        // A surrogate written as \uXXXX may pair with the next escape; not worth reading.
        const code = Number.parseInt(digits, 16);
        return code >= 0xd800 && code <= 0xdfff ? UNKNOWN : this.literal(code);
      }
      case 'p':
      case 'P': {
        const end = source.indexOf('}', this.index);
        if (source[this.index] !== '{' || end < 0) throw new GiveUp();
        this.index = end + 1;
        return UNKNOWN;
      }
      default:
        // `u` mode allows identity escapes of syntax characters and `/` only.
        if ('^$\\.*+?()[]{}|/'.includes(char)) return this.literal(char.charCodeAt(0));
        throw new GiveUp();
    }
  }

  /** One literal code point: an exact run piece when it is safe to look for in the bytes. */
  private literal(codePoint: number): Facts {
    const unsafe =
      codePoint === 0xfffd ||
      (codePoint >= 0xd800 && codePoint <= 0xdfff) ||
      (this.ignoreCase && codePoint > 0x7f);
    if (unsafe) return UNKNOWN;
    const text = String.fromCodePoint(codePoint);
    return { exact: text, required: [text] };
  }
}

/** The candidate whose shortest literal is longest (then the one with fewer alternatives). */
function best(candidates: ReadonlyArray<readonly string[]>): readonly string[] | undefined {
  let chosen: readonly string[] | undefined;
  let chosenShortest = 0;
  for (const candidate of candidates) {
    if (candidate.length === 0) continue;
    const shortest = Math.min(...candidate.map((literal) => literal.length));
    if (shortest === 0) continue;
    if (
      chosen === undefined ||
      shortest > chosenShortest ||
      (shortest === chosenShortest && candidate.length < chosen.length)
    ) {
      chosen = candidate;
      chosenShortest = shortest;
    }
  }
  return chosen;
}

/**
 * Builds the byte test of a prefilter: true when `bytes` may hold a match (one of the literals, as
 * UTF-8; case-insensitively for ASCII letters, with U+017F and U+212A as s and k). Self-contained
 * (no references outside its body): the search worker runs its source.
 */
export function createBytePrefilter(prefilter: GrepPrefilter): (bytes: Buffer) => boolean {
  if (!prefilter.ignoreCase) {
    const needles = prefilter.literals.map((literal) => Buffer.from(literal, 'utf8'));
    return (bytes) => {
      for (const needle of needles) if (bytes.indexOf(needle) >= 0) return true;
      return false;
    };
  }
  // Case-insensitive: a regex over the bytes read as latin1 (one character per byte), written
  // without the `i` flag so that nothing but the listed bytes can match.
  const hex = (code: number) => `\\x${code.toString(16).padStart(2, '0')}`;
  const alternatives = prefilter.literals.map((literal) => {
    let pattern = '';
    for (const char of literal) {
      const code = char.charCodeAt(0);
      if (code > 0x7f) throw new Error('a case-insensitive prefilter literal must be ASCII');
      const lower = char.toLowerCase();
      const upper = char.toUpperCase();
      if (lower === upper) {
        pattern += hex(code);
        continue;
      }
      const variants = [hex(lower.charCodeAt(0)), hex(upper.charCodeAt(0))];
      // U+017F LATIN SMALL LETTER LONG S (C5 BF) and U+212A KELVIN SIGN (E2 84 AA).
      if (lower === 's') variants.push('\\xc5\\xbf');
      if (lower === 'k') variants.push('\\xe2\\x84\\xaa');
      pattern += `(?:${variants.join('|')})`;
    }
    return pattern;
  });
  const regex = new RegExp(alternatives.join('|'));
  return (bytes) => regex.test(bytes.toString('latin1'));
}
