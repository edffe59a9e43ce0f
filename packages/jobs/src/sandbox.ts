import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type BubblewrapLayout,
  buildBubblewrapArguments,
  findBubblewrap,
  probeBubblewrap,
} from './bubblewrap.js';
import { containCommand, containResolvedCommand, resolveExecutable } from './containment.js';
import { giveOwnerPermissions } from './owner-permissions.js';
import {
  HOME_CREDENTIAL_PATHS,
  type HostView,
  listVisibleSockets,
  planHostView,
  SYSTEM_SECRET_PATHS,
} from './host-view.js';
import { closingDescriptors, closingScript, listInheritedDescriptors } from './inherited-descriptors.js';
import type { JobError } from './job-error.js';
import type { PlaceholderRecord } from './job-registry.js';
import { type EntryIdentity, ProtectedPathIndex } from './protected-path-index.js';
import { ALWAYS_PROTECTED_NAMES } from './protected-paths.js';
import { removeTree } from './remove-tree.js';
import { buildSeatbeltProfile } from './seatbelt.js';
import type { ShellInvocation } from './shell-invocation.js';

/**
 * The run's sandbox mode (the DESIGN.md run policy):
 * - `read_only`: the whole file system read-only (a private `/tmp`), no network;
 * - `workspace_write`: as `read_only`, plus the roots writable except their protected paths;
 *   network only when `network` is set;
 * - `danger_full_access`: no OS sandbox; the plain shell.
 */
export type SandboxMode = 'read_only' | 'workspace_write' | 'danger_full_access';

/** The OS sandbox settings a host gives its job manager. */
export interface SandboxOptions {
  readonly mode: SandboxMode;
  /** Real absolute paths of the roots (the project first). */
  readonly roots: readonly string[];
  /**
   * Protected paths: never writable inside the sandbox, existing or not. Patterns in the path-policy
   * syntax (`.git/**`, `/config/`, `*.lock`) or absolute paths inside a root. `.git` and `.toolhost`
   * under every root are always protected. Default `[]`.
   */
  readonly protectedPaths?: readonly string[];
  /**
   * Secret paths: covered by an empty placeholder inside the sandbox, so `cat .env` reads nothing.
   * Same syntax as `protectedPaths`. Default `[]` (the host passes its path policy's secret patterns).
   */
  readonly secretPaths?: readonly string[];
  /**
   * Absolute directories outside the roots that no sandboxed command may read or list (the host's
   * user configuration directory: its sign-in tokens and trust store). Covered by an empty read-only
   * tmpfs (bubblewrap) when they exist as a job starts, denied by path (Seatbelt) always. One that
   * contains a root, or lies inside one (secret patterns cover those), is ignored. Default `[]`.
   */
  readonly hiddenDirectories?: readonly string[];
  /** Allow network access in `workspace_write` (never in `read_only`). Default false. */
  readonly network?: boolean;
  /** The platform to build the sandbox for. Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** The bubblewrap executable. Default `/usr/bin/bwrap`, else `bwrap` on PATH. */
  readonly bubblewrapPath?: string;
  /** Compare protected names case-sensitively. Default true except on macOS and Windows. */
  readonly caseSensitive?: boolean;
  /**
   * Absolute paths outside the roots to show read-only inside the sandbox (requirement SB-9):
   * directories, files or sockets, for example `~/.ssh` for `git fetch` over SSH, or the SSH agent's
   * socket (pass `SSH_AUTH_SOCK` through `environment.pass` too). Naming a credential store (or a path
   * inside one) is the only way to show it. Paths that do not exist are left out. Default `[]`.
   */
  readonly readableRoots?: readonly string[];
  /** The home directory whose toolchains are shown and credential stores hidden. Default `os.homedir()`. */
  readonly home?: string;
  /**
   * Directory entries the listing of protected and secret paths may read (`node_modules` is not
   * entered). Past it, commands are refused with `SANDBOX_PLAN_INCOMPLETE` (SB-12). Default 200 000.
   */
  readonly maxPlanEntries?: number;
  /**
   * Absolute paths of directories outside the roots that commands may write in `workspace_write`
   * (shown read-only in `read_only`), such as a build cache (requirement SB-15). Not walked for
   * protected or secret patterns (caches are large): only their own `.git` and `.toolhost` are bound
   * read-only, and credential stores inside them stay covered. Refused with a `TypeError`: `/`, the
   * home directory or a directory above it, one that contains a root, and one inside a credential
   * store or a system secret. One inside a root is left out (the root is writable already), and so
   * is one that does not exist. Default `[]`.
   */
  readonly writableRoots?: readonly string[];
  /**
   * One private `/tmp` for all of the manager's commands (requirement SB-16): a directory of mode
   * 0700 under the state directory, bound as `/tmp` (on macOS: `TMPDIR`) for every command, kept
   * across them and removed by `close()` (or, after a crash, by the next manager over the same state
   * directory). Default false: every command gets a new, empty `/tmp`.
   */
  readonly persistentTmp?: boolean;
}

/** A command wrapped for its sandbox, ready to spawn. */
export interface SandboxedLaunch {
  readonly file: string;
  readonly args: readonly string[];
  /** Variables the sandbox needs (`TMPDIR` of its private temporary directory). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether an OS sandbox wraps the command (false only in `danger_full_access`). */
  readonly sandboxed: boolean;
  /** Whether a pid namespace holds the command's processes (SB-6, JOB-TREE-5). */
  readonly contained: boolean;
  /** Why the command is not contained, when it is not. */
  readonly containment?: string;
  /** What the sandbox bound read-only for this job: the check after it compares against this. */
  readonly guard?: JobGuard;
  /**
   * bubblewrap writes its info JSON (the `child-pid` of the namespace's init) to fd 3: the job manager
   * gives the child a pipe there and waits for that init to be gone after the job.
   */
  readonly infoFd?: boolean;
  /** Process names of the sandbox's own helpers (spared by the polite SIGTERM round of a kill). */
  readonly helperNames: readonly string[];
  /** Facts worth showing (for example that the protected-path walk was truncated). */
  readonly notes: readonly string[];
  /** Removes what the launch created (a per-job temporary directory). Idempotent. */
  readonly release: () => void;
}

/**
 * The protected paths one `workspace_write` job could not write: those bound read-only (or reserved)
 * when it started, and the identity of the protected links it saw.
 */
export interface JobGuard {
  readonly bound: ReadonlySet<string>;
  readonly unbound: ReadonlyMap<string, EntryIdentity>;
}

/** A finished `workspace_write` job, as {@link Sandbox.checkAfterJob} needs it. */
export interface JobWindow {
  readonly id: string;
  readonly guard: JobGuard | undefined;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number;
}

/** One protected entry a job left behind, moved out of the roots. */
export interface QuarantinedEntry {
  /** Where it was. */
  readonly path: string;
  /** Where it is now; undefined when it could not be moved (`reason` says why). */
  readonly movedTo?: string;
  readonly reason?: string;
}

/** Per-manager sandbox state: the probe result, the placeholders it created. */
export interface Sandbox {
  readonly mode: SandboxMode;
  readonly network: boolean;
  readonly roots: readonly string[];
  readonly platform: NodeJS.Platform;
  /** Wraps a shell invocation for the sandbox, or explains why it cannot (`SANDBOX_UNAVAILABLE`). */
  wrap(
    invocation: ShellInvocation,
    cwd: string,
    /** The PATH the shell is looked up on (the job's). Default `process.env.PATH`. */
    searchPath?: string,
  ): Promise<{ ok: true; value: SandboxedLaunch } | { ok: false; error: JobError }>;
  /**
   * The check after a `workspace_write` job (SB-13): refreshes the protected-path index (a refresh that
   * starts after this call) and moves every protected entry the job could have written, because it
   * was not bound read-only for it, into `<stateDir>/quarantine`, so no git run outside the sandbox
   * uses a `.git` the command made. Entries whose change time is later than `endedAt` were made after
   * the job and are left, and so are entries in which nothing (the entry or anything below it) changed
   * since the job started: someone made them outside before the index caught up. Returns what was
   * moved (or could not be).
   */
  checkAfterJob(job: JobWindow): Promise<QuarantinedEntry[]>;
  /** {@link Sandbox.checkAfterJob}, synchronously (for the host's exit hook). */
  checkAfterJobSync(job: JobWindow): QuarantinedEntry[];
  /** Starts a refresh of the protected-path index in the background (outside changes), if one is due. */
  refreshSoon(): void;
  /** Placeholders this manager created and still owns. */
  placeholders(): readonly PlaceholderRecord[];
  /** The manager's private `/tmp` on the host, once a command has used it (`persistentTmp`). */
  tmpDirectory(): string | undefined;
  /**
   * Removes this manager's placeholders (those still empty and not used by another live host) and its
   * private `/tmp`.
   */
  dispose(inUseByOthers: ReadonlySet<string>): void;
}

/** Validates the options and realpaths the roots; throws a `TypeError` for a misconfiguration. */
export function normalizeSandboxOptions(options: SandboxOptions): Required<
  Omit<SandboxOptions, 'bubblewrapPath' | 'home'>
> & {
  bubblewrapPath: string | undefined;
  home: string | undefined;
} {
  const modes: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
  if (!options || !modes.includes(options.mode)) {
    throw new TypeError(`jobs: sandbox.mode must be one of ${modes.join(', ')}`);
  }
  if (!Array.isArray(options.roots))
    throw new TypeError('jobs: sandbox.roots must be an array of real paths');
  const roots = options.roots.map((root) => {
    if (typeof root !== 'string' || !path.isAbsolute(root)) {
      throw new TypeError('jobs: every sandbox root must be an absolute path');
    }
    let real: string;
    try {
      real = realpathSync.native(root);
    } catch (error) {
      throw new TypeError(`jobs: sandbox root ${JSON.stringify(root)} does not exist`, { cause: error });
    }
    if (!statSync(real).isDirectory())
      throw new TypeError(`jobs: sandbox root ${JSON.stringify(root)} is not a directory`);
    return real;
  });
  const platform = options.platform ?? process.platform;
  if (options.readableRoots !== undefined && !Array.isArray(options.readableRoots)) {
    throw new TypeError('jobs: sandbox.readableRoots must be an array of absolute paths');
  }
  const readableRoots: string[] = [];
  for (const entry of options.readableRoots ?? []) {
    if (typeof entry !== 'string' || !path.isAbsolute(entry)) {
      throw new TypeError('jobs: every sandbox readable root must be an absolute path');
    }
    let real: string;
    try {
      real = realpathSync.native(entry);
    } catch {
      continue;
    }
    if (real !== '/' && !readableRoots.includes(real)) readableRoots.push(real);
  }
  const maxPlanEntries = options.maxPlanEntries ?? 200_000;
  if (!Number.isInteger(maxPlanEntries) || maxPlanEntries < 1) {
    throw new TypeError('jobs: sandbox.maxPlanEntries must be a positive integer');
  }
  let home: string | undefined;
  try {
    home = realpathSync.native(options.home ?? os.homedir());
  } catch {
    home = undefined;
  }
  const writableRoots = normalizeWritableRoots(options.writableRoots, roots, home);
  if (options.persistentTmp !== undefined && typeof options.persistentTmp !== 'boolean') {
    throw new TypeError('jobs: sandbox.persistentTmp must be true or false');
  }
  return {
    mode: options.mode,
    roots: [...new Set(roots)],
    readableRoots,
    writableRoots,
    persistentTmp: options.persistentTmp === true,
    home,
    maxPlanEntries,
    protectedPaths: [...(options.protectedPaths ?? [])],
    secretPaths: [...(options.secretPaths ?? [])],
    hiddenDirectories: (options.hiddenDirectories ?? []).filter((directory) => {
      if (typeof directory !== 'string' || !path.isAbsolute(directory)) {
        throw new TypeError('jobs: every sandbox hidden directory must be an absolute path');
      }
      const resolved = path.resolve(directory);
      return !roots.some((root) => isInside(root, resolved) || isInside(resolved, root));
    }),
    network: options.mode === 'read_only' ? false : options.network === true,
    platform,
    bubblewrapPath: options.bubblewrapPath,
    caseSensitive: options.caseSensitive ?? !(platform === 'darwin' || platform === 'win32'),
  };
}

/**
 * Checks the writable roots (SB-15) and returns their real paths: each must be an absolute path; one
 * that does not exist, is not a directory or lies inside a root is left out. Refused with a
 * `TypeError` naming the entry (never its value): `/`, the home directory or a directory above it
 * (its dotfiles run outside the sandbox), a directory containing a root (it would expose the root's
 * protected paths to renames and replacement), and anything inside a credential store or a system
 * secret.
 */
function normalizeWritableRoots(
  entries: readonly string[] | undefined,
  roots: readonly string[],
  home: string | undefined,
): string[] {
  if (entries === undefined) return [];
  if (!Array.isArray(entries))
    throw new TypeError('jobs: sandbox.writableRoots must be an array of absolute paths');
  const result: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const field = `sandbox.writableRoots[${index}]`;
    if (typeof entry !== 'string' || !path.isAbsolute(entry) || entry.includes('\u0000')) {
      throw new TypeError(`jobs: ${field} must be an absolute path`);
    }
    let real: string;
    try {
      real = realpathSync.native(entry);
      if (!statSync(real).isDirectory()) continue;
    } catch {
      continue;
    }
    if (real === '/')
      throw new TypeError(`jobs: ${field} is the file system root, which may never be writable`);
    if (home !== undefined && isInside(real, home)) {
      throw new TypeError(
        `jobs: ${field} is the home directory or contains it; its startup files and credential stores must stay read-only (name a directory inside it, such as a cache)`,
      );
    }
    if (roots.some((root) => isInside(real, root))) {
      throw new TypeError(
        `jobs: ${field} contains a root, whose protected paths (.git, .toolhost) it would expose; it is writable already`,
      );
    }
    const secrets = [
      ...(home === undefined ? [] : HOME_CREDENTIAL_PATHS.map((relative) => path.join(home, relative))),
      ...SYSTEM_SECRET_PATHS,
    ];
    if (secrets.some((secret) => isInside(secret, real))) {
      throw new TypeError(`jobs: ${field} lies inside a credential store or a system secret`);
    }
    if (roots.some((root) => isInside(root, real))) continue;
    if (!result.includes(real)) result.push(real);
  }
  return result;
}

/** The hidden directories that exist now, as real paths (bubblewrap can only cover what exists). */
function existingDirectories(directories: readonly string[]): string[] {
  const found: string[] = [];
  for (const directory of directories) {
    try {
      const real = realpathSync.native(directory);
      if (statSync(real).isDirectory()) found.push(real);
    } catch {
      // Missing: nothing to read there.
    }
  }
  // One inside another hidden one is covered already (a mount point there would show its name).
  return found.filter(
    (directory) => !found.some((other) => other !== directory && isInside(other, directory)),
  );
}

function unavailable(message: string): { ok: false; error: JobError } {
  return {
    ok: false,
    error: {
      code: 'SANDBOX_UNAVAILABLE',
      message: `${message}; the command was not run (this run's sandbox mode refuses to run commands without an OS sandbox)`,
    },
  };
}

/** How long a plan is used before a background refresh looks for outside changes. */
const REFRESH_AFTER_MS = 2000;
/** Change times come from a coarse clock: a change this long before a job started counts as during it. */
const CHANGE_SLACK_MS = 50;
/** Entries looked at, at most, to decide whether something below a protected entry changed. */
const CHANGE_SCAN_LIMIT = 100_000;

/**
 * Whether `target` or anything below it (links not followed) has a change time at or after `since`.
 * Change times cannot be set back by programs. Past {@link CHANGE_SCAN_LIMIT} entries the answer is
 * yes (fail closed).
 */
function changedSince(target: string, since: number): boolean {
  const stack = [target];
  let seen = 0;
  while (stack.length > 0) {
    const current = stack.pop()!;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(current);
    } catch {
      continue;
    }
    if (stats.ctimeMs >= since) return true;
    if (++seen > CHANGE_SCAN_LIMIT) return true;
    if (!stats.isDirectory()) continue;
    try {
      for (const name of readdirSync(current)) stack.push(path.join(current, name));
    } catch {
      return true;
    }
  }
  return false;
}

function lstatOrUndefined(target: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Creates the sandbox of a job manager (requirements SB-1..SB-13). `stateDir` holds the logs; it is
 * bound read-only into the sandbox, and protected entries a job left behind are moved into its
 * `quarantine` directory.
 */
export function createSandbox(
  options: SandboxOptions,
  stateDir: string,
  /** Names this manager's private `/tmp` (`<stateDir>/tmp/<prefix>.<random>`), so a crash's is found. */
  tmpPrefix = 'host',
): Sandbox {
  const settings = normalizeSandboxOptions(options);
  const owned = new Map<string, PlaceholderRecord>();
  const writable = settings.mode === 'workspace_write';
  // Readable roots inside a root are already visible.
  const readableRoots = settings.readableRoots.filter(
    (entry) => !settings.roots.some((root) => isInside(root, entry)),
  );
  // The state directory holds the logs and the registry: never writable by a command.
  for (const [index, entry] of settings.writableRoots.entries()) {
    if (isInside(entry, stateDir) || isInside(stateDir, entry)) {
      throw new TypeError(
        `jobs: sandbox.writableRoots[${index}] contains the state directory or lies inside it, which commands may never write`,
      );
    }
  }
  let tmpDir: string | undefined;
  /**
   * The manager's private /tmp, created on first use (SB-16). Commands control what it holds between
   * their runs, and bubblewrap follows links in mount destinations, so no destination may lie in it
   * unless every command of the manager has it mounted: the layout's destinations under /tmp (a root,
   * the state directory, a readable or writable root below the host's /tmp) are the same for every
   * command of a manager (the host view is planned once), so each is a mount point, which cannot be
   * renamed or replaced, in every sandbox that could reach it.
   */
  const ensureTmp = (): string => {
    if (tmpDir && existsSync(tmpDir)) return tmpDir;
    const parent = path.join(stateDir, 'tmp');
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    tmpDir = realpathSync.native(mkdtempSync(path.join(parent, `${tmpPrefix}.`)));
    return tmpDir;
  };
  let emptyFile: string | undefined;
  let hostView: HostView | undefined;
  let index: ProtectedPathIndex | undefined;
  let refreshedAt = 0;
  let quarantined = 0;

  const ensureEmptyFile = () => {
    if (!emptyFile) {
      emptyFile = path.join(stateDir, 'empty');
      if (!existsSync(emptyFile)) writeFileSync(emptyFile, '', { mode: 0o400 });
    }
    return emptyFile;
  };

  const createPlaceholder = (target: string, kind: 'directory' | 'file'): PlaceholderRecord | undefined => {
    try {
      if (kind === 'directory') mkdirSync(target, { mode: 0o700 });
      else closeSync(openSync(target, 'wx', 0o600));
    } catch (error) {
      // Created meanwhile by someone else: it exists now, so it is bound read-only like any other.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    }
    const stats = lstatSync(target);
    const record = { path: target, kind, dev: stats.dev, ino: stats.ino };
    owned.set(target, record);
    return record;
  };

  const protectedIndex = () => {
    index ??= new ProtectedPathIndex({
      writableRoots: writable ? settings.roots : [],
      readOnlyRoots: writable ? readableRoots : [...settings.roots, ...readableRoots],
      protectedPaths: writable ? settings.protectedPaths : [],
      secretPaths: settings.secretPaths,
      caseSensitive: settings.caseSensitive,
      includeAlwaysProtected: writable,
      maxEntries: settings.maxPlanEntries,
      // The check after every workspace_write job asks a watcher what changed instead of looking at
      // every directory of the project (issue 25); its barrier directory goes with the host's /tmp.
      ...(writable ? { watch: { directoryPrefix: path.join(stateDir, 'tmp', `${tmpPrefix}.watch.`) } } : {}),
    });
    return index;
  };

  const refresh = async () => {
    const update = await protectedIndex().refresh();
    refreshedAt = Date.now();
    return update;
  };

  const incomplete = (): { ok: false; error: JobError } => ({
    ok: false,
    error: {
      code: 'SANDBOX_PLAN_INCOMPLETE',
      message: protectedIndex().unlistableRoot
        ? 'a root cannot be listed (its permissions deny it), so the sandbox cannot find the protected and secret paths in it; the command was not run'
        : `listing the protected and secret paths of the roots stopped at its limit of ${settings.maxPlanEntries} entries (node_modules is not counted), so the sandbox cannot cover them; the command was not run`,
    },
  });

  const linux = async (invocation: ShellInvocation, cwd: string) => {
    const executable = settings.bubblewrapPath ?? findBubblewrap();
    if (!executable) return unavailable('bubblewrap (bwrap) is not installed');
    const probe = await probeBubblewrap(executable);
    if (!probe.ok) return unavailable(probe.reason);
    hostView ??= planHostView({
      home: settings.home,
      readableRoots,
      roots: settings.roots,
      writableRoots: settings.writableRoots,
      writable,
    });
    const visible = [...settings.roots, ...hostView.visibleTrees, stateDir];
    if (!visible.some((tree) => isInside(tree, cwd))) {
      return {
        ok: false as const,
        error: {
          code: 'EXECUTION_ERROR' as const,
          message:
            'the working directory is not visible inside the sandbox (only the roots, the readable roots and system directories are)',
        },
      };
    }
    const index = protectedIndex();
    if (!index.built || !index.complete) {
      const update = await refresh();
      if (!update.complete) return incomplete();
    } else if (Date.now() - refreshedAt > REFRESH_AFTER_MS) {
      void refresh().catch(() => {});
    }
    const plan = index.plan();
    if (plan.truncated) return incomplete();
    if (writable) for (const missing of plan.missing) createPlaceholder(missing.path, missing.kind);
    const placeholders = writable
      ? plan.missing.map((missing) => missing.path).filter((target) => existsSync(target))
      : [];
    const needsEmptyFile =
      plan.hidden.some((secret) => secret.kind === 'file') || hostView.hiddenFiles.length > 0;
    // A writable root's own .git and .toolhost stay read-only (SB-15); deeper ones are not searched.
    const writableRootGuards = writable
      ? settings.writableRoots.flatMap((entry) =>
          ALWAYS_PROTECTED_NAMES.map((name) => path.join(entry, name)).filter((target) => {
            const stats = lstatOrUndefined(target);
            return stats !== undefined && !stats.isSymbolicLink();
          }),
        )
      : [];
    // Directories of the host's user (its configuration with the MCP sign-in tokens) hidden wherever
    // the view would show them; one the view does not show is not visible anyway.
    const hiddenDirectories = existingDirectories(settings.hiddenDirectories).filter((directory) =>
      visible.some((tree) => isInside(tree, directory)),
    );
    const protection =
      writableRootGuards.length > 0 ? { ...plan, readOnly: [...plan.readOnly, ...writableRootGuards] } : plan;
    const layout: BubblewrapLayout = {
      mode: settings.mode as 'read_only' | 'workspace_write',
      infoFd: 3,
      hostView,
      sockets: listVisibleSockets(hostView, settings.roots),
      roots: settings.roots,
      network: settings.network,
      stateDir,
      cwd,
      protection:
        hiddenDirectories.length > 0
          ? {
              ...protection,
              hidden: [
                ...protection.hidden,
                ...hiddenDirectories.map((directory) => ({ path: directory, kind: 'directory' as const })),
              ],
            }
          : protection,
      placeholders,
      ...(settings.persistentTmp ? { tmpDir: ensureTmp() } : {}),
      ...(needsEmptyFile ? { emptyFile: ensureEmptyFile() } : {}),
    };
    const guard: JobGuard | undefined = writable
      ? {
          bound: new Set([...plan.readOnly, ...placeholders]),
          unbound: new Map(
            [...index.protectedEntries()].filter(([target]) => !plan.readOnly.includes(target)),
          ),
        }
      : undefined;
    const command = withoutInheritedDescriptors(invocation, invocation.file, invocation.args);
    const launch: SandboxedLaunch = {
      file: executable,
      args: [...buildBubblewrapArguments(layout), command.file, ...command.args],
      env: { TMPDIR: '/tmp', ...command.env },
      sandboxed: true,
      contained: true,
      infoFd: true,
      helperNames: ['bwrap'],
      notes: [],
      ...(guard ? { guard } : {}),
      release: () => {},
    };
    return { ok: true as const, value: launch };
  };

  const darwin = async (invocation: ShellInvocation) => {
    const executable = '/usr/bin/sandbox-exec';
    const probe = await probeSeatbelt(executable);
    if (!probe.ok) return unavailable(probe.reason);
    // One temporary directory per job, or the manager's private one (SB-16).
    const shared = settings.persistentTmp ? ensureTmp() : undefined;
    const tempDir = shared ?? realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'toolhost-job-')));
    const profile = buildSeatbeltProfile({
      mode: settings.mode as 'read_only' | 'workspace_write',
      roots: settings.roots,
      writableRoots: settings.writableRoots,
      protectedPaths: settings.protectedPaths,
      secretPaths: settings.secretPaths,
      hiddenDirectories: settings.hiddenDirectories.map((directory) => {
        try {
          return realpathSync.native(directory);
        } catch {
          return directory;
        }
      }),
      network: settings.network,
      tempDir,
      stateDir,
    });
    let released = false;
    const launch: SandboxedLaunch = {
      file: executable,
      args: ['-p', profile, '--', invocation.file, ...invocation.args],
      env: { TMPDIR: tempDir },
      sandboxed: true,
      contained: false,
      containment: 'Seatbelt has no pid namespace',
      helperNames: [],
      notes: [],
      release: () => {
        if (released || shared) return;
        released = true;
        rmSync(tempDir, { recursive: true, force: true });
      },
    };
    return { ok: true as const, value: launch };
  };

  const fullAccess = async (
    invocation: ShellInvocation,
    cwd: string,
    searchPath: string | undefined,
  ): Promise<SandboxedLaunch> => {
    const plain: SandboxedLaunch = {
      file: invocation.file,
      args: invocation.args,
      env: {},
      sandboxed: false,
      contained: false,
      containment: 'the shell was not found on PATH',
      helperNames: [],
      notes: [],
      release: () => {},
    };
    // A shell that is not there is spawned as it is, so the start fails with ENOENT as it always did
    // (a wrapper would start and report exit code 127 instead).
    const resolved =
      settings.platform === 'win32' ? undefined : resolveExecutable(invocation.file, searchPath ?? '', cwd);
    if (settings.platform !== 'win32' && !resolved) return plain;
    const containOptions = {
      command: invocation.file,
      args: invocation.args,
      cwd,
      searchPath,
      newSession: true,
      infoFd: 3,
      platform: settings.platform,
      ...(settings.bubblewrapPath ? { bubblewrapPath: settings.bubblewrapPath } : {}),
    };
    // The shell was looked up on PATH just above: on Linux it is not looked up again.
    const contained =
      settings.platform === 'linux' && resolved
        ? await containResolvedCommand(resolved, containOptions)
        : await containCommand(containOptions);
    // The descriptors are closed inside the namespace, by the first program it runs.
    const command = contained.contained
      ? (() => {
          const separator = contained.args.indexOf('--');
          const file = contained.args[separator + 1]!;
          // The inner file is the shell itself, looked up on PATH: a bash job closes the descriptors
          // through its BASH_ENV file, not through an extra `bash -c 'exec N>&-; exec "$@"'`.
          const inner = withoutInheritedDescriptors(
            invocation,
            file,
            contained.args.slice(separator + 2),
            file === resolved,
          );
          return {
            file: contained.file,
            args: [...contained.args.slice(0, separator + 1), inner.file, ...inner.args],
            env: inner.env,
          };
        })()
      : withoutInheritedDescriptors(invocation, invocation.file, invocation.args);
    return {
      file: command.file,
      args: command.args,
      env: command.env,
      sandboxed: false,
      contained: contained.contained,
      infoFd: contained.contained,
      ...(contained.reason ? { containment: contained.reason } : {}),
      helperNames: contained.contained ? ['bwrap'] : [],
      notes: [],
      release: () => {},
    };
  };

  let closingScriptPath: string | undefined;
  let closingScriptText = '';
  /**
   * The command with the host's inherited descriptors closed before it runs (JOB-FD-1): a bash job
   * reads a `BASH_ENV` file in the state directory that closes them (no extra process), anything
   * else is started through `bash -c 'exec N>&-; exec "$@"'`. Nothing when nothing leaks.
   */
  const withoutInheritedDescriptors = (
    invocation: ShellInvocation,
    file: string,
    args: readonly string[],
    /** Whether `file` is the invocation's shell (its name, or its path as looked up on PATH). */
    isShell = file === invocation.file,
  ): { file: string; args: readonly string[]; env: Record<string, string> } => {
    const descriptors = listInheritedDescriptors();
    if (descriptors.length === 0) return { file, args, env: {} };
    if (invocation.shell === 'bash' && isShell) {
      const text = closingScript(descriptors);
      if (!closingScriptPath || text !== closingScriptText) {
        closingScriptPath = path.join(stateDir, 'close-descriptors.sh');
        const temporary = `${closingScriptPath}.${process.pid}.tmp`;
        writeFileSync(temporary, text, { mode: 0o600 });
        renameSync(temporary, closingScriptPath);
        closingScriptText = text;
      }
      return { file, args, env: { BASH_ENV: closingScriptPath } };
    }
    return { ...closingDescriptors(descriptors, file, args), env: {} };
  };

  const quarantine = (target: string, jobId: string): QuarantinedEntry => {
    quarantined += 1;
    const name = `${jobId}.${quarantined}.${path.basename(target).replace(/^\.+/, '') || 'entry'}`;
    const destinations = [path.join(stateDir, 'quarantine')];
    const root = settings.roots.find((candidate) => isInside(candidate, target));
    if (root) destinations.push(path.join(root, '.toolhost', 'quarantine'));
    let reason = 'unknown';
    let permitted = false;
    for (let index = 0; index < destinations.length; index++) {
      const directory = destinations[index]!;
      try {
        mkdirSync(directory, { recursive: true, mode: 0o700 });
        const destination = path.join(directory, name);
        renameSync(target, destination);
        return { path: target, movedTo: destination };
      } catch (error) {
        reason = (error as NodeJS.ErrnoException).code ?? 'error';
        // A directory its owner may not write cannot change parents (its `..` is rewritten): a command
        // that made one unlistable to hide what is in it does not keep it in place that way. The
        // owner's permissions are given back once, and the same place is tried again.
        // The change goes to the directory itself, never through a link a running command swapped
        // in meanwhile (a background job may still run while another job's check moves things).
        if (reason === 'EACCES' && !permitted) {
          permitted = true;
          if (giveOwnerPermissions(target)) index -= 1;
        }
        // EXDEV: another file system; try the next place.
      }
    }
    return { path: target, reason };
  };

  const quarantineLeftovers = (job: JobWindow) => {
    const moved: QuarantinedEntry[] = [];
    if (!index || !job.guard) return moved;
    for (const [target, identity] of index.protectedEntries()) {
      if (job.guard.bound.has(target)) continue;
      const seen = job.guard.unbound.get(target);
      if (seen && seen.dev === identity.dev && seen.ino === identity.ino) continue;
      // Made (or last changed) after the job ended: the job could not have written it.
      if (identity.ctimeMs > job.endedAt) continue;
      if (owned.has(target)) continue;
      // Writable for the job but untouched during it (someone created it outside, before the index
      // caught up): nothing the job did is in it.
      if (!changedSince(target, job.startedAt - CHANGE_SLACK_MS)) continue;
      const outcome = quarantine(target, job.id);
      if (outcome.movedTo) index.forget(target);
      moved.push(outcome);
    }
    return moved;
  };

  return {
    mode: settings.mode,
    network: settings.network,
    roots: settings.roots,
    platform: settings.platform,
    async wrap(invocation, cwd, searchPath = process.env.PATH) {
      if (settings.mode === 'danger_full_access') {
        return { ok: true, value: await fullAccess(invocation, cwd, searchPath) };
      }
      if (settings.platform === 'linux') return linux(invocation, cwd);
      if (settings.platform === 'darwin') return darwin(invocation);
      return unavailable(`no OS sandbox is available on ${settings.platform}`);
    },
    async checkAfterJob(job) {
      if (!writable || !job.guard || !index) return [];
      await refresh();
      return quarantineLeftovers(job);
    },
    checkAfterJobSync(job) {
      if (!writable || !job.guard || !index) return [];
      index.refreshSync();
      return quarantineLeftovers(job);
    },
    refreshSoon() {
      if (!index?.built || Date.now() - refreshedAt <= REFRESH_AFTER_MS) return;
      void refresh().catch(() => {});
    },
    placeholders: () => [...owned.values()],
    tmpDirectory: () => tmpDir,
    dispose(inUseByOthers) {
      index?.close();
      for (const record of owned.values()) if (!inUseByOthers.has(record.path)) removePlaceholder(record);
      owned.clear();
      if (tmpDir) removeTree(tmpDir);
      tmpDir = undefined;
    },
  };
}

/**
 * Removes a placeholder if it is still the empty directory or file that was created (same device and
 * inode, nothing inside): anything else was put there by someone and is left alone.
 */
export function removePlaceholder(record: PlaceholderRecord): void {
  try {
    const stats = lstatSync(record.path);
    if (stats.dev !== record.dev || stats.ino !== record.ino) return;
    if (record.kind === 'directory') {
      if (stats.isDirectory() && readdirSync(record.path).length === 0) rmdirSync(record.path);
    } else if (stats.isFile() && stats.size === 0) unlinkSync(record.path);
  } catch {
    // Gone, not empty, or busy as another sandbox's mount point: leave it.
  }
}

const seatbeltProbes = new Map<string, Promise<{ ok: true } | { ok: false; reason: string }>>();

function probeSeatbelt(executable: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  let probe = seatbeltProbes.get(executable);
  if (!probe) {
    probe = new Promise((resolve) => {
      execFile(
        executable,
        ['-p', '(version 1)(allow default)', '/usr/bin/true'],
        { timeout: 20_000 },
        (error) =>
          resolve(
            error
              ? { ok: false, reason: `sandbox-exec (${executable}) failed its probe run: ${error.message}` }
              : { ok: true },
          ),
      );
    });
    seatbeltProbes.set(executable, probe);
  }
  return probe;
}
