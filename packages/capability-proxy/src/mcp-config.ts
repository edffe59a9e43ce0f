import { createHash } from 'node:crypto';
import { err, ok, type Result, ToolhostError } from '@toolhost/contracts';

/**
 * One entry of `mcpServers`, in the format Claude Desktop and Cursor use (`command`, `args`, `env`,
 * `cwd` for a local server; `url`, `headers` for a remote one), plus toolhost's `enabled` and
 * `trusted`, and a transport hint (`type` or `transport`).
 */
export interface McpServerConfig {
  readonly command?: string;
  readonly args?: readonly string[];
  /** Variables the server gets on top of the safe environment. Values may use `${VAR}` / `${env:VAR}` / `${VAR:-default}`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  /** HTTP headers for a remote server; values may use `${VAR}` like `env`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `stdio`, `http` (Streamable HTTP only), `streamable-http` / `streamableHttp`, or `sse` (legacy HTTP+SSE only). */
  readonly type?: string;
  /** Same as `type` (some clients spell it this way). */
  readonly transport?: string;
  /** Default true. A disabled server is listed but never started. */
  readonly enabled?: boolean;
  /** Cursor's and Cline's spelling: `disabled: true` equals `enabled: false`. */
  readonly disabled?: boolean;
  /** Default false. Only a trusted server's tool annotations are passed to the permission step as trusted hints. */
  readonly trusted?: boolean;
  /**
   * toolhost's own per-server timeouts in ms, over the proxy's (`handshakeMs` 5000, `requestMs`
   * 60000 without an answer or progress, `totalMs` 120000 hard, whatever progress says); each an
   * integer from 1 to 3600000.
   */
  readonly timeouts?: {
    readonly handshakeMs?: number;
    readonly requestMs?: number;
    readonly totalMs?: number;
  };
}

/** The `mcpServers` object of a configuration file. */
export type McpServersConfig = Readonly<Record<string, McpServerConfig>>;

/** How the proxy reaches a server. `http-auto` tries Streamable HTTP, then the legacy SSE transport. */
export type McpTransportKind = 'stdio' | 'http' | 'sse' | 'http-auto';

/** A validated server entry. */
export interface ResolvedMcpServer {
  readonly name: string;
  readonly transport: McpTransportKind;
  readonly command: string | undefined;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly url: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly trusted: boolean;
  /** The server's own timeouts, over the proxy's. */
  readonly timeouts: {
    readonly handshakeMs?: number;
    readonly requestMs?: number;
    readonly totalMs?: number;
  };
  /**
   * SHA-256 over name, transport, command, args, URL, working directory and the sorted **names** of
   * env variables and headers (never their values): the schema cache is valid only for this key.
   */
  readonly cacheKey: string;
  /** A file-name-safe, collision-free name for the schema cache and the stderr log. */
  readonly slug: string;
}

/** A server name: printable, no whitespace, `/` or `:` (they separate capability id parts), 1–64 characters. */
export const MCP_SERVER_NAME_PATTERN = /^[^\s/:\u0000-\u001f\u007f]{1,64}$/;

const TRANSPORT_HINTS: Readonly<Record<string, McpTransportKind>> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamablehttp: 'http',
  streamable_http: 'http',
  sse: 'sse',
};

const TIMEOUT_KEYS = new Set(['handshakeMs', 'requestMs', 'totalMs']);
/** The longest per-server timeout a configuration may set: one hour. */
const MAX_SERVER_TIMEOUT_MS = 3_600_000;

const KNOWN_FIELDS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'type',
  'transport',
  'enabled',
  'disabled',
  'trusted',
  'timeouts',
  // Fields other clients write that carry no meaning here; accepted so one file serves all of them.
  'description',
  'timeout',
  'alwaysAllow',
  'autoApprove',
  'autoStart',
  'auto_start',
  'envFile',
]);

/**
 * Validates an `mcpServers` object. Errors are `CONFIG_INVALID` naming the field
 * (`mcpServers.<name>.<field>`) and never quoting a value. Servers come back sorted by name.
 */
export function parseMcpServers(raw: unknown): Result<ResolvedMcpServer[], ToolhostError<'CONFIG_INVALID'>> {
  if (raw === undefined || raw === null) return ok([]);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return err(invalid('mcpServers', 'must be an object mapping server names to server entries'));
  }
  const servers: ResolvedMcpServer[] = [];
  for (const name of Object.keys(raw).sort()) {
    const entry = (raw as Record<string, unknown>)[name];
    const field = `mcpServers.${JSON.stringify(name)}`;
    if (!MCP_SERVER_NAME_PATTERN.test(name)) {
      return err(
        invalid(field, 'a server name must be 1 to 64 printable characters without spaces, "/" or ":"'),
      );
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return err(invalid(field, 'must be an object'));
    }
    const config = entry as Record<string, unknown>;
    for (const key of Object.keys(config)) {
      if (!KNOWN_FIELDS.has(key)) return err(invalid(`${field}.${key}`, 'is not a known server field'));
    }
    const command = optionalString(config, 'command');
    const url = optionalString(config, 'url');
    const cwd = optionalString(config, 'cwd');
    const hint = optionalString(config, 'type') ?? optionalString(config, 'transport');
    for (const key of ['command', 'url', 'cwd', 'type', 'transport'] as const) {
      if (config[key] !== undefined && (typeof config[key] !== 'string' || config[key] === '')) {
        return err(invalid(`${field}.${key}`, 'must be a non-empty string'));
      }
    }
    const args = config.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) {
      return err(invalid(`${field}.args`, 'must be an array of strings'));
    }
    const env = stringMap(config.env);
    if (!env) return err(invalid(`${field}.env`, 'must be an object of string values'));
    const headers = stringMap(config.headers);
    if (!headers) return err(invalid(`${field}.headers`, 'must be an object of string values'));
    for (const key of ['enabled', 'disabled', 'trusted'] as const) {
      if (config[key] !== undefined && typeof config[key] !== 'boolean') {
        return err(invalid(`${field}.${key}`, 'must be true or false'));
      }
    }
    const timeouts: Record<string, number> = {};
    if (config.timeouts !== undefined) {
      if (typeof config.timeouts !== 'object' || config.timeouts === null || Array.isArray(config.timeouts)) {
        return err(invalid(`${field}.timeouts`, 'must be an object with handshakeMs, requestMs or totalMs'));
      }
      for (const [key, value] of Object.entries(config.timeouts)) {
        if (!TIMEOUT_KEYS.has(key)) {
          return err(
            invalid(
              `${field}.timeouts.${key}`,
              'is not a known timeout; use handshakeMs, requestMs or totalMs',
            ),
          );
        }
        if (
          typeof value !== 'number' ||
          !Number.isInteger(value) ||
          value < 1 ||
          value > MAX_SERVER_TIMEOUT_MS
        ) {
          return err(
            invalid(`${field}.timeouts.${key}`, `must be an integer from 1 to ${MAX_SERVER_TIMEOUT_MS} (ms)`),
          );
        }
        timeouts[key] = value;
      }
    }
    let transport: McpTransportKind;
    if (hint !== undefined) {
      const kind = TRANSPORT_HINTS[hint.toLowerCase()];
      if (!kind) return err(invalid(`${field}.type`, 'must be one of stdio, http, streamable-http, sse'));
      transport = kind;
    } else {
      transport = url !== undefined ? 'http-auto' : 'stdio';
    }
    if (transport === 'stdio') {
      if (command === undefined) return err(invalid(`${field}.command`, 'is required for a stdio server'));
      if (url !== undefined) return err(invalid(`${field}.url`, 'cannot be combined with command'));
    } else {
      if (url === undefined) return err(invalid(`${field}.url`, 'is required for an HTTP server'));
      if (command !== undefined) return err(invalid(`${field}.command`, 'cannot be combined with url'));
      if (!/^https?:\/\//i.test(url) && !/\$\{/.test(url)) {
        return err(invalid(`${field}.url`, 'must be an http:// or https:// URL'));
      }
    }
    const enabled = config.enabled !== false && config.disabled !== true;
    const cacheKey = createHash('sha256')
      .update(
        JSON.stringify([
          'toolhost-mcp-cache-key-v1',
          name,
          transport,
          command ?? null,
          args,
          url ?? null,
          cwd ?? null,
          Object.keys(env).sort(),
          Object.keys(headers)
            .map((header) => header.toLowerCase())
            .sort(),
        ]),
      )
      .digest('hex');
    servers.push({
      name,
      transport,
      command,
      args: [...(args as string[])],
      env,
      cwd,
      url,
      headers,
      enabled,
      trusted: config.trusted === true,
      timeouts,
      cacheKey,
      slug: slugOf(name),
    });
  }
  return ok(servers);
}

/** A file-name-safe slug: the name with unsafe characters replaced, plus 8 hex of its hash (no collisions). */
export function slugOf(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 48);
  return `${safe}-${createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 8)}`;
}

/**
 * Expands `${VAR}`, `${env:VAR}` and `${VAR:-default}` in a configured value from `source`. A
 * reference to an unset variable without a default is reported by name (never by value).
 */
export function expandVariables(
  value: string,
  source: Readonly<Record<string, string | undefined>>,
): Result<string, { readonly missing: string }> {
  let missing: string | undefined;
  const expanded = value.replace(
    /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback: string | undefined) => {
      const found = source[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      missing ??= name;
      return '';
    },
  );
  return missing === undefined ? ok(expanded) : err({ missing });
}

function optionalString(config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') return undefined;
    out[key] = item;
  }
  return out;
}

function invalid(field: string, rule: string): ToolhostError<'CONFIG_INVALID'> {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `${field} ${rule}`,
    details: { field },
  });
}
