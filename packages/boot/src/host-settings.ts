import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { AnyToolDefinition } from '@toolhost/contracts';
import { errorMessage, ToolhostError } from '@toolhost/contracts';
import {
  createPathPolicy,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS,
  type PathPolicy,
} from '@toolhost/path-policy';
import type { AuditEvent } from './audit-log.js';
import type { HostExtension } from './host-extension.js';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import type { ApproveCallback } from './host-types.js';
import {
  CONFIG_FILE_NAME,
  type HostConfig,
  type HostConfigInput,
  type SurfaceProfile,
} from './parse-host-config.js';
import { createPermissionRules, type PermissionRules } from './permission-rules.js';
import { type ConfigLayerReport, type IgnoredSetting, resolveHostConfig } from './resolve-host-config.js';
import { resolveShellSandbox, type ShellSandboxSettings } from './sandbox-config.js';
import type { HostPlatform } from './select-surface.js';
import type { HostSnapshot } from './session-snapshot.js';
import type { SubagentRunner } from './subagent-types.js';
import { resolveUserConfigDir } from './user-config.js';

/** Options of {@link createHost}. Explicit options win over the configuration's `defaults`. */
export interface HostOptions {
  /** The project root; default the current directory. Must be an existing directory. */
  readonly root?: string;
  /** More roots the run may access (added to the configuration's `allowedRoots`). */
  readonly allowedRoots?: readonly string[];
  /** Default `read_only`. */
  readonly sandbox?: SandboxMode;
  /** Default `on_request`. */
  readonly approval?: ApprovalPolicy;
  /** Default `lean`. */
  readonly surface?: SurfaceProfile;
  /** Default: detected (`windows` on win32, `posix` elsewhere). */
  readonly platform?: HostPlatform;
  /**
   * The configuration: a parsed object or a file path (both the caller's choice, trusted), or `false`
   * for none. Default: the project's `<root>/toolhost.config.json` when it exists, which is read only
   * from a regular file and, until the user approved its exact bytes, can only narrow the policy
   * (see `resolveHostConfig`; what it could not widen is in {@link Host.configReport}).
   */
  readonly config?: HostConfigInput | string | false;
  /**
   * The user's own configuration (trusted; the project layer goes on top of it): an object or a file.
   * Default none; the `toolhost` command passes `<user config dir>/config.json`.
   */
  readonly userConfig?: HostConfigInput | string | false;
  /**
   * Whether the project configuration may widen the policy: `'store'` (default: only when the user
   * approved its exact bytes with `toolhost trust`), `true` or `false`.
   */
  readonly projectConfigTrust?: boolean | 'store';
  /** The user configuration directory (the trust store); default `resolveUserConfigDir()`. */
  readonly userConfigDir?: string;
  /** Caches, job logs, the result store and the audit log; default `<root>/.toolhost`. */
  readonly stateDir?: string;
  /** Asks a person; without it an "ask" decision fails closed with `APPROVAL_REQUIRED`. */
  readonly approve?: ApproveCallback;
  /** How long `approve` may take, in ms; default the configuration's, else 120000. */
  readonly approvalTimeoutMs?: number;
  /** Receives every audit event, synchronously. */
  readonly onAudit?: (event: AuditEvent) => void;
  /** Writes the JSONL audit log: `true` for `<stateDir>/audit.jsonl`, or a path. Default the configuration's `audit`. */
  readonly auditFile?: boolean | string;
  /**
   * More tools (source `dynamic`, `mcp` or `builtin` for tests), registered beside the built-ins:
   * reachable by name and as `tool:<name>`, never on the provider surface.
   */
  readonly tools?: readonly AnyToolDefinition[];
  /**
   * A snapshot of an earlier host over the same root ({@link Host.snapshot}): its file observations
   * come back (re-validated by content on first use), so a resumed session need not re-read files.
   * Stored results are found again in the state directory. A snapshot of another root or format is
   * `CONFIG_INVALID`.
   */
  readonly restore?: HostSnapshot;
  /**
   * Let shell commands reach the network in a `workspace_write` run (never in `read_only`). Default
   * the configuration's `sandbox.network`, else false.
   */
  readonly network?: boolean;
  /**
   * How long session directories are kept after their last activity and how much disk they may use
   * together; older ones, then the oldest beyond the budget, are removed when a host starts (never one
   * in use). Default 7 days and 2 GiB.
   */
  readonly sessionRetention?: { readonly maxAgeMs?: number; readonly maxBytes?: number };
  /**
   * Top-level argument keys clients add to every call, ignored (and audited) when a tool does not
   * declare them; added to `wait_for_previous` (Gemini CLI) and the configuration's `clientInjectedKeys`.
   */
  readonly clientInjectedKeys?: readonly string[];
  /** The ripgrep executable for `grep`; `null` for the built-in engine; default `rg` on PATH. */
  readonly rgPath?: string | null;
  /**
   * The embedding loop's subagent runner: with it the host registers `task`, `parallel_tasks` and
   * `read_subagent_result` (reachable as `tool:<name>`; on the `full` surface); without it they do
   * not exist. Default none.
   */
  readonly subagents?: SubagentRunner;
  /**
   * Register the tools that need the embedding loop's conversation (`compress`): a loop that owns
   * its sessions' conversations (`toolhost run`) sets it and opens its sessions with a
   * `conversation` port, and only those sessions list and run them. Default false: `compress` is not
   * registered (`toolhost session` and `serve` never list it).
   */
  readonly conversationTools?: boolean;
  /**
   * Programmatic interceptors of every call of the host's sessions, in order: they observe, deny,
   * ask, replace calls (re-resolved, re-validated and re-permitted) and add context. See `HostExtension`.
   */
  readonly extensions?: readonly HostExtension[];
  /**
   * Open sessions in plan mode by default (the default session included): the surface gains
   * `exit_plan_mode`, and writes wait for an approved plan. Default false.
   */
  readonly plan?: boolean;
}

/** A host's validated settings: everything {@link resolveHostSettings} decided from its options. */
export interface HostSettings {
  /** The root as given (absolute). */
  readonly rootInput: string;
  /** The real project root (the path policy's first root). */
  readonly root: string;
  readonly config: HostConfig;
  readonly configReport: {
    readonly layers: readonly ConfigLayerReport[];
    readonly ignored: readonly IgnoredSetting[];
  };
  readonly untrustedServers: ReadonlySet<string>;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly surface: SurfaceProfile;
  readonly platform: HostPlatform;
  readonly approvalTimeoutMs: number;
  readonly stateDir: string;
  /** The user configuration directory (trust store, MCP sign-ins in `mcp-oauth/`). */
  readonly userConfigDir: string;
  readonly rules: PermissionRules;
  readonly pathPolicy: PathPolicy;
  /** The shell sandbox's network, extra roots, plan limit and environment, checked against the path policy. */
  readonly shellSandbox: ShellSandboxSettings;
}

const SANDBOXES: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
const APPROVALS: readonly ApprovalPolicy[] = ['strict', 'on_request', 'never'];
const SURFACES: readonly SurfaceProfile[] = ['lean', 'full'];
const PLATFORMS: readonly HostPlatform[] = ['posix', 'windows'];
const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;

function configError(field: string, problem: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `options: ${field}: ${problem}`,
    details: { source: 'options', field },
    ...(cause === undefined ? {} : { cause }),
  });
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw configError(field, `expected one of ${allowed.join(', ')}`);
  return value as T;
}

/**
 * Validates a host's options and assembles its configuration (`resolveHostConfig`), run policy,
 * permission rules and path policy. Throws `ToolhostError` `CONFIG_INVALID` naming the field.
 */
export function resolveHostSettings(options: HostOptions): HostSettings {
  const rootInput = resolve(options.root ?? process.cwd());
  try {
    if (!statSync(rootInput).isDirectory()) throw configError('root', 'is not a directory');
  } catch (error) {
    if (ToolhostError.isInstance(error)) throw error;
    throw configError('root', 'does not exist or cannot be read', error);
  }
  // Configuration files are named by the real root, so trust granted to one is found again.
  const realRoot = realpathSync(rootInput);
  const userConfigDir = options.userConfigDir ?? resolveUserConfigDir();
  const resolvedConfig = resolveHostConfig({
    root: realRoot,
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.userConfig === undefined ? {} : { userConfig: options.userConfig }),
    projectTrust: options.projectConfigTrust ?? 'store',
    userConfigDir,
  });
  if (!resolvedConfig.ok) throw resolvedConfig.error;
  const config = resolvedConfig.value.config;
  const untrustedServers = resolvedConfig.value.untrustedServers;
  const sandbox = oneOf('sandbox', options.sandbox, SANDBOXES, config.defaults.sandbox ?? 'read_only');
  const approval = oneOf('approval', options.approval, APPROVALS, config.defaults.approval ?? 'on_request');
  const surface = oneOf('surface', options.surface, SURFACES, config.defaults.surface ?? 'lean');
  const platform = oneOf(
    'platform',
    options.platform,
    PLATFORMS,
    process.platform === 'win32' ? 'windows' : 'posix',
  );
  const approvalTimeoutMs =
    options.approvalTimeoutMs ?? config.defaults.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs < 1) {
    throw configError('approvalTimeoutMs', 'expected a positive integer');
  }
  if (options.approve !== undefined && typeof options.approve !== 'function') {
    throw configError('approve', 'expected a function');
  }
  const stateDir = resolve(rootInput, options.stateDir ?? '.toolhost');
  const allowedRoots = [...config.allowedRoots, ...(options.allowedRoots ?? [])].map((root) =>
    resolve(rootInput, root),
  );
  const rules = (() => {
    try {
      return createPermissionRules(config.permissions);
    } catch (error) {
      throw configError('permissions', errorMessage(error), error);
    }
  })();

  // The state directory (job logs, stored results, caches, the audit log) is the host's own: inside
  // the project it is protected from writes and secret for reads and listings, whatever the
  // configuration says, so no file tool, search or sandboxed command can read it back or change it
  // (the model pages results with session:tool_result and reads jobs with job_output). The anchored
  // pattern matches the directory itself too; it comes last so no `!` exception can re-expose it.
  const stateRelative = relative(rootInput, stateDir);
  const stateInsideRoot =
    stateRelative !== '' && !stateRelative.startsWith('..') && !isAbsolute(stateRelative);
  const statePatterns = stateInsideRoot ? [`/${stateRelative.split(/[\\/]/).join('/')}/**`] : [];
  // The configuration is the user's, not the model's: every configuration file read from inside the
  // project, the project file's name at any depth (a nested project's own) and the user's own
  // configuration directory when a root contains it are protected in every layer (file tools and the
  // shell sandbox); the user directory is secret as well (it holds the trust store and sign-ins).
  const configPatterns = [
    CONFIG_FILE_NAME,
    ...resolvedConfig.value.files.map((file) => anchoredPattern(realRoot, file)).filter(isString),
  ];
  const userDirPatterns = [realRoot, ...allowedRoots]
    .map((base) => anchoredPattern(base, userConfigDir, true))
    .filter(isString);
  const protectedPaths = [
    ...DEFAULT_PROTECTED_PATHS,
    ...configPatterns,
    ...config.protectedPaths,
    ...userDirPatterns,
    ...statePatterns,
  ];
  const secretPaths = [...DEFAULT_SECRET_PATHS, ...config.secretPaths, ...userDirPatterns, ...statePatterns];
  let pathPolicy: PathPolicy;
  try {
    pathPolicy = createPathPolicy({
      mode:
        sandbox === 'danger_full_access'
          ? 'danger_full_access'
          : allowedRoots.length > 0
            ? 'allowed_roots'
            : 'current_project',
      root: rootInput,
      allowedRoots: sandbox === 'danger_full_access' ? allowedRoots : [rootInput, ...allowedRoots],
      protectedPaths,
      secretPaths,
    });
  } catch (error) {
    throw configError('allowedRoots', errorMessage(error), error);
  }
  const root = pathPolicy.roots[0] ?? rootInput;
  if (options.network !== undefined && typeof options.network !== 'boolean') {
    throw configError('network', 'expected true or false');
  }
  const shellSandbox = resolveShellSandbox({
    sandbox: config.sandbox,
    shellEnvironment: config.shellEnvironment,
    network: options.network,
    pathPolicy,
    stateDir,
    userConfigDir,
  });
  return {
    rootInput,
    root,
    config,
    configReport: { layers: resolvedConfig.value.layers, ignored: resolvedConfig.value.ignored },
    untrustedServers,
    sandbox,
    approval,
    surface,
    platform,
    approvalTimeoutMs,
    stateDir,
    userConfigDir,
    rules,
    pathPolicy,
    shellSandbox,
  };
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}

/** A root-anchored pattern (`/a/b`, with `/**` for a directory) for `target` when it lies inside `base`. */
function anchoredPattern(base: string, target: string, directory = false): string | undefined {
  const rel = relative(base, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined;
  const names = rel.split(/[\\/]/).join('/');
  return directory ? `/${names}/**` : `/${names}`;
}
