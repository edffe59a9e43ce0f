// Shared helpers of the discovery tool tests (ls, glob, grep, view_image): real temp trees, a real
// path policy, and both grep engines.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyToolDefinition, ToolResult } from '@toolhost/contracts';
import { createPathPolicy, type PathPolicy } from '@toolhost/path-policy';
import { createDiscoveryTools, findRipgrep } from '../src/index.js';

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
