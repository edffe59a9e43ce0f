import { err, ok, type Result } from '@toolhost/contracts';
import { expandVariables } from './mcp-config.js';

/**
 * Variables a local MCP server inherits from the host on POSIX: what a program needs to run (like
 * sudo's default list, which the MCP SDK uses too) plus locale, time zone, temp dir and the CA
 * bundle paths. Nothing that usually holds a credential (tokens, keys, proxies with passwords).
 */
export const POSIX_SAFE_ENVIRONMENT: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'TMPDIR',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
];

/** The Windows counterpart of {@link POSIX_SAFE_ENVIRONMENT}. */
export const WINDOWS_SAFE_ENVIRONMENT: readonly string[] = [
  'APPDATA',
  'COMSPEC',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'TMP',
  'USERNAME',
  'USERPROFILE',
  'WINDIR',
];

/** Options of {@link createServerEnvironment}. */
export interface ServerEnvironmentOptions {
  /** The server's configured `env` (values may reference host variables with `${VAR}`). */
  readonly configured?: Readonly<Record<string, string>>;
  /** Extra host variable names to pass through (for example `HTTPS_PROXY`), by explicit choice. */
  readonly inherit?: readonly string[];
  /** The host environment; default `process.env`. */
  readonly source?: Readonly<Record<string, string | undefined>>;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
}

/**
 * Builds the environment of a stdio MCP server: the safe allowlist taken from the host, the
 * `inherit` names, then the server's configured variables (which win). Nothing else of the host's
 * environment reaches the child, so the host's API keys stay with the host. Values that start with
 * `()` (exported shell functions) are never inherited. Error: the name of a `${VAR}` that is unset.
 */
export function createServerEnvironment(
  options: ServerEnvironmentOptions = {},
): Result<Record<string, string>, { readonly missing: string; readonly variable: string }> {
  const source = options.source ?? process.env;
  const platform = options.platform ?? process.platform;
  const names = [
    ...(platform === 'win32' ? WINDOWS_SAFE_ENVIRONMENT : POSIX_SAFE_ENVIRONMENT),
    ...(options.inherit ?? []),
  ];
  const environment: Record<string, string> = {};
  // Windows variable names are case-insensitive: match them that way there.
  const lookup =
    platform === 'win32'
      ? new Map(Object.keys(source).map((key) => [key.toUpperCase(), key] as const))
      : undefined;
  for (const name of names) {
    const key = lookup ? lookup.get(name.toUpperCase()) : name;
    if (key === undefined) continue;
    const value = source[key];
    if (value === undefined || value.startsWith('()')) continue;
    environment[key] = value;
  }
  for (const [name, raw] of Object.entries(options.configured ?? {})) {
    const expanded = expandVariables(raw, source);
    if (!expanded.ok) return err({ missing: expanded.error.missing, variable: name });
    environment[name] = expanded.value;
  }
  return ok(environment);
}
