import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { err, isJsonObject, ok, type Result, ToolhostError } from '@toolhost/contracts';
import {
  type EnvironmentInheritance,
  HOME_CREDENTIAL_PATHS,
  type JobEnvironmentOptions,
  SYSTEM_SECRET_PATHS,
} from '@toolhost/jobs';
import type { PathPolicy } from '@toolhost/path-policy';

/**
 * The `sandbox` settings of a configuration: what the shell's OS sandbox shows and allows beyond the
 * run policy (DESIGN.md "Shell sandbox settings"). Paths are as written (`~/` and paths relative to
 * the project root allowed); the host checks and realpaths them.
 */
export interface SandboxConfig {
  /** The host's network for shell commands in `workspace_write` (never in `read_only`). Default false. */
  readonly network?: boolean;
  /** Extra directories shell commands may write in `workspace_write`, such as a build cache. */
  readonly writableRoots: readonly string[];
  /** Paths outside the roots shown read-only to shell commands (the only way to show a credential store). */
  readonly readableRoots: readonly string[];
  /** Directory entries the protected-path listing may read before commands are refused. Default 200 000. */
  readonly maxPlanEntries?: number;
}

/**
 * The `shellEnvironment` settings: which host variables shell commands see. `inherit` starts from
 * `core` (the allowlist, default), `all` (every name that does not look like a secret) or `none`;
 * `include` adds names (exact, or prefixes ending in `*`; a secret-looking name only when named
 * exactly), `exclude` removes names (wins over both), `set` sets values (never logged).
 */
export interface ShellEnvironmentConfig {
  readonly inherit?: EnvironmentInheritance;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly set: Readonly<Record<string, string>>;
}

/** The `sandbox` object as written in a configuration. */
export interface SandboxConfigInput {
  readonly network?: boolean;
  readonly writableRoots?: readonly string[];
  readonly readableRoots?: readonly string[];
  readonly maxPlanEntries?: number;
}

/** The `shellEnvironment` object as written in a configuration. */
export interface ShellEnvironmentConfigInput {
  readonly inherit?: EnvironmentInheritance;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  readonly set?: Readonly<Record<string, string>>;
}

/** No sandbox settings: a private network, no extra roots, the default plan limit. */
export const EMPTY_SANDBOX_CONFIG: SandboxConfig = Object.freeze({ writableRoots: [], readableRoots: [] });
/** No environment settings: the allowlist. */
export const EMPTY_SHELL_ENVIRONMENT: ShellEnvironmentConfig = Object.freeze({
  include: [],
  exclude: [],
  set: {},
});

/** The largest `sandbox.maxPlanEntries` a configuration may ask for. */
export const MAX_PLAN_ENTRIES_LIMIT = 10_000_000;
/** The default `sandbox.maxPlanEntries` (the jobs package's). */
export const DEFAULT_MAX_PLAN_ENTRIES = 200_000;
const INHERIT_ORDER: readonly EnvironmentInheritance[] = ['none', 'core', 'all'];
/** A variable name, or a prefix ending in `*` (`NPM_CONFIG_*`), or `*` alone. */
const NAME_OR_PREFIX = /^(?:[A-Za-z_][A-Za-z0-9_()]*\*?|\*)$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_SET_VALUE_BYTES = 32 * 1024;
const MAX_LIST_ENTRIES = 256;
const UNTRUSTED = 'the project configuration is not trusted';

function invalid(source: string, field: string, problem: string): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `${source}: ${field}: ${problem}`,
    details: { source, field },
  });
}

function pathList(value: unknown, source: string, field: string): Result<string[], ToolhostError> {
  if (!Array.isArray(value)) return err(invalid(source, field, 'expected an array of path strings'));
  if (value.length > MAX_LIST_ENTRIES)
    return err(invalid(source, field, `at most ${MAX_LIST_ENTRIES} entries`));
  const list: string[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'string' || item.trim() === '' || item.includes('\u0000')) {
      return err(invalid(source, `${field}[${index}]`, 'expected a non-empty path string'));
    }
    list.push(item);
  }
  return ok(list);
}

/**
 * Validates a configuration's `sandbox` object: `network` (boolean), `writableRoots` and
 * `readableRoots` (path strings), `maxPlanEntries` (an integer from 1 to 10 000 000). Unknown fields
 * are `CONFIG_INVALID` naming the field.
 */
export function parseSandboxConfig(value: unknown, source: string): Result<SandboxConfig, ToolhostError> {
  if (value === undefined) return ok(EMPTY_SANDBOX_CONFIG);
  if (!isJsonObject(value)) return err(invalid(source, 'sandbox', 'expected an object'));
  let network: boolean | undefined;
  let maxPlanEntries: number | undefined;
  const lists = { writableRoots: [] as string[], readableRoots: [] as string[] };
  for (const [key, item] of Object.entries(value)) {
    if (key === 'network') {
      if (typeof item !== 'boolean') return err(invalid(source, 'sandbox.network', 'expected true or false'));
      network = item;
    } else if (key === 'writableRoots' || key === 'readableRoots') {
      const list = pathList(item, source, `sandbox.${key}`);
      if (!list.ok) return list;
      lists[key] = list.value;
    } else if (key === 'maxPlanEntries') {
      if (typeof item !== 'number' || !Number.isInteger(item) || item < 1 || item > MAX_PLAN_ENTRIES_LIMIT) {
        return err(
          invalid(
            source,
            'sandbox.maxPlanEntries',
            `expected an integer from 1 to ${MAX_PLAN_ENTRIES_LIMIT}`,
          ),
        );
      }
      maxPlanEntries = item;
    } else {
      return err(
        invalid(
          source,
          `sandbox.${key}`,
          'unknown field; expected network, writableRoots, readableRoots or maxPlanEntries',
        ),
      );
    }
  }
  return ok({
    ...(network === undefined ? {} : { network }),
    ...lists,
    ...(maxPlanEntries === undefined ? {} : { maxPlanEntries }),
  });
}

/**
 * Validates a configuration's `shellEnvironment` object: `inherit` (`core`, `all`, `none`),
 * `include` and `exclude` (variable names or `*`-terminated prefixes) and `set` (names to string
 * values). Messages name the field and never a value.
 */
export function parseShellEnvironment(
  value: unknown,
  source: string,
): Result<ShellEnvironmentConfig, ToolhostError> {
  if (value === undefined) return ok(EMPTY_SHELL_ENVIRONMENT);
  if (!isJsonObject(value)) return err(invalid(source, 'shellEnvironment', 'expected an object'));
  let inherit: EnvironmentInheritance | undefined;
  const names = { include: [] as string[], exclude: [] as string[] };
  const set: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'inherit') {
      if (!INHERIT_ORDER.includes(item as EnvironmentInheritance)) {
        return err(invalid(source, 'shellEnvironment.inherit', 'expected core, all or none'));
      }
      inherit = item as EnvironmentInheritance;
    } else if (key === 'include' || key === 'exclude') {
      const field = `shellEnvironment.${key}`;
      if (!Array.isArray(item)) return err(invalid(source, field, 'expected an array of variable names'));
      if (item.length > MAX_LIST_ENTRIES)
        return err(invalid(source, field, `at most ${MAX_LIST_ENTRIES} entries`));
      for (const [index, name] of item.entries()) {
        if (typeof name !== 'string' || !NAME_OR_PREFIX.test(name)) {
          return err(
            invalid(
              source,
              `${field}[${index}]`,
              'expected a variable name (letters, digits, _), or a prefix ending in *',
            ),
          );
        }
        names[key].push(name);
      }
    } else if (key === 'set') {
      if (!isJsonObject(item))
        return err(invalid(source, 'shellEnvironment.set', 'expected an object of names to strings'));
      const entries = Object.entries(item);
      if (entries.length > MAX_LIST_ENTRIES) {
        return err(invalid(source, 'shellEnvironment.set', `at most ${MAX_LIST_ENTRIES} variables`));
      }
      for (const [name, setting] of entries) {
        // The name is checked before it is shown; the value is never shown.
        if (!VARIABLE_NAME.test(name)) {
          return err(
            invalid(
              source,
              'shellEnvironment.set',
              'every name must be a variable name (letters, digits, _)',
            ),
          );
        }
        if (
          typeof setting !== 'string' ||
          setting.includes('\u0000') ||
          Buffer.byteLength(setting) > MAX_SET_VALUE_BYTES
        ) {
          return err(
            invalid(
              source,
              `shellEnvironment.set.${name}`,
              `expected a string of at most ${MAX_SET_VALUE_BYTES} bytes without NUL`,
            ),
          );
        }
        set[name] = setting;
      }
    } else {
      return err(
        invalid(
          source,
          `shellEnvironment.${key}`,
          'unknown field; expected inherit, include, exclude or set',
        ),
      );
    }
  }
  return ok({ ...(inherit === undefined ? {} : { inherit }), ...names, set });
}

/** `~` and `~/...` stay for the host to expand; other relative paths mean the project root, as in `allowedRoots`. */
function anchored(entry: string, root: string): string {
  if (entry === '~' || entry.startsWith('~/') || isAbsolute(entry)) return entry;
  return resolve(root, entry);
}

/** The sandbox and environment settings of a trusted layer on top of the earlier ones. */
export function mergeShellSettingsTrusted(
  base: { readonly sandbox: SandboxConfig; readonly shellEnvironment: ShellEnvironmentConfig },
  next: { readonly sandbox: SandboxConfig; readonly shellEnvironment: ShellEnvironmentConfig },
  root: string,
): { sandbox: SandboxConfig; shellEnvironment: ShellEnvironmentConfig } {
  const network = next.sandbox.network ?? base.sandbox.network;
  const maxPlanEntries = next.sandbox.maxPlanEntries ?? base.sandbox.maxPlanEntries;
  const inherit = next.shellEnvironment.inherit ?? base.shellEnvironment.inherit;
  return {
    sandbox: {
      ...(network === undefined ? {} : { network }),
      writableRoots: [
        ...base.sandbox.writableRoots,
        ...next.sandbox.writableRoots.map((entry) => anchored(entry, root)),
      ],
      readableRoots: [
        ...base.sandbox.readableRoots,
        ...next.sandbox.readableRoots.map((entry) => anchored(entry, root)),
      ],
      ...(maxPlanEntries === undefined ? {} : { maxPlanEntries }),
    },
    shellEnvironment: {
      ...(inherit === undefined ? {} : { inherit }),
      include: [...base.shellEnvironment.include, ...next.shellEnvironment.include],
      exclude: [...base.shellEnvironment.exclude, ...next.shellEnvironment.exclude],
      set: { ...base.shellEnvironment.set, ...next.shellEnvironment.set },
    },
  };
}

/**
 * The sandbox and environment settings of an untrusted project layer: only what narrows applies.
 * Ignored (and reported): `sandbox.network: true`, every writable and readable root, a
 * `maxPlanEntries` above the earlier layers' (or the default), `shellEnvironment.include` entries, an
 * `inherit` wider than the earlier layers' (`none` < `core` < `all`) and every `set` variable.
 * Applied: `network: false`, a lower `maxPlanEntries`, a narrower `inherit` and `exclude`.
 */
export function mergeShellSettingsUntrusted(
  base: { readonly sandbox: SandboxConfig; readonly shellEnvironment: ShellEnvironmentConfig },
  next: { readonly sandbox: SandboxConfig; readonly shellEnvironment: ShellEnvironmentConfig },
  ignored: { field: string; reason: string }[],
): { sandbox: SandboxConfig; shellEnvironment: ShellEnvironmentConfig } {
  let network = base.sandbox.network;
  if (next.sandbox.network === true && base.sandbox.network !== true) {
    ignored.push({ field: 'sandbox.network', reason: `${UNTRUSTED}: it may not give commands the network` });
  } else if (next.sandbox.network === false) network = false;
  for (const key of ['writableRoots', 'readableRoots'] as const) {
    for (const index of next.sandbox[key].keys()) {
      ignored.push({
        field: `sandbox.${key}[${index}]`,
        reason: `${UNTRUSTED}: it may not show commands more of the host or let them write more`,
      });
    }
  }
  let maxPlanEntries = base.sandbox.maxPlanEntries;
  const planCeiling = base.sandbox.maxPlanEntries ?? DEFAULT_MAX_PLAN_ENTRIES;
  if (next.sandbox.maxPlanEntries !== undefined) {
    if (next.sandbox.maxPlanEntries > planCeiling) {
      ignored.push({
        field: 'sandbox.maxPlanEntries',
        reason: `${UNTRUSTED}: it may not raise the limit beyond ${planCeiling}`,
      });
    } else maxPlanEntries = next.sandbox.maxPlanEntries;
  }
  let inherit = base.shellEnvironment.inherit;
  const inheritCeiling = base.shellEnvironment.inherit ?? 'core';
  const asked = next.shellEnvironment.inherit;
  if (asked !== undefined) {
    if (INHERIT_ORDER.indexOf(asked) > INHERIT_ORDER.indexOf(inheritCeiling)) {
      ignored.push({
        field: 'shellEnvironment.inherit',
        reason: `${UNTRUSTED}: it may not pass commands more of your environment than ${inheritCeiling}`,
      });
    } else inherit = asked;
  }
  for (const index of next.shellEnvironment.include.keys()) {
    ignored.push({
      field: `shellEnvironment.include[${index}]`,
      reason: `${UNTRUSTED}: it may not pass commands more of your environment`,
    });
  }
  for (const name of Object.keys(next.shellEnvironment.set)) {
    ignored.push({
      field: `shellEnvironment.set.${name}`,
      reason: `${UNTRUSTED}: it may not set variables for commands`,
    });
  }
  return {
    sandbox: {
      ...(network === undefined ? {} : { network }),
      writableRoots: [...base.sandbox.writableRoots],
      readableRoots: [...base.sandbox.readableRoots],
      ...(maxPlanEntries === undefined ? {} : { maxPlanEntries }),
    },
    shellEnvironment: {
      ...(inherit === undefined ? {} : { inherit }),
      include: [...base.shellEnvironment.include],
      exclude: [...base.shellEnvironment.exclude, ...next.shellEnvironment.exclude],
      set: { ...base.shellEnvironment.set },
    },
  };
}

/** What the shell's job managers get from the configuration, checked. */
export interface ShellSandboxSettings {
  readonly network: boolean;
  /** Real paths, checked against the path policy (see {@link resolveShellSandbox}). */
  readonly writableRoots: readonly string[];
  /** Real paths (missing ones left out). */
  readonly readableRoots: readonly string[];
  readonly maxPlanEntries: number;
  readonly environment: JobEnvironmentOptions;
}

/** Options of {@link resolveShellSandbox}. */
export interface ResolveShellSandboxOptions {
  readonly sandbox: SandboxConfig;
  readonly shellEnvironment: ShellEnvironmentConfig;
  /** The host's `network` option, which wins over the configuration. */
  readonly network?: boolean | undefined;
  readonly pathPolicy: PathPolicy;
  readonly stateDir: string;
  readonly userConfigDir: string;
  /** Default `os.homedir()`. */
  readonly home?: string;
}

/** `target` is `parent` or inside it, by whole names. */
function inside(parent: string, target: string): boolean {
  const rel = relative(parent, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function realOrSelf(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return resolve(target);
  }
}

function shellConfigError(field: string, problem: string): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `configuration: ${field}: ${problem}`,
    recovery: 'name a directory that holds nothing the host or your login depends on, or remove the entry',
    details: { source: 'configuration', field },
  });
}

/**
 * Checks the configuration's shell sandbox settings against the run's path policy and returns what
 * the job managers get. `~` means the home directory. A writable or readable root that does not exist
 * is left out. `CONFIG_INVALID` naming the entry (never its value) for a writable root that is `/`,
 * a protected or secret path of the path policy, one that contains a root (and so the roots' protected
 * paths), the home directory or a directory above it, one inside a credential store or a system
 * secret, or one that overlaps the state directory or the user configuration directory; and for a
 * readable root that is `/` or overlaps the state directory or the user configuration directory
 * where no root already covers them.
 */
export function resolveShellSandbox(options: ResolveShellSandboxOptions): ShellSandboxSettings {
  const home = realOrSelf(options.home ?? homedir());
  const expand = (entry: string): string =>
    entry === '~' ? home : entry.startsWith('~/') ? join(home, entry.slice(2)) : resolve(entry);
  const roots = options.pathPolicy.roots;
  const hostDirs = [realOrSelf(options.stateDir), realOrSelf(options.userConfigDir)];
  const credentialStores = [...HOME_CREDENTIAL_PATHS.map((name) => join(home, name)), ...SYSTEM_SECRET_PATHS];
  const existing = (lexical: string): string | undefined => {
    try {
      const real = realpathSync.native(lexical);
      statSync(real);
      return real;
    } catch {
      return undefined;
    }
  };

  const writableRoots: string[] = [];
  for (const [index, entry] of options.sandbox.writableRoots.entries()) {
    const field = `sandbox.writableRoots[${index}]`;
    const lexical = expand(entry);
    const real = existing(lexical);
    if (real === undefined) continue;
    if (real === '/') throw shellConfigError(field, 'is the file system root, which is never writable');
    if (options.pathPolicy.isProtected(real, 'write') || options.pathPolicy.isProtected(lexical, 'write')) {
      throw shellConfigError(
        field,
        'is a protected or secret path (or lies inside one), which commands may not write',
      );
    }
    if (roots.some((root) => inside(real, root))) {
      throw shellConfigError(
        field,
        'contains a root, whose protected paths (.git, .toolhost, configured ones) it would make writable',
      );
    }
    if (inside(real, home)) {
      throw shellConfigError(
        field,
        'is the home directory or contains it; its startup files and credential stores stay read-only (name a cache inside it instead)',
      );
    }
    if (credentialStores.some((store) => inside(store, real))) {
      throw shellConfigError(field, 'lies inside a credential store or a system secret');
    }
    if (hostDirs.some((dir) => inside(dir, real) || inside(real, dir))) {
      throw shellConfigError(
        field,
        "overlaps toolhost's state directory or your toolhost configuration directory, which commands may never write",
      );
    }
    if (!writableRoots.includes(real)) writableRoots.push(real);
  }

  const readableRoots: string[] = [];
  for (const [index, entry] of options.sandbox.readableRoots.entries()) {
    const field = `sandbox.readableRoots[${index}]`;
    const real = existing(expand(entry));
    if (real === undefined) continue;
    if (real === '/') throw shellConfigError(field, 'is the file system root; name the directories to show');
    const exposesHostDir = hostDirs.some(
      (dir) => inside(dir, real) || (inside(real, dir) && !roots.some((root) => inside(root, dir))),
    );
    if (exposesHostDir) {
      throw shellConfigError(
        field,
        "overlaps toolhost's state directory or your toolhost configuration directory, which hold other sessions' results and your sign-ins",
      );
    }
    if (!readableRoots.includes(real)) readableRoots.push(real);
  }

  const environment = options.shellEnvironment;
  return {
    network: options.network ?? options.sandbox.network ?? false,
    writableRoots,
    readableRoots,
    maxPlanEntries: options.sandbox.maxPlanEntries ?? DEFAULT_MAX_PLAN_ENTRIES,
    environment: {
      ...(environment.inherit === undefined ? {} : { inherit: environment.inherit }),
      pass: environment.include,
      exclude: environment.exclude,
      set: environment.set,
    },
  };
}
