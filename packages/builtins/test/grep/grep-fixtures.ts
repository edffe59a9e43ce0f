// Shared helpers of the discovery tool tests (ls, glob, grep, view_image): real temp trees, a real
// path policy, and both grep engines.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyToolDefinition, ToolResult } from '@toolhost/contracts';
import fc from 'fast-check';
import { createPathPolicy, type PathPolicy } from '@toolhost/path-policy';
import { createDiscoveryTools, findRipgrep } from '../../src/index.js';

/** A file's content, or a symbolic link to create (target as given, relative or absolute). */
export type TreeEntry = string | Buffer | { readonly symlink: string };

/** A temp directory holding a tree; `root` is its real path. */
export interface Tree {
  readonly root: string;
  readonly policy: PathPolicy;
  remove(): Promise<void>;
}

/** Creates a fresh temp directory (real path) with the given files; directories are implied. */
export async function makeTree(entries: Readonly<Record<string, TreeEntry>>): Promise<Tree> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-discovery-')));
  await writeTree(root, entries);
  const policy = createPathPolicy({ mode: 'current_project', root });
  return { root, policy, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Writes more entries below `root`; a name ending in `/` is an (empty) directory. */
export async function writeTree(root: string, entries: Readonly<Record<string, TreeEntry>>): Promise<void> {
  for (const [relative, entry] of Object.entries(entries)) {
    const target = path.join(root, relative);
    if (relative.endsWith('/')) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    if (typeof entry === 'object' && !Buffer.isBuffer(entry)) await symlink(entry.symlink, target);
    else await writeFile(target, entry);
  }
}

/** The grep engines every behaviour runs with; ripgrep is skipped (with a reason) when not installed. */
export const ENGINES: ReadonlyArray<{
  readonly name: string;
  readonly rgPath: string | null;
  readonly skip: string | false;
}> = [
  {
    name: 'ripgrep',
    rgPath: findRipgrep(),
    skip: findRipgrep() === null ? 'rg is not on PATH' : false,
  },
  { name: 'JS fallback', rgPath: null, skip: false },
];

/** The four discovery tools by name. */
export function toolsFor(
  policy: PathPolicy,
  options: { rgPath?: string | null; grepOutputBytes?: number } = {},
): Record<'ls' | 'glob' | 'grep' | 'view_image', AnyToolDefinition> {
  const tools = createDiscoveryTools({
    pathPolicy: policy,
    ...(options.rgPath === undefined ? {} : { rgPath: options.rgPath }),
    ...(options.grepOutputBytes === undefined ? {} : { grepOutputBytes: options.grepOutputBytes }),
  });
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  return byName as Record<'ls' | 'glob' | 'grep' | 'view_image', AnyToolDefinition>;
}

/** Calls a tool's handler as the host would (arguments already valid). */
export function call(
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolResult> {
  return tool.execute(args, {
    callId: 'call-1',
    toolName: tool.name,
    signal,
    invocation: { kind: 'direct' },
  });
}

/** The model text of a successful result; throws with the error text otherwise. */
export function okText(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected success, got ${result.error.toModelText()}`);
  return result.output.content
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

/** The error of a failed result; throws otherwise. */
export function failure(result: ToolResult): { code: string; text: string } {
  if (result.ok) throw new Error(`expected a failure, got: ${okText(result)}`);
  return { code: result.error.code, text: result.error.toModelText() };
}

/** The result lines before the first blank line (notices follow it). */
export function resultLines(text: string): string[] {
  const [body = ''] = text.split('\n\n');
  return body === '' ? [] : body.split('\n');
}

/** Characters that make literal extraction interesting: ſ and K fold to s and k; U+FFFD is also what invalid UTF-8 decodes to. */
/** Words, so that literals are longer than one character (a one-byte literal is found even in UTF-16). */
const TRICKY_WORDS = ['ab', 'ks', 'sk', 'needle'];
const TRICKY_CHARACTERS = [
  'a',
  'b',
  'k',
  'K',
  's',
  'S',
  '\u017f',
  '\u212a',
  'é',
  'É',
  '\ufffd',
  'x',
  '_',
  '1',
  ' ',
];

/**
 * Ripgrep-syntax patterns built from literals, classes, anchors, groups, alternations and
 * quantifiers (some do not compile, e.g. a quantified anchor; callers skip those). Never
 * catastrophic: a group is at most optional (no `(a+)+`), and a pattern holds at most four
 * unbounded quantifiers, so backtracking stays polynomial and small on the short generated lines.
 */
export function grepPattern(): fc.Arbitrary<string> {
  const atom = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...TRICKY_CHARACTERS) },
    { weight: 2, arbitrary: fc.constantFrom(...TRICKY_WORDS) },
    fc.constantFrom(
      '\\.',
      '\\*',
      '\\(',
      '.',
      '\\w',
      '\\d',
      '\\s',
      '[ab]',
      '[^a]',
      '[[:alpha:]]',
      '\\bk',
      '^',
      '$',
      '\\x{41}',
      '\\u{17F}',
      '\\x{FFFD}',
      '\\pL',
      '\\n',
      '\\t',
    ),
  );
  const { pattern } = fc.letrec<{ pattern: string; sequence: string; piece: string; group: string }>(
    (tie) => ({
      pattern: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        tie('sequence'),
        fc.tuple(tie('sequence'), tie('sequence')).map(([left, right]) => `${left}|${right}`),
      ),
      sequence: fc.array(tie('piece'), { maxLength: 6 }).map((pieces) => pieces.join('')),
      piece: fc.oneof(
        { depthSize: 'small' },
        fc
          .tuple(atom, fc.constantFrom('', '', '', '', '*', '+', '?', '{2}', '{1,3}', '+?'))
          .map(([piece, quantifier]) => piece + quantifier),
        fc.tuple(tie('group'), fc.constantFrom('', '', '?')).map(([group, quantifier]) => group + quantifier),
      ),
      group: fc
        .tuple(fc.constantFrom('(', '(?:', '(?P<g>'), tie('pattern'))
        .map(([open, inner]) => `${open}${inner})`),
    }),
  );
  return fc
    .tuple(fc.constantFrom('', '', '', '(?i)'), pattern)
    .map(([flags, body]) => flags + body)
    .filter((generated) => (generated.match(/[*+]|\{1,3\}/g) ?? []).length <= 4);
}

/** File contents: the pattern characters, line breaks (LF, CRLF, lone CR) and invalid UTF-8 pieces. */
export function fileBytes(): fc.Arbitrary<Buffer> {
  const piece = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...TRICKY_CHARACTERS, 'A', '.', '*', '(', '\t') },
    { weight: 3, arbitrary: fc.constantFrom(...TRICKY_WORDS, 'NEEDLE', 'Ab', 'SK') },
    { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r') },
    fc.constantFrom(Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x84]), Buffer.from([0xc5])),
  );
  return fc
    .array(piece, { maxLength: 40 })
    .map((pieces) =>
      Buffer.concat(pieces.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))),
    );
}
