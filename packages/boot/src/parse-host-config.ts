import { readFileSync } from 'node:fs';
import { type McpServerConfig, parseMcpServers } from '@toolhost/capability-proxy';
import { err, errorMessage, isJsonObject, ok, type Result, ToolhostError } from '@toolhost/contracts';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import { type ConfiguredHook, type HooksConfig, parseHooksConfig } from './hook-config.js';
import { parsePermissionRule } from './permission-rules.js';
import {
  EMPTY_SANDBOX_CONFIG,
  EMPTY_SHELL_ENVIRONMENT,
  parseSandboxConfig,
  parseShellEnvironment,
  type SandboxConfig,
  type SandboxConfigInput,
  type ShellEnvironmentConfig,
  type ShellEnvironmentConfigInput,
} from './sandbox-config.js';

/** The name of the configuration file looked up in the root. */
export const CONFIG_FILE_NAME = 'toolhost.config.json';

/** One `mcpServers` entry (the capability proxy's format: Claude Desktop / Cursor, plus `trusted`, `enabled`). */
export type { McpServerConfig };

/** Which built-ins go on the provider surface. */
export type SurfaceProfile = 'lean' | 'full';

/** Defaults a configuration may set; explicit host options win over them. */
export interface HostConfigDefaults {
  readonly sandbox?: SandboxMode;
  readonly approval?: ApprovalPolicy;
  readonly surface?: SurfaceProfile;
  /** How long an approval may wait for a person, in ms; default 120000. */
  readonly approvalTimeoutMs?: number;
}

/** The `webFetch` settings: which local or private hosts web_fetch may reach. */
export interface WebFetchConfig {
  /** Host names and IP literals fetched whatever they resolve to (local development servers). */
  readonly allowHosts: readonly string[];
  /** Loopback, private, link-local and shared addresses are allowed (cloud metadata addresses never). */
  readonly allowPrivateNetwork: boolean;
}

/** A validated `toolhost.config.json`. */
export interface HostConfig {
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly permissions: {
    readonly allow: readonly string[];
    readonly ask: readonly string[];
    readonly deny: readonly string[];
  };
  /** Extra protected paths (glob patterns relative to the root), added to the built-in ones. */
  readonly protectedPaths: readonly string[];
  /** Extra secret paths (never read into context), added to the built-in ones. */
  readonly secretPaths: readonly string[];
  /** Extra roots the run may access besides the project root. */
  readonly allowedRoots: readonly string[];
  readonly defaults: HostConfigDefaults;
  /** Write the JSONL audit log: `true` for `<state dir>/audit.jsonl`, or a path. */
  readonly audit?: boolean | string;
  /**
   * Argument keys that MCP clients are known to add to every call (Gemini CLI's `wait_for_previous`):
   * dropped before validation when the tool's schema does not declare them, and reported in the
   * audit log. Added to the default list.
   */
  readonly clientInjectedKeys?: readonly string[];
  /** web_fetch's address guard exceptions; default none. */
  readonly webFetch: WebFetchConfig;
  /** The shell's OS sandbox: network, writable and readable roots, the plan limit (`sandbox-config.ts`). */
  readonly sandbox: SandboxConfig;
  /** Which host variables shell commands see (`sandbox-config.ts`). */
  readonly shellEnvironment: ShellEnvironmentConfig;
  /**
   * Hook commands (Claude Code's `hooks` format), validated and in configuration order, each named
   * by its place (`hooks.PreToolUse[0].hooks[1]`) and file. An untrusted project configuration's
   * hooks are never here (they are commands: see `resolveHostConfig`).
   */
  readonly hooks: readonly ConfiguredHook[];
}

/** The configuration as written (every field optional), for passing one in code. */
export interface HostConfigInput {
  readonly $schema?: string;
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  readonly permissions?: {
    readonly allow?: readonly string[];
    readonly ask?: readonly string[];
    readonly deny?: readonly string[];
  };
  readonly protectedPaths?: readonly string[];
  readonly secretPaths?: readonly string[];
  readonly allowedRoots?: readonly string[];
  readonly defaults?: HostConfigDefaults;
  readonly audit?: boolean | string;
  readonly clientInjectedKeys?: readonly string[];
  readonly webFetch?: { readonly allowHosts?: readonly string[]; readonly allowPrivateNetwork?: boolean };
  readonly sandbox?: SandboxConfigInput;
  readonly shellEnvironment?: ShellEnvironmentConfigInput;
  readonly hooks?: HooksConfig;
}

/** An empty configuration (what a missing default file means). */
export const EMPTY_HOST_CONFIG: HostConfig = Object.freeze({
  mcpServers: {},
  permissions: { allow: [], ask: [], deny: [] },
  protectedPaths: [],
  secretPaths: [],
  allowedRoots: [],
  defaults: {},
  webFetch: { allowHosts: [], allowPrivateNetwork: false },
  sandbox: EMPTY_SANDBOX_CONFIG,
  shellEnvironment: EMPTY_SHELL_ENVIRONMENT,
  hooks: [],
});

const TOP_LEVEL = new Set([
  '$schema',
  'mcpServers',
  'permissions',
  'protectedPaths',
  'secretPaths',
  'allowedRoots',
  'defaults',
  'audit',
  'clientInjectedKeys',
  'webFetch',
  'sandbox',
  'shellEnvironment',
  'hooks',
]);
const SANDBOXES: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
const APPROVALS: readonly ApprovalPolicy[] = ['strict', 'on_request', 'never'];
const SURFACES: readonly SurfaceProfile[] = ['lean', 'full'];

function invalid(source: string, field: string, problem: string): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `${source}: ${field}: ${problem}`,
    details: { source, field },
  });
}

/**
 * Validates a parsed configuration. Every failure is `CONFIG_INVALID` naming the file and the field
 * (`permissions.allow[2]`, `mcpServers.github.command` ...). Unknown top-level fields are refused,
 * because a misspelt `permisions` would otherwise silently drop the rules.
 */
export function parseHostConfig(
  value: unknown,
  source = CONFIG_FILE_NAME,
): Result<HostConfig, ToolhostError> {
  if (!isJsonObject(value)) return err(invalid(source, '(root)', 'expected a JSON object'));
  for (const key of Object.keys(value)) {
    if (!TOP_LEVEL.has(key)) {
      return err(
        invalid(
          source,
          key,
          `unknown field; expected one of ${[...TOP_LEVEL].filter((k) => k !== '$schema').join(', ')}`,
        ),
      );
    }
  }
  const servers: Record<string, McpServerConfig> = {};
  if (value.mcpServers !== undefined) {
    // The capability proxy owns the server format; its errors name the field.
    const checked = parseMcpServers(value.mcpServers);
    if (!checked.ok) {
      const field =
        typeof checked.error.details.field === 'string' ? checked.error.details.field : 'mcpServers';
      return err(
        new ToolhostError({
          code: 'CONFIG_INVALID',
          message: `${source}: ${checked.error.message}`,
          details: { source, field },
          cause: checked.error,
        }),
      );
    }
    for (const [name, server] of Object.entries(value.mcpServers as Record<string, McpServerConfig>)) {
      servers[name] = server;
    }
  }
  const permissions = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  if (value.permissions !== undefined) {
    if (!isJsonObject(value.permissions)) {
      return err(invalid(source, 'permissions', 'expected an object with allow, ask and deny lists'));
    }
    for (const key of Object.keys(value.permissions)) {
      if (key !== 'allow' && key !== 'ask' && key !== 'deny') {
        return err(invalid(source, `permissions.${key}`, 'unknown field; expected allow, ask or deny'));
      }
      const list = value.permissions[key];
      if (!Array.isArray(list))
        return err(invalid(source, `permissions.${key}`, 'expected an array of rules'));
      for (const [index, rule] of list.entries()) {
        const parsed = parsePermissionRule(rule);
        if (!parsed.ok) return err(invalid(source, `permissions.${key}[${index}]`, parsed.error));
        permissions[key].push(parsed.value.text);
      }
    }
  }
  const lists: Record<'protectedPaths' | 'secretPaths' | 'allowedRoots', string[]> = {
    protectedPaths: [],
    secretPaths: [],
    allowedRoots: [],
  };
  for (const key of ['protectedPaths', 'secretPaths', 'allowedRoots'] as const) {
    const list = value[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return err(invalid(source, key, 'expected an array of path strings'));
    for (const [index, item] of list.entries()) {
      if (typeof item !== 'string' || item.trim() === '' || item.includes('\u0000')) {
        return err(invalid(source, `${key}[${index}]`, 'expected a non-empty path string'));
      }
      lists[key].push(item);
    }
  }
  const defaults: {
    sandbox?: SandboxMode;
    approval?: ApprovalPolicy;
    surface?: SurfaceProfile;
    approvalTimeoutMs?: number;
  } = {};
  if (value.defaults !== undefined) {
    if (!isJsonObject(value.defaults)) return err(invalid(source, 'defaults', 'expected an object'));
    for (const [key, item] of Object.entries(value.defaults)) {
      if (key === 'sandbox') {
        if (!SANDBOXES.includes(item as SandboxMode)) {
          return err(invalid(source, 'defaults.sandbox', `expected one of ${SANDBOXES.join(', ')}`));
        }
        defaults.sandbox = item as SandboxMode;
      } else if (key === 'approval') {
        if (!APPROVALS.includes(item as ApprovalPolicy)) {
          return err(invalid(source, 'defaults.approval', `expected one of ${APPROVALS.join(', ')}`));
        }
        defaults.approval = item as ApprovalPolicy;
      } else if (key === 'surface') {
        if (!SURFACES.includes(item as SurfaceProfile)) {
          return err(invalid(source, 'defaults.surface', `expected one of ${SURFACES.join(', ')}`));
        }
        defaults.surface = item as SurfaceProfile;
      } else if (key === 'approvalTimeoutMs') {
        if (typeof item !== 'number' || !Number.isInteger(item) || item < 1 || item > 86_400_000) {
          return err(invalid(source, 'defaults.approvalTimeoutMs', 'expected an integer from 1 to 86400000'));
        }
        defaults.approvalTimeoutMs = item;
      } else {
        return err(
          invalid(
            source,
            `defaults.${key}`,
            'unknown field; expected sandbox, approval, surface or approvalTimeoutMs',
          ),
        );
      }
    }
  }
  let audit: boolean | string | undefined;
  if (value.audit !== undefined) {
    if (typeof value.audit !== 'boolean' && (typeof value.audit !== 'string' || value.audit.trim() === '')) {
      return err(invalid(source, 'audit', 'expected true, false or a file path'));
    }
    audit = value.audit;
  }
  let clientInjectedKeys: string[] | undefined;
  if (value.clientInjectedKeys !== undefined) {
    const keys = value.clientInjectedKeys;
    if (!Array.isArray(keys))
      return err(invalid(source, 'clientInjectedKeys', 'expected an array of key names'));
    clientInjectedKeys = [];
    for (const [index, key] of keys.entries()) {
      if (typeof key !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(key)) {
        return err(
          invalid(source, `clientInjectedKeys[${index}]`, 'expected a key name (letters, digits, _ . -)'),
        );
      }
      clientInjectedKeys.push(key);
    }
  }
  const webFetch = parseWebFetch(value.webFetch, source);
  if (!webFetch.ok) return webFetch;
  const sandbox = parseSandboxConfig(value.sandbox, source);
  if (!sandbox.ok) return sandbox;
  const shellEnvironment = parseShellEnvironment(value.shellEnvironment, source);
  if (!shellEnvironment.ok) return shellEnvironment;
  const hooks = parseHooksConfig(value.hooks, source);
  if (!hooks.ok) return err(invalid(source, hooks.error.field, hooks.error.problem));
  return ok({
    mcpServers: servers,
    permissions,
    ...lists,
    defaults,
    ...(audit === undefined ? {} : { audit }),
    ...(clientInjectedKeys === undefined ? {} : { clientInjectedKeys }),
    webFetch: webFetch.value,
    sandbox: sandbox.value,
    shellEnvironment: shellEnvironment.value,
    hooks: hooks.value.hooks,
  });
}

/** Validates `webFetch`: `allowHosts` (host names or IP literals, no scheme, port or path) and `allowPrivateNetwork`. */
function parseWebFetch(value: unknown, source: string): Result<WebFetchConfig, ToolhostError> {
  if (value === undefined) return ok({ allowHosts: [], allowPrivateNetwork: false });
  if (!isJsonObject(value)) return err(invalid(source, 'webFetch', 'expected an object'));
  const allowHosts: string[] = [];
  let allowPrivateNetwork = false;
  for (const [key, item] of Object.entries(value)) {
    if (key === 'allowPrivateNetwork') {
      if (typeof item !== 'boolean')
        return err(invalid(source, 'webFetch.allowPrivateNetwork', 'expected true or false'));
      allowPrivateNetwork = item;
    } else if (key === 'allowHosts') {
      if (!Array.isArray(item))
        return err(invalid(source, 'webFetch.allowHosts', 'expected an array of host names'));
      for (const [index, host] of item.entries()) {
        if (
          typeof host !== 'string' ||
          !/^(?:\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9_.-]{1,253})$/.test(host.trim())
        )
          return err(
            invalid(
              source,
              `webFetch.allowHosts[${index}]`,
              'expected a host name or IP address (no scheme, port or path)',
            ),
          );
        allowHosts.push(host.trim());
      }
    } else {
      return err(
        invalid(source, `webFetch.${key}`, 'unknown field; expected allowHosts or allowPrivateNetwork'),
      );
    }
  }
  return ok({ allowHosts, allowPrivateNetwork });
}

/**
 * Parses and validates a configuration file's text (a leading BOM is skipped). Invalid JSON is
 * `CONFIG_INVALID` with the parser's position, naming `source`.
 */
export function parseConfigText(text: string, source: string): Result<HostConfig, ToolhostError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return err(
      new ToolhostError({
        code: 'CONFIG_INVALID',
        message: `${source}: (file): not valid JSON (${errorMessage(error)})`,
        details: { source, field: '(file)' },
        cause: error,
      }),
    );
  }
  return parseHostConfig(parsed, source);
}

/**
 * Reads and validates a configuration file. A missing file is an empty configuration when
 * `optional` is set, and `CONFIG_INVALID` otherwise; so are unreadable files and invalid JSON (with
 * the parser's position). Hosts read their layers with `resolveHostConfig`, which also refuses links.
 */
export function loadHostConfig(
  file: string,
  options: { readonly optional?: boolean } = {},
): Result<HostConfig, ToolhostError> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.optional) return ok(EMPTY_HOST_CONFIG);
    return err(
      new ToolhostError({
        code: 'CONFIG_INVALID',
        message: `${file}: (file): cannot read the configuration (${code ?? 'unknown error'})`,
        details: { source: file, field: '(file)' },
        cause: error,
      }),
    );
  }
  return parseConfigText(text, file);
}
