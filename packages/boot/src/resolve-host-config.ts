import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { err, ok, type Result, ToolhostError } from '@toolhost/contracts';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import {
  CONFIG_FILE_NAME,
  EMPTY_HOST_CONFIG,
  type HostConfig,
  type HostConfigInput,
  type McpServerConfig,
  parseConfigText,
  parseHostConfig,
} from './parse-host-config.js';
import { mergeShellSettingsTrusted, mergeShellSettingsUntrusted } from './sandbox-config.js';
import { configDigest, isProjectConfigTrusted, resolveUserConfigDir } from './user-config.js';

/** Where a configuration layer came from, and whether what it widens counts. */
export type ConfigRole = 'user' | 'explicit' | 'project' | 'options';

/** One configuration layer that was read. */
export interface ConfigLayerReport {
  readonly role: ConfigRole;
  /** The file, for file layers. */
  readonly file?: string;
  /** Whether the layer may widen the run policy (a project layer only after the user approved its bytes). */
  readonly trusted: boolean;
  /** SHA-256 of the file's bytes, for file layers. */
  readonly sha256?: string;
}

/** A setting of an untrusted project configuration that was not applied because it would widen the policy. */
export interface IgnoredSetting {
  /** The field, such as `defaults.sandbox`, `permissions.allow[0]`, `allowedRoots[1]`, `mcpServers.x.trusted`. */
  readonly field: string;
  readonly reason: string;
}

/** The effective configuration of a host and how it was assembled. */
export interface ResolvedHostConfig {
  readonly config: HostConfig;
  readonly layers: readonly ConfigLayerReport[];
  /** What an untrusted project configuration asked for and did not get. */
  readonly ignored: readonly IgnoredSetting[];
  /** MCP servers defined only by an untrusted project configuration: connecting them needs a person. */
  readonly untrustedServers: ReadonlySet<string>;
  /** The configuration files read that lie inside the project (protected from the model). */
  readonly files: readonly string[];
}

/** Options of {@link resolveHostConfig}. */
export interface ResolveHostConfigOptions {
  /** The project root (absolute). */
  readonly root: string;
  /**
   * The host's own configuration: an object or an explicit file (the user's choice, trusted), `false`
   * for none, or `undefined` for the project's `<root>/toolhost.config.json` (untrusted unless approved).
   */
  readonly config?: HostConfigInput | string | false;
  /** The user's own configuration (trusted): an object, a file, or `undefined`/`false` for none. */
  readonly userConfig?: HostConfigInput | string | false;
  /**
   * Whether the project configuration may widen the policy: `true`, `false`, or `'store'` (default):
   * only when the user approved its exact bytes (`toolhost trust`, {@link isProjectConfigTrusted}).
   */
  readonly projectTrust?: boolean | 'store';
  /** The user configuration directory that holds the trust store; default {@link resolveUserConfigDir}. */
  readonly userConfigDir?: string;
}

/** A project configuration larger than this is refused (it is a small JSON file). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

const SANDBOX_ORDER: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
const APPROVAL_ORDER: readonly ApprovalPolicy[] = ['strict', 'on_request', 'never'];
const UNTRUSTED = 'the project configuration is not trusted';

function fileError(file: string, problem: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `${file}: (file): ${problem}`,
    details: { source: file, field: '(file)' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Reads a configuration file without following a final symbolic link, without blocking on a FIFO and
 * within {@link MAX_CONFIG_BYTES}. `missingOk` turns a missing file into `undefined`.
 */
export function readConfigFile(
  file: string,
  options: { readonly missingOk?: boolean; readonly refuseSymlink?: boolean } = {},
): Result<{ readonly bytes: Buffer } | undefined, ToolhostError> {
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_RDONLY | constants.O_NONBLOCK | (options.refuseSymlink ? constants.O_NOFOLLOW : 0),
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.missingOk) return ok(undefined);
    if (code === 'ELOOP' && options.refuseSymlink) {
      return err(
        fileError(
          file,
          'is a symbolic link; a project configuration is read only from a regular file inside the project (replace the link with the file itself, or pass --config)',
          error,
        ),
      );
    }
    return err(fileError(file, `cannot read the configuration (${code ?? 'unknown error'})`, error));
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return err(fileError(file, 'is not a regular file'));
    if (stat.size > MAX_CONFIG_BYTES) {
      return err(fileError(file, `is larger than ${MAX_CONFIG_BYTES} bytes, the limit for a configuration`));
    }
    const bytes = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return ok({ bytes: bytes.subarray(0, filled) });
  } catch (error) {
    return err(fileError(file, 'cannot read the configuration', error));
  } finally {
    closeSync(fd);
  }
}

interface Layer {
  readonly report: ConfigLayerReport;
  readonly config: HostConfig;
}

function loadLayer(
  role: ConfigRole,
  setting: HostConfigInput | string,
  root: string,
  trusted: (file: string, sha256: string) => boolean,
): Result<Layer | undefined, ToolhostError> {
  if (typeof setting !== 'string') {
    const parsed = parseHostConfig(setting, role === 'user' ? 'userConfig' : 'options.config');
    return parsed.ok ? ok({ report: { role: 'options', trusted: true }, config: parsed.value }) : parsed;
  }
  const file = resolve(root, setting);
  const project = role === 'project';
  const read = readConfigFile(file, { missingOk: project || role === 'user', refuseSymlink: project });
  if (!read.ok) return read;
  if (read.value === undefined) return ok(undefined);
  const sha256 = configDigest(read.value.bytes);
  const parsed = parseConfigText(read.value.bytes.toString('utf8'), file);
  if (!parsed.ok) return parsed;
  return ok({
    report: { role, file, sha256, trusted: project ? trusted(file, sha256) : true },
    config: parsed.value,
  });
}

function wider<T>(order: readonly T[], candidate: T, ceiling: T): boolean {
  return order.indexOf(candidate) > order.indexOf(ceiling);
}

/**
 * Assembles a host's configuration from its layers: the user's own configuration (trusted), then
 * either an explicit configuration (an object in code or a `--config` file: the user's choice,
 * trusted) or the project's `<root>/toolhost.config.json`.
 *
 * The project file is data the model may have written: it is read only as a regular file (a symbolic
 * link is `CONFIG_INVALID`), and unless the user approved its exact bytes it can only narrow what the
 * other layers grant. Dropped, each listed in `ignored`: `defaults.sandbox` / `defaults.approval` wider
 * than the built-in defaults (`read_only`, `on_request`) or the user's, `allowedRoots`, `permissions.allow`,
 * `!` exceptions in `protectedPaths` / `secretPaths`, an `audit` path, a server that replaces one of the
 * user's, `trusted` on its servers, `webFetch` exceptions, every hook (a hook is a command), and the
 * shell settings that widen (`sandbox.network: true`, writable and readable roots, a higher
 * `sandbox.maxPlanEntries`, `shellEnvironment.include`, a wider `inherit`, `set`). Its other
 * servers stay listed, but connecting one asks a person (`untrustedServers`). Narrowing settings (deny and ask rules, more protected and secret patterns,
 * a stricter default) apply.
 */
export function resolveHostConfig(
  options: ResolveHostConfigOptions,
): Result<ResolvedHostConfig, ToolhostError> {
  const root = options.root;
  const trustDir = options.userConfigDir ?? resolveUserConfigDir();
  const projectTrust = options.projectTrust ?? 'store';
  const trusted = (file: string, sha256: string): boolean =>
    projectTrust === 'store' ? isProjectConfigTrusted(trustDir, file, sha256) : projectTrust;
  const layers: Layer[] = [];
  if (options.userConfig !== undefined && options.userConfig !== false) {
    const user = loadLayer('user', options.userConfig, root, trusted);
    if (!user.ok) return user;
    if (user.value) layers.push({ ...user.value, report: { ...user.value.report, role: 'user' } });
  }
  if (options.config !== false) {
    const setting = options.config ?? join(root, CONFIG_FILE_NAME);
    const role: ConfigRole = options.config === undefined ? 'project' : 'explicit';
    const layer = loadLayer(role, setting, root, trusted);
    if (!layer.ok) return layer;
    if (layer.value) layers.push(layer.value);
  }
  const ignored: IgnoredSetting[] = [];
  const untrustedServers = new Set<string>();
  let merged: HostConfig = EMPTY_HOST_CONFIG;
  for (const layer of layers) {
    merged = layer.report.trusted
      ? mergeTrusted(merged, layer.config, root)
      : mergeUntrusted(merged, layer.config, ignored, untrustedServers);
  }
  const files = layers
    .map((layer) => layer.report.file)
    .filter((file): file is string => file !== undefined && isInside(root, file));
  return ok({
    config: merged,
    layers: layers.map((layer) => layer.report),
    ignored,
    untrustedServers,
    files,
  });
}

function isInside(root: string, file: string): boolean {
  const rel = file.startsWith(root) ? file.slice(root.length) : undefined;
  return rel !== undefined && (rel === '' || rel.startsWith('/') || rel.startsWith('\\'));
}

/** A trusted layer: its lists add to the earlier ones, its defaults and servers win. */
function mergeTrusted(base: HostConfig, next: HostConfig, root: string): HostConfig {
  return {
    mcpServers: { ...base.mcpServers, ...next.mcpServers },
    permissions: {
      allow: [...base.permissions.allow, ...next.permissions.allow],
      ask: [...base.permissions.ask, ...next.permissions.ask],
      deny: [...base.permissions.deny, ...next.permissions.deny],
    },
    protectedPaths: [...base.protectedPaths, ...next.protectedPaths],
    secretPaths: [...base.secretPaths, ...next.secretPaths],
    // Relative roots of every layer mean the project root, as they always have.
    allowedRoots: [
      ...base.allowedRoots,
      ...next.allowedRoots.map((entry) => (isAbsolute(entry) ? entry : resolve(root, entry))),
    ],
    defaults: { ...base.defaults, ...next.defaults },
    webFetch: {
      allowHosts: [...new Set([...base.webFetch.allowHosts, ...next.webFetch.allowHosts])],
      allowPrivateNetwork: base.webFetch.allowPrivateNetwork || next.webFetch.allowPrivateNetwork,
    },
    // Every trusted layer's hooks run, the user's own first.
    hooks: [...base.hooks, ...next.hooks],
    ...mergedKeys(base, next),
    ...mergeShellSettingsTrusted(base, next, root),
    ...(next.audit !== undefined
      ? { audit: next.audit }
      : base.audit !== undefined
        ? { audit: base.audit }
        : {}),
  };
}

/** An untrusted layer: only what narrows the earlier layers applies; the rest is reported. */
function mergeUntrusted(
  base: HostConfig,
  next: HostConfig,
  ignored: IgnoredSetting[],
  untrustedServers: Set<string>,
): HostConfig {
  const defaults = { ...base.defaults };
  const sandboxCeiling = base.defaults.sandbox ?? 'read_only';
  if (next.defaults.sandbox !== undefined) {
    if (wider(SANDBOX_ORDER, next.defaults.sandbox, sandboxCeiling)) {
      ignored.push({
        field: 'defaults.sandbox',
        reason: `${UNTRUSTED}: it may not widen the sandbox beyond ${sandboxCeiling}`,
      });
    } else defaults.sandbox = next.defaults.sandbox;
  }
  const approvalCeiling = base.defaults.approval ?? 'on_request';
  if (next.defaults.approval !== undefined) {
    if (wider(APPROVAL_ORDER, next.defaults.approval, approvalCeiling)) {
      ignored.push({
        field: 'defaults.approval',
        reason: `${UNTRUSTED}: it may not ask less than ${approvalCeiling}`,
      });
    } else defaults.approval = next.defaults.approval;
  }
  // The surface and the approval timeout decide no boundary.
  if (next.defaults.surface !== undefined) defaults.surface = next.defaults.surface;
  if (next.defaults.approvalTimeoutMs !== undefined)
    defaults.approvalTimeoutMs = next.defaults.approvalTimeoutMs;
  for (const index of next.permissions.allow.keys()) {
    ignored.push({
      field: `permissions.allow[${index}]`,
      reason: `${UNTRUSTED}: it may not allow calls without asking`,
    });
  }
  for (const index of next.allowedRoots.keys()) {
    ignored.push({ field: `allowedRoots[${index}]`, reason: `${UNTRUSTED}: it may not add roots` });
  }
  const narrowPatterns = (key: 'protectedPaths' | 'secretPaths'): string[] =>
    next[key].filter((pattern, index) => {
      if (!pattern.trimStart().startsWith('!')) return true;
      ignored.push({
        field: `${key}[${index}]`,
        reason: `${UNTRUSTED}: an exception may not expose a protected or secret path`,
      });
      return false;
    });
  const mcpServers: Record<string, McpServerConfig> = { ...base.mcpServers };
  for (const [name, server] of Object.entries(next.mcpServers)) {
    if (base.mcpServers[name] !== undefined) {
      ignored.push({
        field: `mcpServers.${name}`,
        reason: `${UNTRUSTED}: it may not replace a server of your own configuration`,
      });
      continue;
    }
    if (server.trusted === true) {
      ignored.push({
        field: `mcpServers.${name}.trusted`,
        reason: `${UNTRUSTED}: its servers' hints are claims, not facts`,
      });
    }
    const { trusted: _dropped, ...rest } = server;
    mcpServers[name] = rest;
    untrustedServers.add(name);
  }
  for (const index of next.webFetch.allowHosts.keys()) {
    ignored.push({
      field: `webFetch.allowHosts[${index}]`,
      reason: `${UNTRUSTED}: it may not let web_fetch reach local or private hosts`,
    });
  }
  if (next.webFetch.allowPrivateNetwork) {
    ignored.push({
      field: 'webFetch.allowPrivateNetwork',
      reason: `${UNTRUSTED}: it may not let web_fetch reach local or private hosts`,
    });
  }
  // A hook is a command the host runs as the user, outside every sandbox: a file the model may have
  // written must never choose one.
  for (const hook of next.hooks) {
    ignored.push({ field: hook.id, reason: `${UNTRUSTED}: its hooks are commands, which it may not run` });
  }
  let audit = base.audit;
  if (next.audit !== undefined) {
    if (typeof next.audit === 'string') {
      ignored.push({
        field: 'audit',
        reason: `${UNTRUSTED}: it may not choose where the host writes (use true for the state directory)`,
      });
    } else if (audit === undefined || typeof audit === 'boolean') audit = next.audit || audit;
  }
  return {
    mcpServers,
    permissions: {
      allow: [...base.permissions.allow],
      ask: [...base.permissions.ask, ...next.permissions.ask],
      deny: [...base.permissions.deny, ...next.permissions.deny],
    },
    protectedPaths: [...base.protectedPaths, ...narrowPatterns('protectedPaths')],
    secretPaths: [...base.secretPaths, ...narrowPatterns('secretPaths')],
    allowedRoots: [...base.allowedRoots],
    defaults,
    webFetch: base.webFetch,
    hooks: base.hooks,
    // Ignoring undeclared keys a client adds widens nothing: a declared property is never dropped.
    ...mergedKeys(base, next),
    // The shell's network, extra roots and environment widen; exclusions and lower limits narrow.
    ...mergeShellSettingsUntrusted(base, next, ignored),
    ...(audit === undefined ? {} : { audit }),
  };
}

function mergedKeys(base: HostConfig, next: HostConfig): { clientInjectedKeys?: readonly string[] } {
  if (base.clientInjectedKeys === undefined && next.clientInjectedKeys === undefined) return {};
  return {
    clientInjectedKeys: [
      ...new Set([...(base.clientInjectedKeys ?? []), ...(next.clientInjectedKeys ?? [])]),
    ],
  };
}
