import { isAbsoluteLiteral } from './protected-paths.js';

/** Everything {@link buildSeatbeltProfile} needs. Paths must be real paths (`/private/var/...`, not `/var/...`). */
export interface SeatbeltLayout {
  readonly mode: 'read_only' | 'workspace_write';
  /** Writable in `workspace_write`. */
  readonly roots: readonly string[];
  /** More directories writable in `workspace_write` (SB-15): their own `.git` and `.toolhost` are not. */
  readonly writableRoots?: readonly string[];
  /** Protected patterns or absolute paths (path-policy syntax); never writable, existing or not. */
  readonly protectedPaths: readonly string[];
  /** Secret patterns or absolute paths; neither readable nor writable. */
  readonly secretPaths: readonly string[];
  /** Absolute directories outside the roots; neither readable nor writable. Default none. */
  readonly hiddenDirectories?: readonly string[];
  /** Allow network access. Default false. */
  readonly network: boolean;
  /**
   * A private temporary directory for this job, or the manager's (macOS has no private `/tmp`);
   * always writable, even inside the state directory.
   */
  readonly tempDir: string;
  /** The job state directory: readable, never writable. */
  readonly stateDir: string;
}

/** The Mach services ordinary command-line tools need (name lookups, logging, preferences, TLS trust). */
const MACH_SERVICES = [
  'com.apple.bsd.dirhelper',
  'com.apple.cfprefsd.agent',
  'com.apple.cfprefsd.daemon',
  'com.apple.coreservices.launchservicesd',
  'com.apple.diagnosticd',
  'com.apple.logd',
  'com.apple.lsd.mapdb',
  'com.apple.SecurityServer',
  'com.apple.system.logger',
  'com.apple.system.notification_center',
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.trustd',
  'com.apple.trustd.agent',
];

/** Quotes a string for SBPL (a Scheme string literal). */
export function sbplString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function pathFilters(target: string): string {
  // `literal` covers the name itself (a file, or a directory created later); `subpath` everything below.
  return `(literal ${sbplString(target)}) (subpath ${sbplString(target)})`;
}

const REGEX_SPECIAL = /[.^$+(){}|\\[\]]/g;

/**
 * Translates a path-policy pattern, relative to `root`, into an SBPL regular expression, or returns
 * `undefined` for a pattern with syntax it does not translate (brace or bracket sets, extglobs, `!`
 * exceptions); those are covered only where they name a literal path.
 */
export function patternToSeatbeltRegex(root: string, pattern: string): string | undefined {
  if (pattern.startsWith('!') || /[[\]{}()!+@]/.test(pattern)) return undefined;
  let body = pattern;
  const anchored = body.startsWith('/');
  if (anchored) body = body.slice(1);
  if (body.endsWith('/')) body = `${body}**`;
  const prefix = `^${root.replace(REGEX_SPECIAL, '\\$&')}/`;
  let regex = anchored ? '' : '(.*/)?';
  const parts = body.split('/');
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index]!;
    const last = index === parts.length - 1;
    if (part === '**') {
      // A trailing `/**` also covers the directory itself (path-policy semantics).
      if (last) {
        regex = regex.replace(/\/$/, '');
        regex += '(/.*)?';
      } else regex += '(.*/)?';
      continue;
    }
    regex += part.replace(REGEX_SPECIAL, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
    if (!last) regex += '/';
  }
  return `${prefix}${regex}$`;
}

function patternFilters(roots: readonly string[], patterns: readonly string[]): string[] {
  const filters: string[] = [];
  for (const pattern of patterns) {
    if (isAbsoluteLiteral(pattern, roots)) {
      filters.push(pathFilters(pattern.replace(/\/+$/, '')));
      continue;
    }
    for (const root of roots) {
      const regex = patternToSeatbeltRegex(root, pattern);
      if (regex) filters.push(`(regex #${sbplString(regex)})`);
    }
  }
  return filters;
}

/**
 * Generates the macOS Seatbelt (SBPL) profile for a job (requirement SB-MAC-1): deny by default;
 * processes may fork and exec, read the whole file system (except secrets), and write only to
 * `/dev/null`-like devices, the job's private temporary directory and, in `workspace_write`, the
 * roots; protected paths are denied for writing by `literal` + `subpath` filters (or a regular
 * expression for patterns), which also covers a protected path created later; network is denied
 * unless `network`. In SBPL the last matching rule wins, so the denials come last.
 */
export function buildSeatbeltProfile(layout: SeatbeltLayout): string {
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow process-info* (target same-sandbox))',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow user-preference-read)',
    '(allow ipc-posix-sem)',
    '(allow ipc-posix-shm)',
    '(allow pseudo-tty)',
    `(allow mach-lookup ${MACH_SERVICES.map((name) => `(global-name ${sbplString(name)})`).join(' ')})`,
    '(allow file-read*)',
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))',
    '(allow file-write* (literal "/dev/stdout") (literal "/dev/stderr") (subpath "/dev/fd"))',
    '(allow file-ioctl (literal "/dev/null") (literal "/dev/zero") (subpath "/dev/fd"))',
    `(allow file-write* ${pathFilters(layout.tempDir)})`,
  ];
  const writableRoots = layout.mode === 'workspace_write' ? (layout.writableRoots ?? []) : [];
  const writable = layout.mode === 'workspace_write' ? [...layout.roots, ...writableRoots] : [];
  if (writable.length > 0) {
    lines.push(`(allow file-write* ${writable.map((root) => `(subpath ${sbplString(root)})`).join(' ')})`);
  }
  if (layout.network) lines.push('(allow network*)', '(allow system-socket)');
  const protectedFilters = [
    ...[...layout.roots, ...writableRoots].flatMap((root) =>
      ['.git', '.toolhost'].map((name) => pathFilters(`${root}/${name}`)),
    ),
    ...patternFilters(layout.roots, layout.protectedPaths),
    pathFilters(layout.stateDir),
  ];
  lines.push(`(deny file-write* ${protectedFilters.join(' ')})`);
  const secretFilters = [
    ...patternFilters(layout.roots, layout.secretPaths),
    ...(layout.hiddenDirectories ?? []).map((directory) => `(subpath ${sbplString(directory)})`),
  ];
  if (secretFilters.length > 0) lines.push(`(deny file-read* file-write* ${secretFilters.join(' ')})`);
  // The manager's private temporary directory may lie inside the (protected, secret) state directory.
  lines.push(`(allow file-read* file-write* ${pathFilters(layout.tempDir)})`);
  return `${lines.join('\n')}\n`;
}
