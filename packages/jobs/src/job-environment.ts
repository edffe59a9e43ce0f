/**
 * Which host variables a job starts from (requirement JOB-ENV-4): `core` (default) the fixed
 * allowlist ({@link ENVIRONMENT_ALLOWLIST}, `LC_*`, `XDG_*`); `all` every host variable whose name
 * does not look like a secret; `none` nothing of the host's.
 */
export type EnvironmentInheritance = 'core' | 'all' | 'none';

/** Which host variables a job sees, besides what `inherit` gives it. */
export interface JobEnvironmentOptions {
  /** Where the job's environment starts from. Default `core`. */
  readonly inherit?: EnvironmentInheritance;
  /**
   * Host variables to pass through: exact names, or prefixes ending in `*` (`NPM_CONFIG_*`). A name
   * that looks like a secret passes only when listed exactly, never through a prefix or `inherit`.
   */
  readonly pass?: readonly string[];
  /**
   * Host variables never passed, whatever `inherit` and `pass` say: exact names or prefixes ending
   * in `*`. Applies to host variables only (not to the forced settings, nor to `set`).
   */
  readonly exclude?: readonly string[];
  /** Variables to set (they win over everything but the sandbox's own variables and the job's marker). */
  readonly set?: Readonly<Record<string, string>>;
}

/**
 * Host variables every job sees when they are set (requirement JOB-ENV-1). `LC_*` and `XDG_*` are
 * passed by prefix. Windows needs its system variables to start processes at all.
 */
export const ENVIRONMENT_ALLOWLIST: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'NODE_ENV',
  'SystemRoot',
  'SYSTEMROOT',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'USERPROFILE',
  'USERNAME',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'ProgramData',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'ProgramW6432',
  'CommonProgramFiles',
  'PSModulePath',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
]);

const ALLOWED_PREFIXES = ['LC_', 'XDG_'];

/** Names that look like secrets: never passed unless configured by exact name (requirement JOB-ENV-2). */
export const SECRET_NAME_PATTERN = /KEY|SECRET|TOKEN|PASSW|CREDENTIAL|AUTH(?!OR)|COOKIE|SESSION|PRIVATE/i;

/**
 * Settings every job gets (requirement JOB-ENV-3): non-interactive, uncoloured, unpaged output and no
 * credential prompts, as on a CI machine, so commands neither hang on a prompt nor fill the output
 * with escape codes.
 */
export const FORCED_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({
  CI: '1',
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  DEBIAN_FRONTEND: 'noninteractive',
});

const UTF8 = /utf-?8/i;

/** Exact names and `*`-terminated prefixes of a name list. */
function nameMatcher(entries: readonly string[]): { exact: Set<string>; prefixes: string[] } {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const entry of entries) {
    if (entry.endsWith('*')) prefixes.push(entry.slice(0, -1));
    else exact.add(entry);
  }
  return { exact, prefixes };
}

/**
 * Builds a job's environment from the host's: what `inherit` gives (default the allowlist), the
 * configured names, minus the excluded ones, then the forced CI settings, a UTF-8 locale (the host's
 * when it is UTF-8, else `C.UTF-8`) and `set`. A host variable whose name looks like a secret
 * ({@link SECRET_NAME_PATTERN}) reaches the job only when `pass` names it exactly, so
 * `OPENAI_API_KEY` and friends stay in the host whatever `inherit` says.
 */
export function createJobEnvironment(
  host: NodeJS.ProcessEnv,
  options: JobEnvironmentOptions = {},
): Record<string, string> {
  const environment: Record<string, string> = {};
  const inherit = options.inherit ?? 'core';
  if (inherit !== 'core' && inherit !== 'all' && inherit !== 'none') {
    throw new TypeError('jobs: environment.inherit must be core, all or none');
  }
  const passed = nameMatcher(options.pass ?? []);
  const excluded = nameMatcher(options.exclude ?? []);
  const prefixes = inherit === 'core' ? [...ALLOWED_PREFIXES, ...passed.prefixes] : passed.prefixes;
  const allowlist = new Set(inherit === 'core' ? ENVIRONMENT_ALLOWLIST : []);
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined) continue;
    if (excluded.exact.has(name) || excluded.prefixes.some((prefix) => name.startsWith(prefix))) continue;
    if (passed.exact.has(name)) {
      environment[name] = value;
      continue;
    }
    if (SECRET_NAME_PATTERN.test(name)) continue;
    if (inherit === 'all' || allowlist.has(name) || prefixes.some((prefix) => name.startsWith(prefix)))
      environment[name] = value;
  }
  Object.assign(environment, FORCED_ENVIRONMENT);
  // Keep the user's UTF-8 locale; otherwise force one, and drop non-UTF-8 overrides that would win.
  if (!UTF8.test(environment.LANG ?? '')) environment.LANG = 'C.UTF-8';
  for (const name of ['LC_ALL', 'LC_CTYPE']) {
    const value = environment[name];
    if (value !== undefined && !UTF8.test(value)) delete environment[name];
  }
  Object.assign(environment, options.set ?? {});
  return environment;
}
