import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'node:test';

/** One entry of a test tree: file contents, a directory, or a symbolic link with its raw target. */
export type TreeEntry = string | { dir: true } | { link: string };

/** A tree keyed by `/`-separated paths relative to the sandbox; parents are created as needed. */
export type TreeSpec = Record<string, TreeEntry>;

/** Creates the entries of `spec` under `base`, in key order (so a link may point at a later entry). */
export function buildTree(base: string, spec: TreeSpec): void {
  for (const [relative, entry] of Object.entries(spec)) {
    const target = path.join(base, ...relative.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    if (typeof entry === 'string') writeFileSync(target, entry);
    else if ('dir' in entry) mkdirSync(target, { recursive: true });
    else symlinkSync(entry.link, target);
  }
}

/** Every path under `dir` (relative, sorted), links listed but not followed: proves nothing was created. */
export function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: false })
    .map((entry) => String(entry))
    .sort();
}

/** A fresh real temporary directory per test, removed afterwards. Read `.dir` inside a test. */
export function useSandbox(): { readonly dir: string } {
  const state = { dir: '' };
  beforeEach(() => {
    // realpath: the OS temp directory may itself be a link (macOS /tmp -> /private/tmp).
    state.dir = realpathSync.native(mkdtempSync(path.join(tmpdir(), 'path-policy-')));
  });
  afterEach(() => {
    rmSync(state.dir, { recursive: true, force: true });
  });
  return state;
}
