import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { type HostView, planHostView } from './host-view.js';
import type { ProtectedPathPlan } from './protected-paths.js';

/** Everything {@link buildBubblewrapArguments} needs to lay out the sandbox's mounts. */
export interface BubblewrapLayout {
  readonly mode: 'read_only' | 'workspace_write';
  /** What the command sees of the host outside the roots (see `planHostView`). */
  readonly hostView: Pick<HostView, 'mounts' | 'hiddenFiles' | 'hiddenDirectories' | 'exposed'>;
  /** Pathname sockets to make unreachable (see `listVisibleSockets`). */
  readonly sockets?: readonly string[];
  /** Real absolute roots: read-only in `read_only`, writable in `workspace_write`. */
  readonly roots: readonly string[];
  /** Protected and pinned paths (used in workspace_write) and secrets (covered in both modes). */
  readonly protection?: Pick<ProtectedPathPlan, 'readOnly' | 'hidden' | 'pinned'>;
  /** Placeholders created for missing protected paths (already on disk when the sandbox starts). */
  readonly placeholders?: readonly string[];
  /** An empty read-only file bound over secret files. Required when any secret file is covered. */
  readonly emptyFile?: string;
  /** Keep the host's network namespace. Default false: only a private loopback exists. */
  readonly network: boolean;
  /** The job state directory (logs): bound read-only so the command can read logs, never alter them. */
  readonly stateDir: string;
  /** The command's working directory (a real path). */
  readonly cwd: string;
  /** A descriptor bubblewrap writes its info JSON to (`--info-fd`), if any. */
  readonly infoFd?: number;
  /**
   * A host directory bound (writable) as `/tmp`, kept across commands (SB-16). Default: a new, empty
   * tmpfs for this command.
   */
  readonly tmpDir?: string;
}

/**
 * The bubblewrap arguments for a layout, up to and including the `--` before the command
 * (requirements SB-2..SB-11).
 *
 * - Namespaces: all of them (user, pid, ipc, uts, cgroup, and net unless `network`), no further user
 *   namespaces inside (`--disable-userns`), every capability dropped, a new session (no terminal to
 *   inject input into), and death with the parent, so a crashed host takes its sandboxes along.
 *   The pid namespace also means that when the command exits, or the sandbox is killed, the kernel
 *   kills every process left inside it, including those that called `setsid`.
 * - Mounts: an empty root that ends up read-only; the host view (system directories read-only, an
 *   empty home directory with its toolchains, the readable roots, the writable roots); a fresh `/dev`
 *   and `/proc`; a private `/tmp` (empty, or the manager's own); the roots (read-only or writable); in `workspace_write` the pinned
 *   directories bound onto themselves and the protected paths and placeholders re-bound read-only;
 *   in both modes secret files and credential stores covered by an empty file and secret directories
 *   by an empty read-only tmpfs; `/dev/null` over every visible socket outside the roots; readable
 *   roots inside a covered store bound again; the state directory read-only.
 */
export function buildBubblewrapArguments(layout: BubblewrapLayout): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
  ];
  if (layout.network) args.push('--share-net');
  if (layout.infoFd !== undefined) args.push('--info-fd', String(layout.infoFd));
  // /tmp first: a readable or writable root (or the home directory) under the host's /tmp is bound
  // on top of it, not hidden by it.
  if (layout.tmpDir !== undefined) args.push('--bind', layout.tmpDir, '/tmp');
  else args.push('--tmpfs', '/tmp');
  for (const mount of layout.hostView.mounts) {
    if (mount.kind === 'symlink') args.push('--symlink', mount.target, mount.path);
    else if (mount.kind === 'dir') args.push('--dir', mount.path);
    else if (mount.kind === 'bind') args.push('--bind', mount.source, mount.path);
    else args.push('--ro-bind', mount.source, mount.path);
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  const roots = [...new Set(layout.roots)].sort(byDepth);
  const bindRoot = layout.mode === 'workspace_write' ? '--bind' : '--ro-bind';
  for (const root of roots) args.push(bindRoot, root, root);
  const protection = layout.protection;
  if (layout.mode === 'workspace_write') {
    for (const directory of protection?.pinned ?? []) args.push('--bind', directory, directory);
    const readOnly = [...(protection?.readOnly ?? []), ...(layout.placeholders ?? [])].sort(byDepth);
    for (const target of readOnly) args.push('--ro-bind', target, target);
  }
  // Secrets are covered in both modes: read-only does not mean unreadable.
  const hiddenDirectories: string[] = [];
  const coverFile = (target: string) => {
    if (!layout.emptyFile) throw new Error('bubblewrap layout: secret files need an empty placeholder file');
    args.push('--ro-bind', layout.emptyFile, target);
  };
  const coverDirectory = (target: string) => {
    args.push('--tmpfs', target);
    hiddenDirectories.push(target);
  };
  for (const secret of protection?.hidden ?? []) {
    if (secret.kind === 'directory') coverDirectory(secret.path);
    else coverFile(secret.path);
  }
  const covered = [
    ...layout.hostView.hiddenDirectories.map((target) => ({ target, directory: true })),
    ...layout.hostView.hiddenFiles.map((target) => ({ target, directory: false })),
  ].sort((a, b) => byDepth(a.target, b.target));
  for (const { target, directory } of covered) {
    if (directory) coverDirectory(target);
    else coverFile(target);
  }
  for (const socket of layout.sockets ?? []) args.push('--ro-bind', '/dev/null', socket);
  // A readable root inside a covered store (`~/.ssh/known_hosts` under a hidden `~/.ssh`) is shown
  // again on top of the cover.
  for (const exposed of layout.hostView.exposed) {
    if (hiddenDirectories.some((hidden) => exposed !== hidden && exposed.startsWith(`${hidden}/`))) {
      args.push('--ro-bind', exposed, exposed);
    }
  }
  // The state directory may sit inside a hidden one (the host hides its own state directory from the
  // tools): bind it while the covering tmpfs is still writable, so bubblewrap can create the mount
  // point, and only then make those tmpfs mounts read-only. The logs stay readable, nothing else does.
  args.push('--ro-bind', layout.stateDir, layout.stateDir);
  for (const directory of hiddenDirectories) args.push('--remount-ro', directory);
  // The sandbox's own root (a tmpfs holding the mount points) is read-only too.
  args.push('--remount-ro', '/');
  args.push('--chdir', layout.cwd, '--');
  return args;
}

function byDepth(a: string, b: string): number {
  const depth = a.split(path.sep).length - b.split(path.sep).length;
  return depth !== 0 ? depth : a < b ? -1 : a > b ? 1 : 0;
}

/** Where bubblewrap is looked for: the distribution's path first (not a writable PATH entry), then PATH. */
export function findBubblewrap(searchPath = process.env.PATH ?? ''): string | undefined {
  const candidates = [
    '/usr/bin/bwrap',
    ...searchPath
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, 'bwrap')),
  ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/** The outcome of a bubblewrap probe. */
export type BubblewrapProbe = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const probes = new Map<string, Promise<BubblewrapProbe>>();

/**
 * Checks once per executable (cached for the life of the process) that bubblewrap really builds the
 * sandbox here: it runs `sh -c 'test ! -w /'` inside the same namespaces and read-only root the jobs
 * get. An installed `bwrap` fails when unprivileged user namespaces are disabled, under some container
 * runtimes and seccomp profiles; trusting it blindly would fail open or fail every command.
 */
export function probeBubblewrap(executable: string): Promise<BubblewrapProbe> {
  let probe = probes.get(executable);
  if (!probe) {
    probe = runProbe(executable);
    probes.set(executable, probe);
  }
  return probe;
}

function runProbe(executable: string): Promise<BubblewrapProbe> {
  const args = [
    ...buildBubblewrapArguments({
      mode: 'read_only',
      // The system directories only: the probe reads nothing, so nothing needs covering.
      hostView: {
        ...planHostView({ home: undefined, readableRoots: [], roots: [] }),
        hiddenFiles: [],
        hiddenDirectories: [],
      },
      roots: [],
      network: false,
      stateDir: '/',
      cwd: '/',
    }),
    'sh',
    '-c',
    'test ! -w /',
  ];
  return new Promise((resolve) => {
    execFile(
      executable,
      args,
      {
        timeout: 20_000,
        killSignal: 'SIGKILL',
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
      (error, _stdout, stderr) => {
        if (!error) return resolve({ ok: true });
        const detail = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
        const exit =
          typeof error.code === 'number'
            ? `exit code ${error.code}`
            : error.signal
              ? `signal ${error.signal}`
              : error.message;
        resolve({
          ok: false,
          reason: detail
            ? `bubblewrap (${executable}) failed its probe run (${exit}): ${detail}`
            : `bubblewrap (${executable}) failed its probe run (${exit}); the root file system was not read-only inside it`,
        });
      },
    );
  });
}
