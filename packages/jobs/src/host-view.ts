import {
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';

/**
 * Top-level directories of the host that a sandboxed command sees, read-only: programs, libraries and
 * system configuration. Everything else at the top level (`/home`, `/root`, `/srv`, `/mnt`, `/media`,
 * `/var`, `/run`, `/work`, `/data`, ...) is left out, so another project's `.env` or a user's files
 * cannot be found by walking the disk (requirement SB-9). Entries that are symbolic links on the host
 * (`/bin -> usr/bin` on a merged-/usr system) are re-created as the same links.
 */
export const SYSTEM_DIRECTORIES: readonly string[] = Object.freeze([
  'usr',
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'etc',
  'opt',
  'sys',
  'nix',
  'snap',
  'gnu',
]);

/**
 * Toolchain directories under the home directory, shown read-only when they exist: language runtimes
 * and version managers (pyenv, rustup/cargo, nvm, volta, fnm, bun, deno, asdf, sdkman, rbenv, go),
 * user-level binaries and libraries (`~/.local/bin`, `~/.local/lib`), pnpm's home and package caches
 * (`~/.cache`, where Playwright and Cypress keep their browsers). The rest of the home directory is an
 * empty, read-only directory inside the sandbox (SB-9).
 */
export const HOME_TOOLCHAIN_DIRECTORIES: readonly string[] = Object.freeze([
  '.pyenv',
  '.cargo',
  '.rustup',
  '.nvm',
  '.volta',
  '.fnm',
  '.bun',
  '.deno',
  '.asdf',
  '.sdkman',
  '.rbenv',
  '.goenv',
  '.elan',
  '.ghcup',
  '.opam',
  '.local/bin',
  '.local/lib',
  '.local/share/pnpm',
  '.local/share/fnm',
  '.npm-global',
  '.cache',
  'go',
]);

/**
 * Credential stores under the home directory (requirement SB-10): never readable inside the sandbox,
 * wherever they would otherwise be visible (a root that contains the home directory, a toolchain
 * directory, a readable root), unless a readable root names the store itself or a path inside it.
 */
export const HOME_CREDENTIAL_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.aws',
  '.gnupg',
  '.azure',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.git-credentials',
  '.gitconfig',
  '.config/git/credentials',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
  '.config/rclone',
  '.config/doctl',
  '.config/configstore',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/Code/User/globalStorage',
  '.password-store',
  '.local/share/keyrings',
  '.local/share/password-store',
  '.mozilla',
  '.thunderbird',
  '.pki',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.gem/credentials',
  '.cache/huggingface/token',
  '.huggingface/token',
  '.pgpass',
  '.my.cnf',
  '.boto',
  '.s3cfg',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
]);

/**
 * Secrets of the system configuration (SB-10): password hashes, host private keys, TLS private keys,
 * Kerberos keytabs, stored Wi-Fi and VPN credentials. `/etc/ssh/ssh_host_*_key` are found by listing
 * `/etc/ssh`.
 */
export const SYSTEM_SECRET_PATHS: readonly string[] = Object.freeze([
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/ssl/private',
  '/etc/pki/tls/private',
  '/etc/letsencrypt',
  '/etc/krb5.keytab',
  '/etc/ipsec.secrets',
  '/etc/ppp/chap-secrets',
  '/etc/ppp/pap-secrets',
  '/etc/NetworkManager/system-connections',
  '/etc/wpa_supplicant',
  '/etc/mysql/debian.cnf',
  '/etc/docker/key.json',
  '/etc/cups/ssl',
]);

/** One mount of the host view, in the order bubblewrap applies them. */
export type HostViewMount =
  | { readonly kind: 'symlink'; readonly target: string; readonly path: string }
  | { readonly kind: 'ro-bind'; readonly source: string; readonly path: string }
  | { readonly kind: 'bind'; readonly source: string; readonly path: string }
  | { readonly kind: 'dir'; readonly path: string };

/** Options of {@link planHostView}. */
export interface HostViewOptions {
  /** The user's home directory (a real path), or undefined when there is none worth showing. */
  readonly home: string | undefined;
  /** Real paths the user chose to show read-only (files, directories or sockets). */
  readonly readableRoots: readonly string[];
  /** Real paths of the roots (shown by the caller; credential stores inside them are hidden too). */
  readonly roots: readonly string[];
  /**
   * Real directories the user made writable (`writableRoots`): bound writable when `writable` is
   * set (`workspace_write`), read-only otherwise. Unlike readable roots they expose nothing on
   * purpose: credential stores inside them stay covered. Default `[]`.
   */
  readonly writableRoots?: readonly string[];
  /** Bind the writable roots writable. Default false. */
  readonly writable?: boolean;
  /** The file system root to read the host from. Default `/` (tests only). */
  readonly hostRoot?: string;
}

/**
 * What a sandboxed command sees of the host outside its roots, and what is covered inside that view.
 * Computed once per job manager (the layout of a host changes rarely); {@link listVisibleSockets}
 * adds the sockets at each start.
 */
export interface HostView {
  /** System directories, the home directory's toolchains and the readable roots, in mount order. */
  readonly mounts: readonly HostViewMount[];
  /** Trees visible read-only (system, toolchains, readable roots), for visibility checks. */
  readonly visibleTrees: readonly string[];
  /** Credential and system secret files to cover with an empty file. */
  readonly hiddenFiles: readonly string[];
  /** Credential and system secret directories to cover with an empty read-only directory. */
  readonly hiddenDirectories: readonly string[];
  /**
   * Paths the user exposed explicitly (the readable roots that exist): never covered, and bound again
   * after the covers when they lie inside a covered store (`~/.ssh/known_hosts` under a hidden
   * `~/.ssh`). A socket named here stays reachable.
   */
  readonly exposed: readonly string[];
}

function isInside(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || child.startsWith(`${parent}/`);
}

function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}

function depthOf(target: string): number {
  return target.split('/').length;
}

function kindOf(target: string): 'directory' | 'file' | undefined {
  // Follows links: a credential store may be a link into another tree.
  try {
    const stats = statSync(target);
    if (stats.isDirectory()) return 'directory';
    return 'file';
  } catch {
    return undefined;
  }
}

/**
 * Plans the host view of the sandbox (requirements SB-9, SB-10): the system directories read-only
 * (links re-created), an empty read-only home directory holding only its toolchain directories, the
 * readable roots, and the credential stores and system secrets covered wherever they would be
 * visible. Targets of the links at the top of `/etc` that leave the system trees (`/etc/resolv.conf`
 * into `/run`) are bound where they point, when they are regular files, so name resolution keeps
 * working while `/run` and its sockets stay hidden.
 */
export function planHostView(options: HostViewOptions): HostView {
  const hostRoot = options.hostRoot ?? '/';
  const mounts: HostViewMount[] = [];
  const visibleTrees: string[] = [];
  for (const name of SYSTEM_DIRECTORIES) {
    const hostPath = path.join(hostRoot, name);
    const stats = lstatOrUndefined(hostPath);
    if (!stats) continue;
    const sandboxPath = `/${name}`;
    if (stats.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(hostPath);
      } catch {
        continue;
      }
      mounts.push({ kind: 'symlink', target, path: sandboxPath });
      continue;
    }
    if (!stats.isDirectory()) continue;
    mounts.push({ kind: 'ro-bind', source: hostPath, path: sandboxPath });
    visibleTrees.push(sandboxPath);
  }
  // Links at the top of /etc pointing out of the visible trees: bind their regular-file targets.
  const etc = path.join(hostRoot, 'etc');
  let etcNames: string[] = [];
  try {
    etcNames = readdirSync(etc);
  } catch {
    etcNames = [];
  }
  for (const name of etcNames) {
    const link = path.join(etc, name);
    const stats = lstatOrUndefined(link);
    if (!stats?.isSymbolicLink()) continue;
    let target: string;
    try {
      target = realpathSync.native(link);
    } catch {
      continue;
    }
    const relative = hostRoot === '/' ? target : `/${path.relative(hostRoot, target)}`;
    if (visibleTrees.some((tree) => isInside(tree, relative))) continue;
    // `/etc/mtab -> /proc/self/mounts` and the like: the sandbox has its own /proc and /dev.
    if (['/proc', '/dev', '/sys'].some((tree) => isInside(tree, relative))) continue;
    try {
      if (!statSync(target).isFile()) continue;
    } catch {
      continue;
    }
    mounts.push({ kind: 'ro-bind', source: target, path: relative });
  }
  // Empty, read-only stand-ins: `/run` and `/var` hold the host's sockets, logs and daemons' data.
  mounts.push({ kind: 'dir', path: '/run' });
  mounts.push({ kind: 'dir', path: '/var' });
  mounts.push({ kind: 'symlink', target: '../run', path: '/var/run' });

  const home = options.home;
  const showHome = home !== undefined && home !== '/' && !visibleTrees.some((tree) => isInside(tree, home));
  if (showHome) {
    mounts.push({ kind: 'dir', path: home });
    for (const relative of HOME_TOOLCHAIN_DIRECTORIES) {
      const target = path.join(home, relative);
      if (kindOf(target) !== 'directory') continue;
      mounts.push({ kind: 'ro-bind', source: target, path: target });
      visibleTrees.push(target);
    }
  }
  const exposed: string[] = [];
  // Readable and writable roots are bound shallowest first, so one inside another wins where it lies
  // (a writable cache inside a readable tree stays writable); at the same path the writable one wins.
  const extra: Array<{ path: string; writable: boolean }> = [];
  for (const readable of options.readableRoots) {
    if (!lstatOrUndefined(readable)) continue;
    extra.push({ path: readable, writable: false });
    exposed.push(readable);
  }
  for (const writable of options.writableRoots ?? []) {
    if (kindOf(writable) !== 'directory') continue;
    extra.push({ path: writable, writable: true });
  }
  extra.sort((a, b) => depthOf(a.path) - depthOf(b.path) || Number(a.writable) - Number(b.writable));
  for (const entry of extra) {
    const kind = entry.writable && options.writable === true ? 'bind' : 'ro-bind';
    mounts.push({ kind, source: entry.path, path: entry.path });
    if (!visibleTrees.includes(entry.path)) visibleTrees.push(entry.path);
  }

  const hiddenFiles = new Set<string>();
  const hiddenDirectories = new Set<string>();
  const seenAnywhere = [...visibleTrees, ...options.roots];
  const cover = (target: string) => {
    if (!seenAnywhere.some((tree) => isInside(tree, target))) return;
    // A readable root that names the store (or a tree around it) shows it on purpose; one inside a
    // store is bound again after the cover (see `exposed`).
    if (exposed.some((entry) => isInside(entry, target))) return;
    const kind = kindOf(target);
    if (kind === 'directory') hiddenDirectories.add(target);
    else if (kind === 'file') hiddenFiles.add(target);
  };
  if (home !== undefined) for (const relative of HOME_CREDENTIAL_PATHS) cover(path.join(home, relative));
  const systemSecrets = [...SYSTEM_SECRET_PATHS];
  try {
    for (const name of readdirSync(path.join(hostRoot, 'etc', 'ssh'))) {
      if (/^ssh_host_.*_key$/.test(name)) systemSecrets.push(`/etc/ssh/${name}`);
    }
  } catch {
    // no /etc/ssh
  }
  for (const secret of systemSecrets) {
    const hostPath = hostRoot === '/' ? secret : path.join(hostRoot, secret);
    const kind = kindOf(hostPath);
    if (kind === 'directory') hiddenDirectories.add(secret);
    else if (kind === 'file') hiddenFiles.add(secret);
  }
  return {
    mounts,
    visibleTrees,
    hiddenFiles: [...hiddenFiles].sort(),
    hiddenDirectories: [...hiddenDirectories].sort(),
    exposed,
  };
}

/**
 * The pathname unix sockets of this network namespace (from `/proc/net/unix`) that would be
 * reachable inside the sandbox: inside a visible tree, outside the roots, not exposed on purpose, and
 * still a socket on disk (requirement SB-11). The sandbox binds `/dev/null` over each, so `connect(2)`
 * fails, which a read-only bind alone does not achieve.
 */
export function listVisibleSockets(view: HostView, roots: readonly string[]): string[] {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'latin1');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const line of table.split('\n')) {
    // "Num RefCount Protocol Flags Type St Inode Path": the path (if any) is the eighth field and may
    // contain spaces; abstract sockets start with '@' and live in the network namespace.
    const match = /^\s*\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\/.*)$/.exec(line);
    if (!match) continue;
    const socket = match[1]!;
    if (found.has(socket)) continue;
    if (roots.some((root) => isInside(root, socket))) continue;
    if (view.exposed.includes(socket)) continue;
    if (!view.visibleTrees.some((tree) => isInside(tree, socket))) continue;
    if (view.hiddenDirectories.some((hidden) => isInside(hidden, socket))) continue;
    const stats = lstatOrUndefined(socket);
    if (stats?.isSocket()) found.add(socket);
  }
  return [...found].sort();
}
