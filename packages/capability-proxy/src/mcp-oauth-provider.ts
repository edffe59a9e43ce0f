import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type McpOAuthEntry, readMcpOAuthEntry, writeMcpOAuthEntry } from './mcp-oauth-store.js';

/**
 * Thrown by the non-interactive provider where the SDK would start an authorization (or register a
 * client) in the middle of a tool call: a person has to sign in with `toolhost mcp login` first.
 */
export class McpSignInRequired extends Error {
  constructor() {
    super('the MCP server needs a sign-in');
    this.name = 'McpSignInRequired';
  }
}

/** The interactive half of a provider: only `toolhost mcp login` has one. */
export interface McpOAuthLogin {
  /** The loopback redirect URI this login listens on (`http://127.0.0.1:<port>/callback`). */
  readonly redirectUrl: string;
  /** The `state` the callback must carry back. */
  readonly state: string;
  /** Shows (and perhaps opens) the authorization URL. */
  readonly onAuthorizationUrl: (url: URL) => void;
}

/** Options of {@link createMcpOAuthProvider}. */
export interface McpOAuthProviderOptions {
  /** The sign-in store (`<user config dir>/mcp-oauth`). */
  readonly storeDir: string;
  /** The server URL as configured (expanded): the key of its entry. */
  readonly serverUrl: string;
  /** Present only for `toolhost mcp login`; without it no authorization ever starts. */
  readonly login?: McpOAuthLogin;
  readonly clientVersion?: string;
}

/**
 * The SDK's `OAuthClientProvider` over the sign-in store: discovery state, the dynamically
 * registered client and the tokens of one server URL live in its 0600 entry, the PKCE verifier only
 * in memory. Without `login` it is the provider of tool calls: it hands the stored tokens to the
 * transport and lets the SDK refresh them on a 401 (the new tokens are saved), but where the SDK
 * would register a client or send a person to the authorization server it throws
 * {@link McpSignInRequired} instead, so no interactive flow ever starts inside a call. With
 * `login` it starts afresh (a new registration for this login's loopback redirect URI, no old
 * tokens) and hands the authorization URL to the caller.
 */
export function createMcpOAuthProvider(options: McpOAuthProviderOptions): OAuthClientProvider {
  const { storeDir, serverUrl, login } = options;
  let verifier: string | undefined;
  // A login neither reuses nor forgets what is stored until it has something new to store.
  let loginClient: OAuthClientInformationMixed | undefined;
  let loginTokens: OAuthTokens | undefined;
  let loginDiscovery: OAuthDiscoveryState | undefined;
  // The access token this provider last handed to the SDK: what a refresh it reports as invalid used.
  let handed: string | undefined;
  const read = (): McpOAuthEntry => readMcpOAuthEntry(storeDir, serverUrl) ?? { serverUrl };
  const write = (change: (entry: McpOAuthEntry) => McpOAuthEntry) => {
    writeMcpOAuthEntry(storeDir, change(read()));
  };
  const storedClient = () => read().client as OAuthClientInformationMixed | undefined;

  return {
    get redirectUrl() {
      if (login) return login.redirectUrl;
      // Never used to redirect (a call never authorizes), but it must be set: without one the SDK
      // takes this for a client-credentials client and asks the token endpoint on its own.
      const uris = (storedClient() as { redirect_uris?: unknown } | undefined)?.redirect_uris;
      return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : 'http://127.0.0.1/callback';
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: 'toolhost',
        redirect_uris: [login?.redirectUrl ?? 'http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...(options.clientVersion ? { software_version: options.clientVersion } : {}),
      };
    },
    state() {
      return login?.state ?? randomBytes(16).toString('base64url');
    },
    clientInformation() {
      if (login) return loginClient;
      const client = storedClient();
      if (!client) throw new McpSignInRequired();
      return client;
    },
    saveClientInformation(information) {
      if (login) {
        loginClient = information;
        return;
      }
      // The SDK stamps the issuer on a client stored without one: keep the tokens.
      write((entry) => ({ ...entry, client: information as unknown as Record<string, unknown> }));
    },
    tokens() {
      if (login) return loginTokens;
      const tokens = read().tokens as OAuthTokens | undefined;
      handed = tokens?.access_token;
      return tokens;
    },
    saveTokens(tokens) {
      if (login) {
        // The whole sign-in is written once, when it is complete: a login that fails or times out
        // leaves the previous sign-in as it was.
        loginTokens = tokens;
        writeMcpOAuthEntry(storeDir, {
          serverUrl,
          ...(loginClient ? { client: loginClient as unknown as Record<string, unknown> } : {}),
          tokens: tokens as unknown as Record<string, unknown>,
          tokensSavedAt: Date.now(),
          ...(loginDiscovery ? { discovery: loginDiscovery as unknown as Record<string, unknown> } : {}),
        });
        return;
      }
      write((entry) => ({
        ...entry,
        tokens: tokens as unknown as Record<string, unknown>,
        tokensSavedAt: Date.now(),
      }));
    },
    redirectToAuthorization(url) {
      if (!login) throw new McpSignInRequired();
      login.onAuthorizationUrl(url);
    },
    saveCodeVerifier(codeVerifier) {
      verifier = codeVerifier;
    },
    codeVerifier() {
      if (verifier === undefined) throw new Error('no PKCE code verifier was saved for this sign-in');
      return verifier;
    },
    saveDiscoveryState(state) {
      if (login) {
        loginDiscovery = state;
        return;
      }
      write((entry) => ({ ...entry, discovery: state as unknown as Record<string, unknown> }));
    },
    discoveryState() {
      if (login) return loginDiscovery;
      return read().discovery as OAuthDiscoveryState | undefined;
    },
    invalidateCredentials(scope) {
      if (scope === 'verifier') {
        verifier = undefined;
        return;
      }
      if (login) {
        if (scope === 'all' || scope === 'client') loginClient = undefined;
        if (scope === 'all' || scope === 'tokens') loginTokens = undefined;
        if (scope === 'all' || scope === 'discovery') loginDiscovery = undefined;
        return;
      }
      const current = read();
      if (
        (scope === 'all' || scope === 'tokens') &&
        current.tokens !== undefined &&
        current.tokens.access_token !== handed
      ) {
        // Another process (a second session, a login) renewed the sign-in since this one read it,
        // so the refresh token the server refused was the old one: keep the new sign-in (the SDK
        // then reads it and goes on with it) instead of signing everybody out.
        return;
      }
      write((entry) => ({
        serverUrl,
        ...(scope === 'all' || scope === 'client' || !entry.client ? {} : { client: entry.client }),
        ...(scope === 'all' || scope === 'tokens' || !entry.tokens
          ? {}
          : { tokens: entry.tokens, ...(entry.tokensSavedAt ? { tokensSavedAt: entry.tokensSavedAt } : {}) }),
        ...(scope === 'all' || scope === 'discovery' || !entry.discovery
          ? {}
          : { discovery: entry.discovery }),
      }));
    },
  };
}

/** Whether a server URL has stored tokens (then the provider of calls is attached to its transport). */
export function hasStoredTokens(storeDir: string, serverUrl: string): boolean {
  return readMcpOAuthEntry(storeDir, serverUrl)?.tokens !== undefined;
}
