import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '@toolhost/internal';

/** The directory of sign-ins inside the user configuration directory. */
export const MCP_OAUTH_DIR_NAME = 'mcp-oauth';

const FORMAT = 'toolhost-mcp-oauth-v1';

/**
 * What is kept for one HTTP MCP server URL: the registered OAuth client, the tokens and the
 * discovery state the SDK's `auth()` asks for. Secrets: the file is 0600 in a 0700 directory of the
 * user configuration directory, never in a project, and nothing of it is ever logged or shown.
 */
export interface McpOAuthEntry {
  readonly serverUrl: string;
  /** The SDK's `OAuthClientInformationMixed` as `saveClientInformation` received it (with `issuer`). */
  readonly client?: Record<string, unknown>;
  /** The SDK's `OAuthTokens` as `saveTokens` received it (with `issuer`). */
  readonly tokens?: Record<string, unknown>;
  /** When the tokens were saved (ms since the epoch): with `expires_in`, when the access token ends. */
  readonly tokensSavedAt?: number;
  /** The SDK's `OAuthDiscoveryState`. */
  readonly discovery?: Record<string, unknown>;
}

/** A server's sign-in as `toolhost mcp list` reports it (never a token). */
export type McpSignInStatus = 'signed-in' | 'expired' | 'not-signed-in';

/** The file of one server URL's sign-in: `<storeDir>/<first 32 hex of SHA-256(url)>.json`. */
export function mcpOAuthFile(storeDir: string, serverUrl: string): string {
  const digest = createHash('sha256').update(serverUrl).digest('hex').slice(0, 32);
  return join(storeDir, `${digest}.json`);
}

/**
 * Reads one server URL's sign-in, or undefined when there is none (or the file is not this format,
 * or it belongs to another URL: a digest collision or a copied file never hands tokens to a
 * different server).
 */
export function readMcpOAuthEntry(storeDir: string, serverUrl: string): McpOAuthEntry | undefined {
  let text: string;
  try {
    text = readFileSync(mcpOAuthFile(storeDir, serverUrl), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (parsed.format !== FORMAT || parsed.serverUrl !== serverUrl) return undefined;
    const object = (value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    const client = object(parsed.client);
    const tokens = object(parsed.tokens);
    const discovery = object(parsed.discovery);
    return {
      serverUrl,
      ...(client && typeof client.client_id === 'string' ? { client } : {}),
      ...(tokens && typeof tokens.access_token === 'string' ? { tokens } : {}),
      ...(typeof parsed.tokensSavedAt === 'number' ? { tokensSavedAt: parsed.tokensSavedAt } : {}),
      ...(discovery ? { discovery } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * Writes one server URL's sign-in atomically: a 0600 temporary file in the same 0700 directory,
 * written, flushed to disk, then renamed over the old one, so a reader sees the old entry or the
 * new one, never half of either. Throws the file system's error (the caller reports it value-free).
 */
export function writeMcpOAuthEntry(storeDir: string, entry: McpOAuthEntry): void {
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  // The directory may predate this code or have been made by a umask-wide mkdir: narrow it.
  if (!lstatSync(storeDir).isDirectory()) throw new Error('the sign-in store is not a directory');
  chmodSync(storeDir, 0o700);
  const file = mcpOAuthFile(storeDir, entry.serverUrl);
  writeFileAtomicSync(file, `${JSON.stringify({ format: FORMAT, ...entry })}\n`);
}

/** Deletes one server URL's sign-in; whether there was one. */
export function deleteMcpOAuthEntry(storeDir: string, serverUrl: string): boolean {
  const file = mcpOAuthFile(storeDir, serverUrl);
  try {
    lstatSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}

/**
 * Whether a server URL has a sign-in: `signed-in` (an access token that has not run out, or one
 * without a stated lifetime), `expired` (its access token ran out; with a refresh token the next
 * connection refreshes it without asking), `not-signed-in`.
 */
export function mcpSignInStatus(
  storeDir: string,
  serverUrl: string,
  now = Date.now(),
): { status: McpSignInStatus; refreshable: boolean } {
  const entry = readMcpOAuthEntry(storeDir, serverUrl);
  const tokens = entry?.tokens;
  if (!tokens) return { status: 'not-signed-in', refreshable: false };
  const refreshable = typeof tokens.refresh_token === 'string' && tokens.refresh_token !== '';
  const expiresIn = typeof tokens.expires_in === 'number' ? tokens.expires_in : undefined;
  const expired =
    expiresIn !== undefined &&
    entry.tokensSavedAt !== undefined &&
    entry.tokensSavedAt + expiresIn * 1000 <= now;
  return { status: expired ? 'expired' : 'signed-in', refreshable };
}
