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
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildBubblewrapArguments, findBubblewrap, probeBubblewrap } from './bubblewrap.js';
import type { JobError } from './job-error.js';
import type { PlaceholderRecord } from './job-registry.js';
import { planProtectedPaths } from './protected-paths.js';
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
}

/** A command wrapped for its sandbox, ready to spawn. */
export interface SandboxedLaunch {
  readonly file: string;
  readonly args: readonly string[];
  /** Variables the sandbox needs (`TMPDIR` of its private temporary directory). */
  readonly env: Readonly<Record<string, string>>;
  /** Whether an OS sandbox wraps the command (false only in `danger_full_access`). */
  readonly sandboxed: boolean;
  /** Process names of the sandbox's own helpers (spared by the polite SIGTERM round of a kill). */
  readonly helperNames: readonly string[];
  /** Facts worth showing (for example that the protected-path walk was truncated). */
  readonly notes: readonly string[];
  /** Removes what the launch created (a per-job temporary directory). Idempotent. */
  readonly release: () => void;
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
  ): Promise<{ ok: true; value: SandboxedLaunch } | { ok: false; error: JobError }>;
  /** Placeholders this manager created and still owns. */
  placeholders(): readonly PlaceholderRecord[];
  /** Removes this manager's placeholders (those still empty and not used by another live host). */
  dispose(inUseByOthers: ReadonlySet<string>): void;
}

/** Validates the options and realpaths the roots; throws a `TypeError` for a misconfiguration. */
export function normalizeSandboxOptions(options: SandboxOptions): Required<
  Omit<SandboxOptions, 'bubblewrapPath'>
> & {
  bubblewrapPath: string | undefined;
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
  return {
    mode: options.mode,
    roots: [...new Set(roots)],
    protectedPaths: [...(options.protectedPaths ?? [])],
    secretPaths: [...(options.secretPaths ?? [])],
    hiddenDirectories: (options.hiddenDirectories ?? []).filter((directory) => {
      if (typeof directory !== 'string' || !path.isAbsolute(directory)) {
        throw new TypeError('jobs: every sandbox hidden directory must be an absolute path');
      }
      const resolved = path.resolve(directory);
      return !roots.some((root) => isWithin(resolved, root) || isWithin(root, resolved));
    }),
    network: options.mode === 'read_only' ? false : options.network === true,
    platform,
    bubblewrapPath: options.bubblewrapPath,
    caseSensitive: options.caseSensitive ?? !(platform === 'darwin' || platform === 'win32'),
  };
}

/** Whether `inner` is `outer` or lies inside it. */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
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
    (directory) => !found.some((other) => other !== directory && isWithin(directory, other)),
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

/**
 * Creates the sandbox of a job manager (requirements SB-1..SB-8). `stateDir` holds the logs; it is
 * bound read-only into the sandbox.
 */
export function createSandbox(options: SandboxOptions, stateDir: string): Sandbox {
  const settings = normalizeSandboxOptions(options);
  const owned = new Map<string, PlaceholderRecord>();
  let emptyFile: string | undefined;

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

  const linux = async (invocation: ShellInvocation, cwd: string) => {
    const executable = settings.bubblewrapPath ?? findBubblewrap();
    if (!executable) return unavailable('bubblewrap (bwrap) is not installed');
    const probe = await probeBubblewrap(executable);
    if (!probe.ok) return unavailable(probe.reason);
    const notes: string[] = [];
    let layout: Parameters<typeof buildBubblewrapArguments>[0] = {
      mode: settings.mode as 'read_only' | 'workspace_write',
      roots: settings.roots,
      network: settings.network,
      stateDir,
      cwd,
    };
    const writable = settings.mode === 'workspace_write';
    // In read_only only the secrets matter (everything is read-only already): no walk for protected
    // paths, no placeholders.
    if (writable || settings.secretPaths.length > 0) {
      const plan = planProtectedPaths({
        roots: settings.roots,
        protectedPaths: writable ? settings.protectedPaths : [],
        secretPaths: settings.secretPaths,
        caseSensitive: settings.caseSensitive,
        includeAlwaysProtected: writable,
      });
      if (plan.truncated) {
        notes.push(
          'the protected-path walk stopped at its entry budget; deeply nested matches may be unprotected',
        );
      }
      if (writable) for (const missing of plan.missing) createPlaceholder(missing.path, missing.kind);
      const placeholders = writable
        ? plan.missing.map((missing) => missing.path).filter((target) => existsSync(target))
        : [];
      layout = {
        ...layout,
        protection: plan,
        placeholders,
        ...(plan.hidden.some((secret) => secret.kind === 'file') ? { emptyFile: ensureEmptyFile() } : {}),
      };
    }
    const hiddenDirectories = existingDirectories(settings.hiddenDirectories);
    if (hiddenDirectories.length > 0) {
      const protection = layout.protection ?? { readOnly: [], hidden: [], pinned: [] };
      layout = {
        ...layout,
        protection: {
          ...protection,
          hidden: [
            ...protection.hidden,
            ...hiddenDirectories.map((directory) => ({ path: directory, kind: 'directory' as const })),
          ],
        },
      };
    }
    const launch: SandboxedLaunch = {
      file: executable,
      args: [...buildBubblewrapArguments(layout), invocation.file, ...invocation.args],
      env: { TMPDIR: '/tmp' },
      sandboxed: true,
      helperNames: ['bwrap'],
      notes,
      release: () => {},
    };
    return { ok: true as const, value: launch };
  };

  const darwin = async (invocation: ShellInvocation) => {
    const executable = '/usr/bin/sandbox-exec';
    const probe = await probeSeatbelt(executable);
    if (!probe.ok) return unavailable(probe.reason);
    const tempDir = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'toolhost-job-')));
    const profile = buildSeatbeltProfile({
      mode: settings.mode as 'read_only' | 'workspace_write',
      roots: settings.roots,
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
      helperNames: [],
      notes: [],
      release: () => {
        if (released) return;
        released = true;
        rmSync(tempDir, { recursive: true, force: true });
      },
    };
    return { ok: true as const, value: launch };
  };

  return {
    mode: settings.mode,
    network: settings.network,
    roots: settings.roots,
    platform: settings.platform,
    async wrap(invocation, cwd) {
      if (settings.mode === 'danger_full_access') {
        return {
          ok: true,
          value: {
            file: invocation.file,
            args: invocation.args,
            env: {},
            sandboxed: false,
            helperNames: [],
            notes: [],
            release: () => {},
          },
        };
      }
      if (settings.platform === 'linux') return linux(invocation, cwd);
      if (settings.platform === 'darwin') return darwin(invocation);
      return unavailable(`no OS sandbox is available on ${settings.platform}`);
    },
    placeholders: () => [...owned.values()],
    dispose(inUseByOthers) {
      for (const record of owned.values()) if (!inUseByOthers.has(record.path)) removePlaceholder(record);
      owned.clear();
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
