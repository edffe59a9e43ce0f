// Glob matching in time linear in the path, for globs the model (or a project's ignore files)
// supplies. picomatch turns a glob into a backtracking JavaScript regex: `*a*a*a*a*a*a*a*a*a*a*a*b`
// against a 100-character name does not finish in the lifetime of the host, and it runs on the
// host's thread. Written here rather than taken from a library because no glob library on npm
// promises linear time, and a regex engine that does (RE2) has no look-ahead, which picomatch's
// output needs for its dot-name rules.
//
// A glob is parsed into a small automaton (Thompson's construction) and run as a lazily built DFA
// (Rabin–Scott subsets, cached per matcher and dropped when they grow past a bound): one table
// step per character of the path, whatever the glob. The same automaton answers whether any path
// below a directory can still match, which prunes a walk.
//
// Semantics are picomatch's for the syntax it shares with globset (ripgrep) and fast-glob:
// `*` and `?` never match `/`; `**` as a whole name matches any number of names (zero too: `a/**/b`
// matches `a/b`, `a/**` matches `a`); `**` inside a name is `*`; `[...]` with ranges, `!`/`^`
// negation (a negated class never matches `/`) and POSIX classes such as `[[:alpha:]]`; `{a,b}`
// alternatives (nested) and `{1..9}` / `{a..e}` ranges; `\` escapes; with `extglob`, `@(a|b)`,
// `?(a)`, `*(a)` and `+(a)`. Without `dot`, wildcards (`*`, `?`, `**`) do not match a name's leading
// `.` (a literal `.` or a class does). Differences, on purpose: a glob that picomatch compiles to a
// regex that matches nothing (an unclosed `{`) is read literally; without `extglob`, `(`, `)` and `|`
// are literal characters (globset's meaning; picomatch passes them to its regex); `!(...)` is
// refused (its complement needs a different automaton).

/** Options of {@link compileLinearGlob}. */
export interface LinearGlobOptions {
  /** Wildcards match names that start with `.` (picomatch's `dot`). */
  readonly dot: boolean;
  /** Read `@(…)`, `?(…)`, `*(…)`, `+(…)` as extglobs; otherwise `(`, `)` and `|` are literal. */
  readonly extglob: boolean;
  /** Match letters case-insensitively. Default false. */
  readonly caseInsensitive?: boolean;
}

/** A compiled glob. Both methods take paths with `/` separators and no leading `./`. */
export interface LinearGlob {
  /** The glob as given. */
  readonly glob: string;
  /** Whether the whole of `path` matches. */
  test(path: string): boolean;
  /** Whether some path below `directory` (`directory/…`) could match: false lets a walk skip it. */
  couldMatchBelow(directory: string): boolean;
  /** The compiled glob as data, for {@link createProgramMatcher} in another thread. */
  readonly program: GlobProgram;
}

/** What {@link compileLinearGlob} returns; `problem` never quotes the glob. */
export type CompileLinearGlobResult =
  | { readonly ok: true; readonly value: LinearGlob }
  | { readonly ok: false; readonly problem: string };

/** The longest glob accepted (in UTF-16 code units). */
export const LINEAR_GLOB_MAX_LENGTH = 4096;
/** The most alternatives one brace range (`{1..1000}`) may expand to. */
const MAX_RANGE_ITEMS = 1000;

const SLASH = 0x2f;

type GlobNode =
  | { readonly kind: 'char'; readonly code: number }
  | { readonly kind: 'any' }
  | { readonly kind: 'star' }
  | {
      readonly kind: 'class';
      readonly ranges: ReadonlyArray<readonly [number, number]>;
      readonly negated: boolean;
    }
  | { readonly kind: 'alternation'; readonly branches: readonly GlobNode[][] }
  | { readonly kind: 'repeat'; readonly body: GlobNode; readonly min: 0 | 1; readonly many: boolean }
  | { readonly kind: 'separator' }
  /** `**` written as a whole name at the top level. */
  | { readonly kind: 'globstar' };

class GlobRefusal extends Error {}

const POSIX_CLASSES: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>> = {
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  ascii: [[0x00, 0x7f]],
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  space: [
    [0x09, 0x0d],
    [0x20, 0x20],
  ],
  upper: [[0x41, 0x5a]],
  word: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x5f, 0x5f],
    [0x61, 0x7a],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
};

/** Groups (braces, extglobs) nested deeper than this are refused. */
const MAX_GROUP_DEPTH = 32;

/**
 * Reads a glob into nodes; `/` outside groups becomes a separator node. Looking ahead for the end
 * of a group or a class costs steps from a budget proportional to the glob's length, so reading
 * stays linear: a glob of thousands of unclosed `[` or `{` is refused rather than read in
 * quadratic time.
 */
class GlobParser {
  private index = 0;
  private budget: number;

  constructor(
    private readonly glob: string,
    private readonly extglob: boolean,
  ) {
    this.budget = 16 * glob.length + 1024;
  }

  private spend(steps: number): void {
    this.budget -= steps;
    if (this.budget < 0) {
      throw new GlobRefusal('the glob has too many unclosed or nested groups and classes to read');
    }
  }

  parse(): GlobNode[] {
    const nodes = this.sequence(this.glob.length, 0);
    return nodes;
  }

  /** Nodes up to `end` (exclusive); `depth` > 0 inside a group, where `/` is a plain character. */
  private sequence(end: number, depth: number): GlobNode[] {
    const nodes: GlobNode[] = [];
    const { glob } = this;
    while (this.index < end) {
      const char = glob[this.index]!;
      const code = glob.charCodeAt(this.index);
      if (char === '\\') {
        if (this.index + 1 >= end) throw new GlobRefusal('the glob ends with a lone backslash');
        nodes.push({ kind: 'char', code: glob.charCodeAt(this.index + 1) });
        this.index += 2;
        continue;
      }
      if (this.extglob && '@?*+!'.includes(char) && glob[this.index + 1] === '(') {
        const close = this.matchingClose(this.index + 1, end, '(', ')');
        if (close >= 0) {
          if (char === '!')
            throw new GlobRefusal('a negated extglob "!(…)" is not supported; list what to match instead');
          const start = this.index;
          this.index += 2;
          const body: GlobNode = { kind: 'alternation', branches: this.alternatives(close, depth + 1, '|') };
          this.index = close + 1;
          if (char === '@') nodes.push(body);
          else if (char === '?') nodes.push({ kind: 'repeat', body, min: 0, many: false });
          else if (char === '*') nodes.push({ kind: 'repeat', body, min: 0, many: true });
          else if (char === '+') nodes.push({ kind: 'repeat', body, min: 1, many: true });
          else this.index = start + 1;
          continue;
        }
      }
      switch (char) {
        case '*': {
          const start = this.index;
          while (glob[this.index] === '*' && this.index < end) this.index += 1;
          const previous = nodes[nodes.length - 1];
          const wholeName =
            depth === 0 &&
            this.index - start >= 2 &&
            (previous === undefined || previous.kind === 'separator') &&
            (this.index === end || glob[this.index] === '/');
          nodes.push(wholeName ? { kind: 'globstar' } : { kind: 'star' });
          continue;
        }
        case '?':
          this.index += 1;
          nodes.push({ kind: 'any' });
          continue;
        case '[': {
          const parsed = this.bracket(end);
          if (parsed !== undefined) {
            nodes.push(parsed);
            continue;
          }
          break;
        }
        case '{': {
          const close = this.matchingClose(this.index, end, '{', '}');
          if (close < 0) break;
          const inner = glob.slice(this.index + 1, close);
          const range = braceRange(inner);
          if (range !== undefined) {
            nodes.push({
              kind: 'alternation',
              branches: range.map((item) =>
                [...item].map((part) => ({ kind: 'char', code: part.charCodeAt(0) }) as const),
              ),
            });
            this.index = close + 1;
            continue;
          }
          if (this.nextTopLevel(this.index + 1, close, ',') >= close) break;
          this.index += 1;
          nodes.push({ kind: 'alternation', branches: this.alternatives(close, depth + 1, ',') });
          this.index = close + 1;
          continue;
        }
        case '/':
          this.index += 1;
          nodes.push(depth === 0 ? { kind: 'separator' } : { kind: 'char', code });
          continue;
        default:
          break;
      }
      nodes.push({ kind: 'char', code });
      this.index += 1;
    }
    return nodes;
  }

  /** Branches separated by top-level `separator` characters, up to `end` (the closing character). */
  private alternatives(end: number, depth: number, separator: ',' | '|'): GlobNode[][] {
    if (depth > MAX_GROUP_DEPTH) throw new GlobRefusal(`groups are nested more than ${MAX_GROUP_DEPTH} deep`);
    const branches: GlobNode[][] = [];
    for (;;) {
      const next = this.nextTopLevel(this.index, end, separator);
      branches.push(this.sequence(next, depth));
      this.index = next;
      if (next >= end) return branches;
      this.index += 1;
    }
  }

  /** A bracket expression at `[`, or undefined when it is not closed (then `[` is literal). */
  private bracket(end: number): GlobNode | undefined {
    const { glob } = this;
    let at = this.index + 1;
    let negated = false;
    if (glob[at] === '!' || glob[at] === '^') {
      negated = true;
      at += 1;
    }
    const ranges: Array<readonly [number, number]> = [];
    let first = true;
    const from = at;
    for (;;) {
      if (at >= end) {
        this.spend(at - from);
        return undefined;
      }
      const char = glob[at]!;
      if (char === ']' && !first) break;
      first = false;
      if (char === '[' && glob[at + 1] === ':') {
        // POSIX class names are short: look no further than that.
        const ahead = glob.slice(at + 2, at + 12).indexOf(':]');
        const close = ahead < 0 ? -1 : at + 2 + ahead;
        const name = close >= 0 ? glob.slice(at + 2, close) : '';
        const posix = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
        if (posix !== undefined && close + 2 <= end) {
          ranges.push(...posix);
          at = close + 2;
          continue;
        }
      }
      let low: number;
      if (char === '\\' && at + 1 < end) {
        low = glob.charCodeAt(at + 1);
        at += 2;
      } else {
        low = glob.charCodeAt(at);
        at += 1;
      }
      if (glob[at] === '-' && at + 1 < end && glob[at + 1] !== ']') {
        let high: number;
        if (glob[at + 1] === '\\' && at + 2 < end) {
          high = glob.charCodeAt(at + 2);
          at += 3;
        } else {
          high = glob.charCodeAt(at + 1);
          at += 2;
        }
        if (high >= low) ranges.push([low, high]);
        continue;
      }
      ranges.push([low, low]);
    }
    this.spend(at - from);
    this.index = at + 1;
    return { kind: 'class', ranges, negated };
  }

  /** The index of the `closing` that ends the group opened at `open` (nesting, escapes), or -1. */
  private matchingClose(open: number, end: number, opening: string, closing: string): number {
    const { glob } = this;
    let depth = 0;
    for (let index = open; index < end; index += 1) {
      const char = glob[index];
      if (char === '\\') index += 1;
      else if (char === opening) depth += 1;
      else if (char === closing) {
        depth -= 1;
        if (depth === 0) {
          this.spend(index - open);
          return index;
        }
      }
    }
    this.spend(end - open);
    return -1;
  }

  /** The next `separator` at nesting depth 0 from `from`, or `end`. */
  private nextTopLevel(from: number, end: number, separator: string): number {
    const { glob } = this;
    let depth = 0;
    for (let index = from; index < end; index += 1) {
      const char = glob[index];
      if (char === '\\') index += 1;
      else if (char === '{' || char === '(') depth += 1;
      else if ((char === '}' || char === ')') && depth > 0) depth -= 1;
      else if (char === separator && depth === 0) {
        this.spend(index - from);
        return index;
      }
    }
    this.spend(end - from);
    return end;
  }
}

/** `1..5`, `05..10`, `a..e` (with an optional step) as the strings they expand to, or undefined. */
function braceRange(inner: string): string[] | undefined {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(inner);
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(inner);
  if (numeric === null && letters === null) return undefined;
  const match = (numeric ?? letters)!;
  const from = numeric ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numeric ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(match[3] ?? 1)) || 1);
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_RANGE_ITEMS) {
    throw new GlobRefusal(`a brace range expands to more than ${MAX_RANGE_ITEMS} alternatives`);
  }
  const padded = numeric !== null && (/^-?0\d/.test(match[1]!) || /^-?0\d/.test(match[2]!));
  const pad = padded ? Math.max(match[1]!.length, match[2]!.length) : 0;
  const items: string[] = [];
  const direction = to >= from ? 1 : -1;
  for (let value = from, index = 0; index < count; index += 1, value += direction * step) {
    if (numeric) {
      const text = String(Math.abs(value)).padStart(pad - (value < 0 ? 1 : 0), '0');
      items.push(value < 0 ? `-${text}` : text);
    } else {
      items.push(String.fromCharCode(value));
    }
  }
  return items;
}

// --- the automaton ------------------------------------------------------------------------------

const OP_CHAR = 0;
const OP_ANY = 1;
const OP_CLASS = 2;
const OP_SPLIT = 3;
const OP_JUMP = 4;
const OP_MATCH = 5;
/** Zero-width: the next character (if any) is not `.` (picomatch's rule for a name that starts with a wildcard). */
const OP_NOT_DOT_AHEAD = 6;

interface Program {
  readonly op: number[];
  /** CHAR: the code; CLASS: the class index; SPLIT/JUMP: the first target. */
  readonly arg: number[];
  /** SPLIT: the second target; ANY/CLASS/CHAR: 1 when the dot rule applies (a wildcard). */
  readonly arg2: number[];
  readonly classes: Array<{ ranges: ReadonlyArray<readonly [number, number]>; negated: boolean }>;
}

class Compiler {
  readonly program: Program = { op: [], arg: [], arg2: [], classes: [] };

  emit(op: number, arg = 0, arg2 = 0): number {
    const { program } = this;
    program.op.push(op);
    program.arg.push(arg);
    program.arg2.push(arg2);
    return program.op.length - 1;
  }

  patch(at: number, arg: number, arg2?: number): void {
    this.program.arg[at] = arg;
    if (arg2 !== undefined) this.program.arg2[at] = arg2;
  }

  get next(): number {
    return this.program.op.length;
  }

  /** A run of wildcard characters that are not `/` (`*`). */
  star(): void {
    const split = this.emit(OP_SPLIT);
    this.emit(OP_ANY, 0, 1);
    this.emit(OP_JUMP, split);
    this.patch(split, split + 1, this.next);
  }

  /** Any run of characters, `/` included, wildcards at every name start (a trailing `**`). */
  anything(): void {
    const split = this.emit(OP_SPLIT);
    const inner = this.emit(OP_SPLIT);
    this.emit(OP_ANY, 0, 1);
    const jumpBack = this.emit(OP_JUMP, split);
    const slash = this.emit(OP_CHAR, SLASH);
    this.emit(OP_JUMP, split);
    this.patch(inner, inner + 1, slash);
    this.patch(split, inner, this.next);
    void jumpBack;
  }

  /** Zero or more whole names, each followed by `/` (a leading or inner `**`). */
  names(): void {
    const split = this.emit(OP_SPLIT);
    // one name: a wildcard character, more of them, then `/`
    this.emit(OP_ANY, 0, 1);
    const more = this.emit(OP_SPLIT);
    this.emit(OP_ANY, 0, 1);
    this.emit(OP_JUMP, more);
    this.patch(more, more + 1, this.next);
    this.emit(OP_CHAR, SLASH);
    this.emit(OP_JUMP, split);
    this.patch(split, split + 1, this.next);
  }

  nodes(nodes: readonly GlobNode[]): void {
    for (const node of nodes) this.node(node);
  }

  node(node: GlobNode): void {
    switch (node.kind) {
      case 'char':
        this.emit(OP_CHAR, node.code);
        return;
      case 'separator':
      case 'globstar':
        // Top-level separators and globstars are laid out by compileNodes; these never reach here.
        this.emit(OP_CHAR, SLASH);
        return;
      case 'any':
        this.emit(OP_ANY, 0, 1);
        return;
      case 'star':
        this.star();
        return;
      case 'class': {
        this.program.classes.push({ ranges: node.ranges, negated: node.negated });
        this.emit(OP_CLASS, this.program.classes.length - 1);
        return;
      }
      case 'alternation': {
        const jumps: number[] = [];
        node.branches.forEach((branch, index) => {
          if (index < node.branches.length - 1) {
            const split = this.emit(OP_SPLIT);
            this.nodes(branch);
            jumps.push(this.emit(OP_JUMP));
            this.patch(split, split + 1, this.next);
          } else {
            this.nodes(branch);
          }
        });
        for (const jump of jumps) this.patch(jump, this.next);
        return;
      }
      case 'repeat': {
        if (node.min === 1) this.node(node.body);
        if (!node.many) {
          const split = this.emit(OP_SPLIT);
          this.node(node.body);
          this.patch(split, split + 1, this.next);
          return;
        }
        const split = this.emit(OP_SPLIT);
        this.node(node.body);
        this.emit(OP_JUMP, split);
        this.patch(split, split + 1, this.next);
        return;
      }
    }
  }
}

/** Splits top-level nodes into names at separators; a name that is only `**` is the globstar. */
function compileNodes(nodes: readonly GlobNode[], dot: boolean): Program {
  const names: Array<GlobNode[] | 'globstar'> = [];
  let current: GlobNode[] = [];
  for (const node of nodes) {
    if (node.kind === 'separator') {
      names.push(current);
      current = [];
    } else if (node.kind === 'globstar') {
      names.push('globstar');
      current = [];
    } else current.push(node);
  }
  // A globstar is followed by a separator or the end: drop the empty name a separator after it opens.
  const shaped: Array<GlobNode[] | 'globstar'> = [];
  for (let index = 0; index < names.length; index += 1) shaped.push(names[index]!);
  if (nodes[nodes.length - 1]?.kind !== 'globstar') shaped.push(current);
  const cleaned = shaped.filter(
    (name, index) =>
      !(Array.isArray(name) && name.length === 0 && index > 0 && shaped[index - 1] === 'globstar'),
  );
  // `**/**` is `**`.
  const collapsed = cleaned.filter(
    (name, index) => !(name === 'globstar' && index > 0 && cleaned[index - 1] === 'globstar'),
  );
  const compiler = new Compiler();
  const last = collapsed.length - 1;
  const endsInStar = (name: GlobNode[] | 'globstar' | undefined) =>
    Array.isArray(name) && name[name.length - 1]?.kind === 'star';
  collapsed.forEach((name, index) => {
    if (name === 'globstar') {
      if (last === 0) compiler.anything();
      else if (index === last) {
        // `prev/**`: the previous name alone (picomatch: unless it ends in `*`), or `/` and anything.
        const alone = !endsInStar(collapsed[index - 1]);
        const split = alone ? compiler.emit(OP_SPLIT) : -1;
        compiler.emit(OP_CHAR, SLASH);
        compiler.anything();
        if (alone) compiler.patch(split, split + 1, compiler.next);
      } else {
        if (index > 0) compiler.emit(OP_CHAR, SLASH);
        compiler.names();
      }
      return;
    }
    if (index > 0 && collapsed[index - 1] !== 'globstar') compiler.emit(OP_CHAR, SLASH);
    // picomatch: without `dot`, a name written starting with `*` never matches a name starting
    // with `.`, whatever takes the `.` (`*.a` does not match `.a`).
    if (!dot && name[0]?.kind === 'star') compiler.emit(OP_NOT_DOT_AHEAD);
    compiler.nodes(name);
  });
  compiler.emit(OP_MATCH);
  return compiler.program;
}

// --- the lazy DFA -------------------------------------------------------------------------------

/** A compiled glob as plain data (it crosses to grep's search workers as a message). */
export interface GlobProgram {
  readonly op: readonly number[];
  readonly arg: readonly number[];
  readonly arg2: readonly number[];
  readonly classes: ReadonlyArray<{
    readonly ranges: ReadonlyArray<readonly [number, number]>;
    readonly negated: boolean;
  }>;
  /** Wildcards may take a name's leading `.`. */
  readonly dot: boolean;
  readonly caseInsensitive: boolean;
}

/** What {@link createProgramMatcher} returns. */
export interface ProgramMatcher {
  test(path: string): boolean;
  couldMatchBelow(directory: string): boolean;
}

/**
 * Runs a {@link GlobProgram} as a lazily built DFA: a step per character of the path, the subset
 * for each (state, character) computed once and cached (at most 4096 states; past that the cache
 * is dropped and rebuilt as needed, so memory stays bounded and time stays linear). Self-contained
 * (no references outside its body): grep's search workers run its source.
 */
export function createProgramMatcher(program: GlobProgram): ProgramMatcher {
  // Opcodes, as compiled above: CHAR 0, ANY 1, CLASS 2, SPLIT 3, JUMP 4, MATCH 5, NOT_DOT_AHEAD 6.
  const { op, arg, arg2, classes, dot, caseInsensitive } = program;
  const SLASH = 0x2f;
  const DOT = 0x2e;
  const MAX_STATES = 4096;
  const marks = new Int32Array(op.length);
  const stack: number[] = [];
  let generation = 0;
  // DFA states by id: their instruction sets, flags, and transitions (ASCII in a flat table of
  // id * 128 + code holding the next id + 1, 0 for not computed yet; anything else in a map).
  let ids = new Map<string, number>();
  let sets: Int32Array[] = [];
  let nameStarts: boolean[] = [];
  let matches: boolean[] = [];
  let table = new Int32Array(128 * 64);
  let wide = new Map<number, number>();

  const closure = (seeds: readonly number[]): Int32Array => {
    generation += 1;
    const found: number[] = [];
    for (let index = seeds.length - 1; index >= 0; index -= 1) stack.push(seeds[index]!);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      const code = op[pc];
      if (code === 4) stack.push(arg[pc]!);
      else if (code === 3) {
        stack.push(arg2[pc]!);
        stack.push(arg[pc]!);
      } else found.push(pc);
    }
    found.sort((left, right) => left - right);
    return Int32Array.from(found);
  };
  // Whether MATCH is among `pcs` or behind an assertion that holds at the end of the input.
  const matchesAtEnd = (pcs: Int32Array): boolean => {
    for (const pc of pcs) {
      if (op[pc] === 5) return true;
      if (op[pc] === 6 && matchesAtEnd(closure([pc + 1]))) return true;
    }
    return false;
  };
  const reset = () => {
    ids = new Map();
    sets = [];
    nameStarts = [];
    matches = [];
    table = new Int32Array(128 * 64);
    wide = new Map();
  };
  // The id of the state for `pcs`; 0 is always the dead state (no instruction left).
  const idOf = (pcs: Int32Array, nameStart: boolean): number => {
    if (pcs.length === 0) return 0;
    const key = `${nameStart ? 1 : 0}:${pcs.join(',')}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = sets.length;
      ids.set(key, id);
      sets.push(pcs);
      nameStarts.push(nameStart);
      matches.push(matchesAtEnd(pcs));
      if (table.length < sets.length * 128) {
        const grown = new Int32Array(table.length * 2);
        grown.set(table);
        table = grown;
      }
    }
    return id;
  };
  const sameChar = (expected: number, code: number): boolean =>
    expected === code ||
    (caseInsensitive &&
      String.fromCharCode(expected).toLowerCase() === String.fromCharCode(code).toLowerCase());
  const inClass = (index: number, code: number): boolean => {
    const entry = classes[index]!;
    if (entry.negated && code === SLASH) return false;
    const candidates = caseInsensitive
      ? [
          code,
          String.fromCharCode(code).toLowerCase().charCodeAt(0),
          String.fromCharCode(code).toUpperCase().charCodeAt(0),
        ]
      : [code];
    let inside = false;
    for (const candidate of candidates) {
      for (const [low, high] of entry.ranges) {
        if (candidate >= low && candidate <= high) inside = true;
      }
    }
    return entry.negated ? !inside : inside;
  };
  // Adds to `targets` what `pcs` reach by reading `code` (assertions checked against it first).
  const consume = (pcs: Int32Array, code: number, leadingDot: boolean, targets: number[]): void => {
    for (const pc of pcs) {
      const kind = op[pc];
      let accepts = false;
      if (kind === 0) accepts = sameChar(arg[pc]!, code);
      else if (kind === 1) accepts = code !== SLASH && !leadingDot;
      else if (kind === 2) accepts = inClass(arg[pc]!, code);
      else if (kind === 6) {
        if (code !== DOT) consume(closure([pc + 1]), code, leadingDot, targets);
        continue;
      }
      if (accepts) targets.push(pc + 1);
    }
  };
  const startSet = closure([0]);
  let start = 0;
  const begin = () => {
    // The dead state first (id 0), then the start state.
    sets.push(new Int32Array(0));
    nameStarts.push(false);
    matches.push(false);
    start = idOf(startSet, true);
  };
  begin();
  // The next state's id from `state` on `code`, computed once and remembered.
  const step = (state: number, code: number): number => {
    const targets: number[] = [];
    consume(sets[state]!, code, code === DOT && nameStarts[state]! && !dot, targets);
    if (sets.length >= MAX_STATES) {
      // Bounded memory: forget every state but the current one's meaning (still one step a character).
      const pcs = sets[state]!;
      const nameStart = nameStarts[state]!;
      reset();
      begin();
      state = idOf(pcs, nameStart);
    }
    const next = idOf(closure(targets), code === SLASH);
    if (code < 128) table[state * 128 + code] = next + 1;
    else wide.set(state * 0x110000 + code, next);
    return next;
  };
  const run = (text: string): number => {
    let state = start;
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      let next: number | undefined;
      if (code < 128) {
        next = table[state * 128 + code]! - 1;
        if (next < 0) next = step(state, code);
      } else {
        next = wide.get(state * 0x110000 + code) ?? step(state, code);
      }
      if (next === 0) return 0;
      state = next;
    }
    return state;
  };
  return {
    test: (path) => matches[run(path)] === true,
    couldMatchBelow: (directory) => run(directory === '' ? '' : `${directory}/`) !== 0,
  };
}

/**
 * Compiles a glob into a linear-time matcher (see the header comment for the syntax and its few
 * differences from picomatch). Refused, as a value: a glob longer than {@link LINEAR_GLOB_MAX_LENGTH},
 * a trailing lone `\`, a negated extglob `!(…)`, a brace range of more than 1000 items.
 */
export function compileLinearGlob(glob: string, options: LinearGlobOptions): CompileLinearGlobResult {
  if (glob.length > LINEAR_GLOB_MAX_LENGTH) {
    return { ok: false, problem: `the glob is longer than ${LINEAR_GLOB_MAX_LENGTH} characters` };
  }
  let program: Program;
  // picomatch reads a leading `./` as the current directory, which paths never start with.
  let body = glob;
  while (body.startsWith('./')) body = body.slice(2);
  try {
    program = compileNodes(new GlobParser(body, options.extglob).parse(), options.dot);
  } catch (error) {
    if (error instanceof GlobRefusal) return { ok: false, problem: error.message };
    throw error;
  }
  const data: GlobProgram = {
    ...program,
    dot: options.dot,
    caseInsensitive: options.caseInsensitive === true,
  };
  const matcher = createProgramMatcher(data);
  return {
    ok: true,
    value: Object.freeze({
      glob,
      program: data,
      test: matcher.test,
      couldMatchBelow: matcher.couldMatchBelow,
    }),
  };
}
