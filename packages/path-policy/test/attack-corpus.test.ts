import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startSwapper, swapperUnavailable } from '../../../scripts/race-swapper.js';
import {
  createPathPolicy,
  type PathAccess,
  type PathPolicy,
  type PathPolicyErrorCode,
} from '../src/index.js';
import { buildTree, type TreeSpec, useSandbox } from './helpers.js';

// PP-ATTACK-1: every row runs on a fresh real temporary tree with real symbolic links. In inputs and
// expected paths, `@S` is the sandbox directory and `@s` the same without its leading `/`.

const tree = (S: string): TreeSpec => ({
  'proj/src/a.ts': 'a',
  'proj/sub/deep/file.txt': 'deep',
  'proj/..foo/bar.txt': 'dotdot name',
  'proj/.git/config': '[core]',
  'proj/.env': 'KEY=1',
  'proj/.env.example': 'KEY=',
  'proj/config/.env.local': 'KEY=2',
  'proj/keys/server.pem': 'pem',
  'proj/home/.ssh/id_rsa': 'rsa',
  'proj/日本語/ファイル.txt': 'unicode',
  'proj/café/menu.txt': 'nfc',
  'outside/secret.txt': 'outside secret',
  'outside/back': { link: '../proj/src' },
  'outside/away': { link: '../outside2' },
  'outside2/far.txt': 'far',
  'proj-evil/x.txt': 'evil',
  'proj/out': { link: '../outside' },
  'proj/out-abs': { link: `${S}/outside` },
  'proj/out-file': { link: '../outside/secret.txt' },
  'proj/etc': { link: '/etc' },
  'proj/slash': { link: '/' },
  'proj/passwd': { link: '/etc/passwd' },
  'proj/in': { link: 'src' },
  'proj/in-abs': { link: `${S}/proj/src` },
  'proj/via-back': { link: '../outside/back' },
  'proj/via-away': { link: '../outside/away' },
  'proj/dangling-out': { link: `${S}/outside/created.txt` },
  'proj/dangling-out-rel': { link: '../outside/created-rel.txt' },
  'proj/dangling-in': { link: 'src/created.ts' },
  'proj/dangling-chain': { link: 'dangling-out' },
  'proj/dangling-chain-in': { link: 'dangling-in' },
  'proj/dangling-dir': { link: '../outside/newdir' },
  'proj/dangling-evil': { link: '../proj-evil/new.txt' },
  'proj/dangling-proc': { link: '/proc/self/root/tmp/path-policy-created' },
  'proj/loop': { link: 'loop' },
  'proj/loop-a': { link: 'loop-b' },
  'proj/loop-b': { link: 'loop-a' },
  'proj/dl-a': { link: 'dl-b/x' },
  'proj/dl-b': { link: 'dl-a/x' },
  'proj/sub/up': { link: '..' },
  'proj/sub/up2': { link: '../..' },
  'proj/sub/mid-out': { link: '../../outside' },
  'proj/evil-sibling': { link: '../proj-evil' },
  'proj/env-alias': { link: '.env' },
  'proj/git-config-alias': { link: '.git/config' },
  'proj/src/.env': { link: 'a.ts' },
  rootlink: { link: 'proj' },
});

type Expect =
  | { ok: string; exists?: boolean } // the expected real path (with @S)
  | { code: PathPolicyErrorCode; reason?: string }
  | { refused: true }; // any refusal (kernel-dependent /proc and /dev inputs)

interface Case {
  readonly name: string;
  readonly input: string;
  readonly access: PathAccess;
  readonly expect: Expect;
  readonly policy?: 'rootlink' | 'two-roots';
  readonly rule: string;
}

const OUT = { code: 'PATH_OUTSIDE_ROOT', reason: 'outside_root' } as const;
const LINK_OUT = { code: 'PATH_OUTSIDE_ROOT', reason: 'symlink_outside_root' } as const;
const LOOP = { code: 'PATH_INVALID', reason: 'symlink_loop' } as const;
const PROTECTED = { code: 'PATH_PROTECTED', reason: 'protected' } as const;
const SECRET = { code: 'PATH_PROTECTED', reason: 'secret' } as const;

const corpus: Case[] = [
  // `..` chains
  {
    name: 'parent then outside file',
    input: '../outside/secret.txt',
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-2',
  },
  {
    name: 'long .. chain to /etc',
    input: `${'../'.repeat(40)}etc/passwd`,
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-2',
  },
  {
    name: 'down then up and out',
    input: 'src/../../outside/secret.txt',
    access: 'read',
    expect: OUT,
    rule: 'PP-IN-5',
  },
  { name: 'dots then parent', input: './././../outside', access: 'list', expect: OUT, rule: 'PP-IN-5' },
  { name: 'parent of the root', input: '..', access: 'list', expect: OUT, rule: 'PP-REAL-4' },
  {
    name: 'bounce to the sibling prefix',
    input: 'src/../../proj-evil/x.txt',
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-4',
  },
  {
    name: 'leave and re-enter by text',
    input: '../proj/src/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-IN-5',
  },
  {
    name: 'leave and re-enter to the root',
    input: '../proj',
    access: 'list',
    expect: { ok: '@S/proj' },
    rule: 'PP-IN-5',
  },
  {
    name: 'write by .. to outside',
    input: '../outside/new.txt',
    access: 'write',
    expect: OUT,
    rule: 'PP-REAL-3',
  },
  {
    name: 'deep .. through missing dirs',
    input: 'a/b/c/../../../../outside/x',
    access: 'write',
    expect: OUT,
    rule: 'PP-IN-5',
  },
  // absolute paths
  { name: 'absolute /etc/passwd', input: '/etc/passwd', access: 'read', expect: OUT, rule: 'PP-MODE-1' },
  { name: 'double-slash absolute', input: '//etc/passwd', access: 'read', expect: OUT, rule: 'PP-MODE-1' },
  {
    name: 'absolute outside file',
    input: '@S/outside/secret.txt',
    access: 'read',
    expect: OUT,
    rule: 'PP-MODE-1',
  },
  {
    name: 'absolute sibling prefix',
    input: '@S/proj-evil/x.txt',
    access: 'write',
    expect: OUT,
    rule: 'PP-REAL-4',
  },
  {
    name: 'absolute root then .. to sibling',
    input: '@S/proj/../proj-evil/x.txt',
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-4',
  },
  {
    name: 'absolute inside',
    input: '@S/proj/src/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-MODE-1',
  },
  {
    name: 'absolute root itself',
    input: '@S/proj',
    access: 'list',
    expect: { ok: '@S/proj' },
    rule: 'PP-REAL-4',
  },
  {
    name: 'absolute new file inside',
    input: '@S/proj/new/file.txt',
    access: 'write',
    expect: { ok: '@S/proj/new/file.txt', exists: false },
    rule: 'PP-REAL-3',
  },
  { name: 'root directory', input: '/', access: 'list', expect: OUT, rule: 'PP-MODE-1' },
  // /proc and /dev magic
  {
    name: '/proc/self/root to /etc',
    input: '/proc/self/root/etc/passwd',
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-2',
  },
  {
    name: '/proc/self/root back into the root',
    input: '/proc/self/root@S/proj/src/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-2',
  },
  {
    name: '/proc/self/root write outside',
    input: '/proc/self/root@S/outside/new.txt',
    access: 'write',
    expect: OUT,
    rule: 'PP-REAL-3',
  },
  {
    name: '/proc/self/cwd',
    input: '/proc/self/cwd/package.json',
    access: 'read',
    expect: OUT,
    rule: 'PP-REAL-2',
  },
  {
    name: '/proc/self/fd/0',
    input: '/proc/self/fd/0',
    access: 'read',
    expect: { refused: true },
    rule: 'PP-REAL-2',
  },
  { name: '/proc/self/environ', input: '/proc/self/environ', access: 'read', expect: OUT, rule: 'PP-REAL-2' },
  { name: '/dev/stdin', input: '/dev/stdin', access: 'read', expect: { refused: true }, rule: 'PP-REAL-2' },
  {
    name: 'dangling link into /proc/self/root',
    input: 'dangling-proc',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  // links pointing outside
  {
    name: 'dir link out, read',
    input: 'out/secret.txt',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  { name: 'dir link out, list', input: 'out', access: 'list', expect: LINK_OUT, rule: 'PP-REAL-5' },
  {
    name: 'dir link out, write new',
    input: 'out/new.txt',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  {
    name: 'absolute dir link out',
    input: 'out-abs/secret.txt',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  { name: 'file link out, write', input: 'out-file', access: 'write', expect: LINK_OUT, rule: 'PP-REAL-5' },
  { name: 'link to /etc', input: 'etc/passwd', access: 'read', expect: LINK_OUT, rule: 'PP-REAL-5' },
  { name: 'link to /', input: 'slash/etc/passwd', access: 'read', expect: LINK_OUT, rule: 'PP-REAL-5' },
  {
    name: 'link to / and back into the root',
    input: 'slash/@s/proj/src/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-8',
  },
  {
    name: 'file link to /etc/passwd, read',
    input: 'passwd',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  {
    name: 'file link to /etc/passwd, write',
    input: 'passwd',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  {
    name: 'link in the middle of the path',
    input: 'sub/mid-out/x/y.txt',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-3',
  },
  {
    name: 'link up two levels',
    input: 'sub/up2/outside/secret.txt',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-5',
  },
  {
    name: 'link to the sibling prefix',
    input: 'evil-sibling/x.txt',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-4',
  },
  // links that stay or come back
  {
    name: 'link inside',
    input: 'in/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-2',
  },
  {
    name: 'absolute link inside',
    input: 'in-abs/a.ts',
    access: 'write',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-2',
  },
  {
    name: 'link up to the root',
    input: 'sub/up/src/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-2',
  },
  {
    name: 'chain leaves and re-enters',
    input: 'via-back/a.ts',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-8',
  },
  {
    name: 'chain leaves and re-enters, new file',
    input: 'via-back/new.ts',
    access: 'write',
    expect: { ok: '@S/proj/src/new.ts', exists: false },
    rule: 'PP-REAL-8',
  },
  {
    name: 'chain leaves and stays out',
    input: 'via-away/far.txt',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-8',
  },
  {
    name: 'chain leaves and stays out, write',
    input: 'via-away/new.txt',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-8',
  },
  {
    name: '.. after a link is textual',
    input: 'sub/up/../outside',
    access: 'write',
    expect: { ok: '@S/proj/sub/outside', exists: false },
    rule: 'PP-IN-5',
  },
  // dangling links for write
  {
    name: 'dangling absolute link out',
    input: 'dangling-out',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling relative link out',
    input: 'dangling-out-rel',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling link out, read',
    input: 'dangling-out',
    access: 'read',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling chain out',
    input: 'dangling-chain',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling directory link out',
    input: 'dangling-dir/x.txt',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling link to the sibling prefix',
    input: 'dangling-evil',
    access: 'write',
    expect: LINK_OUT,
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling link inside',
    input: 'dangling-in',
    access: 'write',
    expect: { ok: '@S/proj/src/created.ts', exists: false },
    rule: 'PP-REAL-6',
  },
  {
    name: 'dangling chain inside',
    input: 'dangling-chain-in',
    access: 'write',
    expect: { ok: '@S/proj/src/created.ts', exists: false },
    rule: 'PP-REAL-6',
  },
  // loops
  { name: 'self loop', input: 'loop', access: 'read', expect: LOOP, rule: 'PP-REAL-7' },
  { name: 'self loop below', input: 'loop/x', access: 'write', expect: LOOP, rule: 'PP-REAL-7' },
  { name: 'two-link loop', input: 'loop-a', access: 'list', expect: LOOP, rule: 'PP-REAL-7' },
  { name: 'dangling loop', input: 'dl-a', access: 'write', expect: LOOP, rule: 'PP-REAL-7' },
  // a root reached through a link
  {
    name: 'linked root, relative',
    input: 'src/a.ts',
    access: 'read',
    policy: 'rootlink',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-1',
  },
  {
    name: 'linked root, alias spelling',
    input: '@S/rootlink/src/a.ts',
    access: 'write',
    policy: 'rootlink',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-REAL-1',
  },
  {
    name: 'linked root, alias then ..',
    input: '@S/rootlink/../outside/secret.txt',
    access: 'read',
    policy: 'rootlink',
    expect: OUT,
    rule: 'PP-REAL-1',
  },
  {
    name: 'linked root, relative ..',
    input: '../outside/secret.txt',
    access: 'read',
    policy: 'rootlink',
    expect: OUT,
    rule: 'PP-REAL-1',
  },
  {
    name: 'linked root, new file by alias',
    input: '@S/rootlink/n.txt',
    access: 'write',
    policy: 'rootlink',
    expect: { ok: '@S/proj/n.txt', exists: false },
    rule: 'PP-REAL-1',
  },
  // several roots
  {
    name: 'second root by ..',
    input: '../outside2/far.txt',
    access: 'read',
    policy: 'two-roots',
    expect: { ok: '@S/outside2/far.txt' },
    rule: 'PP-MODE-2',
  },
  {
    name: 'neither root',
    input: '../outside/secret.txt',
    access: 'read',
    policy: 'two-roots',
    expect: OUT,
    rule: 'PP-MODE-2',
  },
  {
    name: 'link chain into the second root',
    input: 'via-away/far.txt',
    access: 'read',
    policy: 'two-roots',
    expect: { ok: '@S/outside2/far.txt' },
    rule: 'PP-MODE-2',
  },
  // names
  {
    name: '..foo name',
    input: '..foo/bar.txt',
    access: 'read',
    expect: { ok: '@S/proj/..foo/bar.txt' },
    rule: 'PP-REAL-4',
  },
  {
    name: '..foo round trip',
    input: '..foo/../..foo/bar.txt',
    access: 'write',
    expect: { ok: '@S/proj/..foo/bar.txt' },
    rule: 'PP-REAL-4',
  },
  {
    name: 'three dots is a name',
    input: '...',
    access: 'write',
    expect: { ok: '@S/proj/...', exists: false },
    rule: 'PP-REAL-4',
  },
  { name: 'trailing slash', input: 'src/', access: 'list', expect: { ok: '@S/proj/src' }, rule: 'PP-IN-5' },
  {
    name: 'trailing slash and dot',
    input: 'src/./',
    access: 'list',
    expect: { ok: '@S/proj/src' },
    rule: 'PP-IN-5',
  },
  {
    name: 'trailing slash on a file',
    input: 'src/a.ts/',
    access: 'read',
    expect: { ok: '@S/proj/src/a.ts' },
    rule: 'PP-IN-5',
  },
  {
    name: 'trailing dot name is distinct on POSIX',
    input: 'src/a.ts.',
    access: 'write',
    expect: { ok: '@S/proj/src/a.ts.', exists: false },
    rule: 'PP-IN-5',
  },
  {
    name: 'backslashes are name characters on POSIX',
    input: '..\\outside\\secret.txt',
    access: 'write',
    expect: { ok: '@S/proj/..\\outside\\secret.txt', exists: false },
    rule: 'PP-IN-5',
  },
  {
    name: 'URL encoding is not decoded',
    input: '%2e%2e/outside/secret.txt',
    access: 'write',
    expect: { ok: '@S/proj/%2e%2e/outside/secret.txt', exists: false },
    rule: 'PP-IN-5',
  },
  {
    name: 'newline in a name',
    input: 'src/a.ts\n',
    access: 'write',
    expect: { ok: '@S/proj/src/a.ts\n', exists: false },
    rule: 'PP-IN-5',
  },
  {
    name: 'unicode names',
    input: '日本語/ファイル.txt',
    access: 'read',
    expect: { ok: '@S/proj/日本語/ファイル.txt' },
    rule: 'PP-REAL-2',
  },
  {
    name: 'NFD spelling of an NFC directory is another name',
    input: 'cafe\u0301/menu.txt',
    access: 'write',
    expect: { ok: '@S/proj/cafe\u0301/menu.txt', exists: false },
    rule: 'PP-REAL-3',
  },
  {
    name: 'right-to-left override',
    input: 'src/\u202Ets.exe',
    access: 'write',
    expect: { ok: '@S/proj/src/\u202Ets.exe', exists: false },
    rule: 'PP-REAL-3',
  },
  {
    name: 'fullwidth solidus is not a separator',
    input: '..／outside',
    access: 'write',
    expect: { ok: '@S/proj/..／outside', exists: false },
    rule: 'PP-IN-5',
  },
  {
    name: '255-byte name',
    input: `src/${'n'.repeat(255)}`,
    access: 'write',
    expect: { ok: `@S/proj/src/${'n'.repeat(255)}`, exists: false },
    rule: 'PP-IN-4',
  },
  {
    name: '256-byte name',
    input: `src/${'n'.repeat(256)}`,
    access: 'write',
    expect: { code: 'PATH_INVALID', reason: 'name_too_long' },
    rule: 'PP-IN-4',
  },
  {
    name: 'very long path',
    input: 'a/'.repeat(2100),
    access: 'write',
    expect: { code: 'PATH_INVALID', reason: 'too_long' },
    rule: 'PP-IN-4',
  },
  {
    name: 'very long .. chain',
    input: '../'.repeat(1400),
    access: 'read',
    expect: { code: 'PATH_INVALID', reason: 'too_long' },
    rule: 'PP-IN-4',
  },
  {
    name: 'deep missing path',
    input: 'd/'.repeat(300),
    access: 'write',
    expect: { ok: `@S/proj/${'d/'.repeat(299)}d`, exists: false },
    rule: 'PP-REAL-3',
  },
  {
    name: 'NUL splice',
    input: 'src/a.ts\u0000/../../../etc/passwd',
    access: 'read',
    expect: { code: 'PATH_INVALID', reason: 'nul_byte' },
    rule: 'PP-IN-3',
  },
  {
    name: 'tilde home',
    input: '~/.ssh/id_rsa',
    access: 'read',
    expect: { code: 'PATH_INVALID', reason: 'tilde_not_expanded' },
    rule: 'PP-IN-6',
  },
  {
    name: 'tilde user',
    input: '~root/.bashrc',
    access: 'read',
    expect: { code: 'PATH_INVALID', reason: 'tilde_not_expanded' },
    rule: 'PP-IN-6',
  },
  // protected and secret, also through links
  { name: 'write .git/config', input: '.git/config', access: 'write', expect: PROTECTED, rule: 'PP-PROT-1' },
  {
    name: 'write a new hook',
    input: '.git/hooks/pre-commit',
    access: 'write',
    expect: PROTECTED,
    rule: 'PP-PROT-1',
  },
  {
    name: 'write .git through ..',
    input: 'src/../.git/config',
    access: 'write',
    expect: PROTECTED,
    rule: 'PP-PROT-1',
  },
  {
    name: 'write .git through a link',
    input: 'git-config-alias',
    access: 'write',
    expect: PROTECTED,
    rule: 'PP-PROT-5',
  },
  {
    name: 'write .git through the up link',
    input: 'sub/up/.git/config',
    access: 'write',
    expect: PROTECTED,
    rule: 'PP-PROT-5',
  },
  { name: 'read .env', input: '.env', access: 'read', expect: SECRET, rule: 'PP-PROT-2' },
  { name: 'read .env through a link', input: 'env-alias', access: 'read', expect: SECRET, rule: 'PP-PROT-5' },
  { name: 'read a link named .env', input: 'src/.env', access: 'read', expect: SECRET, rule: 'PP-PROT-5' },
  {
    name: 'read nested .env.local',
    input: 'config/.env.local',
    access: 'read',
    expect: SECRET,
    rule: 'PP-PROT-2',
  },
  { name: 'read a pem key', input: 'keys/server.pem', access: 'read', expect: SECRET, rule: 'PP-PROT-2' },
  { name: 'read id_rsa', input: 'home/.ssh/id_rsa', access: 'read', expect: SECRET, rule: 'PP-PROT-2' },
  {
    name: 'read .env.example',
    input: '.env.example',
    access: 'read',
    expect: { ok: '@S/proj/.env.example' },
    rule: 'PP-PROT-2',
  },
];

/** Files, directories and links outside the roots, by lstat only (nothing is followed). */
function snapshotOutside(S: string, skip: readonly string[]): Map<string, string> {
  const entries = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (skip.includes(full)) continue;
      const stats = lstatSync(full);
      if (stats.isSymbolicLink()) entries.set(full, `link:${readlinkSync(full)}`);
      else if (stats.isDirectory()) {
        entries.set(full, 'dir');
        walk(full);
      } else entries.set(full, `file:${readFileSync(full, 'utf8')}`);
    }
  };
  walk(S);
  return entries;
}

/** A writer that follows the contract: verify, create parents, verify again, open without following. */
function writeLikeTheWriter(policy: PathPolicy, target: string): void {
  const first = policy.verifyWriteTarget(target);
  assert.ok(first.ok, `verifyWriteTarget refused a fresh path: ${!first.ok && first.error.message}`);
  mkdirSync(path.dirname(target), { recursive: true });
  const second = policy.verifyWriteTarget(target);
  assert.ok(second.ok);
  const flags =
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    (second.exists ? constants.O_TRUNC : constants.O_EXCL);
  const descriptor = openSync(target, flags, 0o644);
  try {
    writeSync(descriptor, 'written by the corpus');
  } finally {
    closeSync(descriptor);
  }
}

describe('PathPolicy attack corpus (PP-ATTACK-1)', () => {
  const sandbox = useSandbox();

  it('has at least 60 cases', () => {
    assert.ok(corpus.length >= 60, `${corpus.length} cases`);
  });

  for (const entry of corpus) {
    it(`${entry.expect && 'ok' in entry.expect ? 'allows' : 'refuses'} ${entry.name}: ${JSON.stringify(entry.input).slice(0, 60)} for ${entry.access} (${entry.rule})`, () => {
      const S = sandbox.dir;
      const fill = (text: string) => text.replaceAll('@S', S).replaceAll('@s', S.slice(1));
      buildTree(S, tree(S));
      const root = path.join(S, 'proj');
      const policy =
        entry.policy === 'rootlink'
          ? createPathPolicy({ mode: 'current_project', root: path.join(S, 'rootlink') })
          : entry.policy === 'two-roots'
            ? createPathPolicy({ mode: 'allowed_roots', allowedRoots: [root, path.join(S, 'outside2')] })
            : createPathPolicy({ mode: 'current_project', root });
      const roots = policy.roots;
      const before = snapshotOutside(S, roots);

      const result = policy.resolve(fill(entry.input), { access: entry.access });

      if ('ok' in entry.expect) {
        assert.ok(
          result.ok,
          `expected ok, got ${!result.ok && `${result.error.code}: ${result.error.message}`}`,
        );
        assert.equal(result.path, fill(entry.expect.ok));
        if (entry.expect.exists !== undefined) assert.equal(result.exists, entry.expect.exists);
        // Independent oracle: a string prefix check on a root, plus the file system's own answer.
        assert.ok(
          roots.some((r) => result.path === r || result.path.startsWith(`${r}/`)),
          `escape: ${result.path}`,
        );
        if (result.exists) assert.equal(lstatSync(result.path).isSymbolicLink(), false);
        if (entry.access === 'write') writeLikeTheWriter(policy, result.path);
      } else if ('refused' in entry.expect) {
        assert.equal(result.ok, false, `expected a refusal, got ${result.ok && result.path}`);
      } else {
        assert.equal(result.ok, false, `expected ${entry.expect.code}, got ${result.ok && result.path}`);
        assert.equal(!result.ok && result.error.code, entry.expect.code);
        if (entry.expect.reason) assert.equal(!result.ok && result.error.reason, entry.expect.reason);
      }
      // Zero escapes: nothing outside the roots appeared, vanished or changed.
      assert.deepEqual(snapshotOutside(S, roots), before);
    });
  }
});

// PP-ATTACK-2: the same promise under check-then-use races. A separate process exchanges a directory
// (or a file) with a symbolic link (renameat2 RENAME_EXCHANGE) in a tight loop while a writer that
// follows the contract (resolve, pinTarget, system calls on `pin.path` with O_NOFOLLOW on the last
// name, verify before and after a commit) works below it. Every round must stay inside or be refused.

interface RaceCase {
  readonly name: string;
  /** Extra tree below the sandbox (`proj/...`, `outside/...`). */
  readonly tree: TreeSpec;
  /** The two names the swapper exchanges, relative to the sandbox. */
  readonly swap: readonly [string, string];
  /** What one round does. */
  readonly operation: 'read' | 'create' | 'create-parents' | 'replace';
  /** The input, relative to the project; `#` is replaced by the round number. */
  readonly input: string;
  /** Directories that must be exactly as they were afterwards, relative to the sandbox. */
  readonly untouched: readonly string[];
  readonly rule: string;
}

const RACE_ROUNDS = 5_000;
const raceCorpus: RaceCase[] = [
  {
    name: 'a read below a directory swapped with a link to an outside directory',
    tree: { 'proj/d/file.txt': 'inside', 'outside/file.txt': 'OUTSIDE', 'proj/l': { link: '../outside' } },
    swap: ['proj/d', 'proj/l'],
    operation: 'read',
    input: 'd/file.txt',
    untouched: ['outside'],
    rule: 'PP-PIN-1, PP-PIN-2',
  },
  {
    name: 'a read two directories down, the inner one swapped',
    tree: {
      'proj/d/sub/file.txt': 'inside',
      'outside/file.txt': 'OUTSIDE',
      'proj/d/l': { link: '../../outside' },
    },
    swap: ['proj/d/sub', 'proj/d/l'],
    operation: 'read',
    input: 'd/sub/file.txt',
    untouched: ['outside'],
    rule: 'PP-PIN-1, PP-PIN-2',
  },
  {
    name: 'a read below a directory swapped with a link to a secret directory inside the root',
    // `OUTSIDE` marks what must never be read: here the content of a secret directory (PP-PROT-6).
    tree: {
      'proj/d/file.txt': 'inside',
      'proj/certs.key/file.txt': 'OUTSIDE',
      'proj/l': { link: 'certs.key' },
    },
    swap: ['proj/d', 'proj/l'],
    operation: 'read',
    input: 'd/file.txt',
    untouched: ['proj/certs.key'],
    rule: 'PP-PIN-1, PP-PROT-6',
  },
  {
    name: 'a read of a file swapped with a link to an outside file',
    tree: {
      'proj/d/file.txt': 'inside',
      'outside/file.txt': 'OUTSIDE',
      'proj/d/l': { link: '../../outside/file.txt' },
    },
    swap: ['proj/d/file.txt', 'proj/d/l'],
    operation: 'read',
    input: 'd/file.txt',
    untouched: ['outside'],
    rule: 'PP-PIN-2 (O_NOFOLLOW on the last name)',
  },
  {
    name: 'an exclusive create below a directory swapped with a link to an outside directory',
    tree: { 'proj/d/keep.txt': 'inside', 'outside/keep.txt': 'OUTSIDE', 'proj/l': { link: '../outside' } },
    swap: ['proj/d', 'proj/l'],
    operation: 'create',
    input: 'd/new-#.txt',
    untouched: ['outside'],
    rule: 'PP-PIN-2',
  },
  {
    name: 'a create with missing parents below a swapped directory',
    tree: { 'proj/d/keep.txt': 'inside', 'outside/keep.txt': 'OUTSIDE', 'proj/l': { link: '../outside' } },
    swap: ['proj/d', 'proj/l'],
    operation: 'create-parents',
    input: 'd/n#/deeper/new.txt',
    untouched: ['outside'],
    rule: 'PP-PIN-4',
  },
  {
    name: 'a replace below a directory swapped with a link to .git',
    tree: { 'proj/d/config': '[core]', 'proj/.git/config': '[core]', 'proj/l': { link: '.git' } },
    swap: ['proj/d', 'proj/l'],
    operation: 'replace',
    input: 'd/config',
    untouched: ['proj/.git'],
    rule: 'PP-PIN-2, PP-PIN-3, PP-PROT-1',
  },
];

/** Entries below a directory with identity and content stamps (links not followed). */
function treeStamp(directory: string): Map<string, string> {
  const stamps = new Map<string, string>();
  for (const name of readdirSync(directory, { recursive: true })) {
    const stats = lstatSync(path.join(directory, String(name)), { bigint: true });
    stamps.set(String(name), `${stats.ino}:${stats.size}:${stats.mtimeNs}`);
  }
  return stamps;
}

/** One round of a writer that follows the contract; returns 'ok' or the refusal's code. */
function raceRound(policy: PathPolicy, entry: RaceCase, round: number): string {
  const input = entry.input.replaceAll('#', String(round));
  const access = entry.operation === 'read' ? 'read' : 'write';
  const resolved = policy.resolve(input, { access });
  if (!resolved.ok) return resolved.error.code;
  const pinned = policy.pinTarget(resolved.path, {
    access,
    createParents: entry.operation === 'create-parents',
  });
  if (!pinned.ok) return pinned.error.code;
  const pin = pinned.value;
  try {
    if (entry.operation === 'read') {
      let content: string;
      try {
        content = readFileSync(openSync(pin.path, constants.O_RDONLY | constants.O_NOFOLLOW), 'utf8');
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? 'EIO';
      }
      const still = pin.verify();
      if (!still.ok) return still.error.code;
      assert.notEqual(content, 'OUTSIDE', `round ${round}: read the outside file`);
      return 'ok';
    }
    const temp = pin.sibling(`.tmp-${process.pid}-${round}`);
    const descriptor = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    writeSync(descriptor, `round ${round}`);
    closeSync(descriptor);
    try {
      const before = pin.verify();
      if (!before.ok) return before.error.code;
      if (entry.operation === 'replace') renameSync(temp, pin.path);
      else linkSync(temp, pin.path);
      const after = pin.verify();
      if (!after.ok) {
        if (entry.operation !== 'replace') unlinkSync(pin.path);
        return after.error.code;
      }
      return 'ok';
    } finally {
      rmSync(temp, { force: true });
    }
  } finally {
    pin.close();
  }
}

describe('PathPolicy attack corpus: races against a swapping process (PP-ATTACK-2)', {
  skip: swapperUnavailable(),
}, () => {
  const sandbox = useSandbox();
  for (const entry of raceCorpus) {
    it(`stays inside for ${entry.name} over ${RACE_ROUNDS} rounds (${entry.rule})`, {
      timeout: 300_000,
    }, async (t) => {
      const S = sandbox.dir;
      buildTree(S, { 'proj/.git/HEAD': 'ref', 'outside/.keep': '', ...entry.tree });
      const policy = createPathPolicy({ mode: 'current_project', root: path.join(S, 'proj') });
      const before = entry.untouched.map((directory) => treeStamp(path.join(S, directory)));
      const outcomes = new Map<string, number>();
      const swapper = await startSwapper(path.join(S, entry.swap[0]), path.join(S, entry.swap[1]));
      try {
        for (let round = 0; round < RACE_ROUNDS; round += 1) {
          const outcome = raceRound(policy, entry, round);
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      } finally {
        t.diagnostic(`${await swapper.stop()} exchanges; ${JSON.stringify(Object.fromEntries(outcomes))}`);
      }
      assert.deepEqual(
        entry.untouched.map((directory) => treeStamp(path.join(S, directory))),
        before,
        'something outside the allowed places appeared, vanished or changed',
      );
      assert.ok((outcomes.get('ok') ?? 0) > 0, 'no round succeeded: the race proves nothing');
      assert.ok(outcomes.size > 1, 'no round was refused: the swap never raced');
    });
  }
});
