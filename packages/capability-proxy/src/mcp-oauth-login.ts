import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { err, ok, type Result, ToolhostError } from '@toolhost/contracts';
import { configuredHeadersOnlyTo, createBoundedFetch } from './bounded-fetch.js';
import { packageVersion } from './client-version.js';
import { expandVariables, type ResolvedMcpServer } from './mcp-config.js';
import { createMcpOAuthProvider } from './mcp-oauth-provider.js';
import {
  deleteMcpOAuthEntry,
  type McpSignInStatus,
  mcpOAuthFile,
  mcpSignInStatus,
} from './mcp-oauth-store.js';
import { loadMcpSdk } from './mcp-sdk.js';

/** The default bound on waiting for the browser to come back: five minutes. */
export const DEFAULT_MCP_LOGIN_TIMEOUT_MS = 300_000;

/** Where a configured server's sign-in is kept, or why it has none. */
export type McpSignInTarget =
  | { readonly kind: 'oauth'; readonly serverUrl: string }
  | { readonly kind: 'none'; readonly why: 'stdio' | 'own-authorization-header' | 'disabled' };

/**
 * The key of a server's sign-in: its URL with `${VAR}` expanded and normalised (as the HTTP
 * transport uses it). A stdio server has none, nor does one whose configuration sets its own
 * `Authorization` header (toolhost never puts a token over it). Errors: `CONFIG_INVALID`.
 */
export function mcpSignInTarget(
  server: ResolvedMcpServer,
  environment: Readonly<Record<string, string | undefined>>,
): Result<McpSignInTarget, ToolhostError> {
  if (server.transport === 'stdio') return ok({ kind: 'none', why: 'stdio' });
  if (Object.keys(server.headers).some((name) => name.toLowerCase() === 'authorization')) {
    return ok({ kind: 'none', why: 'own-authorization-header' });
  }
  const url = expandVariables(server.url ?? '', environment);
  if (!url.ok) {
    return err(
      configInvalid(server, `its url needs the host variable ${url.error.missing}, which is not set`),
    );
  }
  try {
    return ok({ kind: 'oauth', serverUrl: new URL(url.value).href });
  } catch {
    return err(configInvalid(server, 'its url is not a valid URL'));
  }
}

/** One server's sign-in as `toolhost mcp list` shows it: status only, never a token. */
export interface McpSignInReport {
  readonly status: McpSignInStatus | 'not-applicable';
  /** With `expired`: whether the next connection refreshes it without asking. */
  readonly refreshable: boolean;
}

/** The sign-in status of one configured server (reads only its entry's dates and kinds). */
export function mcpServerSignIn(
  storeDir: string,
  server: ResolvedMcpServer,
  environment: Readonly<Record<string, string | undefined>>,
): McpSignInReport {
  const target = mcpSignInTarget(server, environment);
  if (!target.ok || target.value.kind === 'none') return { status: 'not-applicable', refreshable: false };
  return mcpSignInStatus(storeDir, target.value.serverUrl);
}

/** Forgets a server's sign-in; whether there was one. Errors: `CONFIG_INVALID`. */
export function logoutMcpServer(
  storeDir: string,
  server: ResolvedMcpServer,
  environment: Readonly<Record<string, string | undefined>>,
): Result<boolean, ToolhostError> {
  const target = mcpSignInTarget(server, environment);
  if (!target.ok) return target;
  if (target.value.kind === 'none') return ok(false);
  return ok(deleteMcpOAuthEntry(storeDir, target.value.serverUrl));
}

/** Options of {@link loginMcpServer}. */
export interface McpLoginOptions {
  readonly server: ResolvedMcpServer;
  /** The sign-in store (`<user config dir>/mcp-oauth`). */
  readonly storeDir: string;
  /** Where `${VAR}` in the URL and headers come from. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** How long to wait for the whole sign-in, the browser's return included. */
  readonly timeoutMs: number;
  /** Called once with the authorization URL (print it; open it where a browser exists). */
  readonly onAuthorizationUrl: (url: string) => void;
  readonly signal?: AbortSignal;
  /** The bound on one message from the server, as the proxy's `maxMessageBytes`; default 16 MiB. */
  readonly maxMessageBytes?: number;
}

/** What a completed login reports. */
export interface McpLoginOutcome {
  /** False when the server let toolhost in without a sign-in (nothing was stored). */
  readonly signedIn: boolean;
  /** The tools the server listed with the new sign-in. */
  readonly toolCount: number;
  /** The file the sign-in is kept in (0600). */
  readonly file: string | undefined;
}

/**
 * `toolhost mcp login`: the OAuth 2.1 authorization-code flow with the SDK's client auth against
 * one HTTP server. It listens on a loopback redirect URI (`http://127.0.0.1:<random port>/callback`),
 * connects with an interactive provider (the SDK discovers the protected-resource and the
 * authorization-server metadata, registers a client dynamically, makes the PKCE challenge and the
 * authorization URL), hands the URL to `onAuthorizationUrl`, waits for the browser's return with
 * the right `state` (others are answered 400 and ignored), exchanges the code (`finishAuth`), stores
 * the tokens and connects once more, as a call would, to list the tools. Everything is bounded by
 * `timeoutMs`. Errors: `CONFIG_INVALID` (no HTTP server, a bad URL), `MCP_CONNECT_FAILED`,
 * `MCP_AUTH_REQUIRED` (refused, timed out, or a code that could not be exchanged), `ABORTED`.
 */
export async function loginMcpServer(
  options: McpLoginOptions,
): Promise<Result<McpLoginOutcome, ToolhostError>> {
  const { server } = options;
  const target = mcpSignInTarget(server, options.environment);
  if (!target.ok) return target;
  if (target.value.kind === 'none') {
    return err(
      configInvalid(
        server,
        target.value.why === 'stdio'
          ? 'it is a stdio server; only HTTP servers sign in'
          : 'its configuration sets its own Authorization header, so toolhost does not sign in for it',
      ),
    );
  }
  const serverUrl = target.value.serverUrl;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    const expanded = expandVariables(value, options.environment);
    if (!expanded.ok) {
      return err(
        configInvalid(
          server,
          `header ${name} needs the host variable ${expanded.error.missing}, which is not set`,
        ),
      );
    }
    headers[name] = expanded.value;
  }
  const sdk = await loadMcpSdk();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(loginTimeout), options.timeoutMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  const bounded = configuredHeadersOnlyTo(
    createBoundedFetch(options.maxMessageBytes ?? 16 * 1024 * 1024, () => undefined),
    new URL(serverUrl).origin,
    Object.keys(headers),
  );
  // Every request of the login, the OAuth ones included, ends with the login's bound.
  const fetch: typeof bounded = (input, init) =>
    bounded(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
  const callback = await listenForCallback(server.name, signal);
  const opened: { client: Client; transport: Transport }[] = [];
  const makeTransport = (provider: ReturnType<typeof createMcpOAuthProvider>) =>
    server.transport === 'sse'
      ? new sdk.SSEClientTransport(new URL(serverUrl), {
          requestInit: { headers },
          fetch,
          authProvider: provider,
        })
      : new sdk.StreamableHTTPClientTransport(new URL(serverUrl), {
          requestInit: { headers },
          fetch,
          authProvider: provider,
        });
  const connectWith = async (transport: Transport): Promise<Client> => {
    const client = new sdk.Client({ name: 'toolhost', version: packageVersion() });
    client.onerror = () => undefined;
    opened.push({ client, transport });
    await client.connect(transport, { signal, timeout: options.timeoutMs });
    return client;
  };
  const failed = (error: unknown): ToolhostError => describeLoginError(server.name, error, signal);
  try {
    let shown = false;
    const provider = createMcpOAuthProvider({
      storeDir: options.storeDir,
      serverUrl,
      clientVersion: packageVersion(),
      login: {
        redirectUrl: callback.redirectUrl,
        state: callback.state,
        onAuthorizationUrl: (url) => {
          shown = true;
          options.onAuthorizationUrl(url.href);
        },
      },
    });
    const first = makeTransport(provider);
    try {
      const client = await connectWith(first);
      // In without a token: the server does not ask for a sign-in.
      const listed = await client.listTools(undefined, { signal, timeout: options.timeoutMs });
      return ok({ signedIn: false, toolCount: listed.tools.length, file: undefined });
    } catch (error) {
      if (!(error instanceof sdk.UnauthorizedError) || !shown) return err(failed(error));
    }
    let answer: { code: string } | { error: string };
    try {
      answer = await callback.answer;
    } catch (error) {
      return err(failed(error));
    }
    if ('error' in answer) {
      return err(
        authRequired(
          server.name,
          `the authorization server did not grant the sign-in (${answer.error})`,
          'refused',
        ),
      );
    }
    try {
      await first.finishAuth(answer.code);
    } catch (error) {
      return err(failed(error));
    }
    // Connect as a call would: the stored tokens, no interactive provider.
    try {
      const client = await connectWith(
        makeTransport(createMcpOAuthProvider({ storeDir: options.storeDir, serverUrl })),
      );
      const listed = await client.listTools(undefined, { signal, timeout: options.timeoutMs });
      return ok({
        signedIn: true,
        toolCount: listed.tools.length,
        file: mcpOAuthFile(options.storeDir, serverUrl),
      });
    } catch (error) {
      return err(failed(error));
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    for (const { client, transport } of opened) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    }
    await callback.close();
  }
}

const loginTimeout = Symbol('login timeout');

interface CallbackListener {
  readonly redirectUrl: string;
  readonly state: string;
  /** The first callback with the right state: its code, or the error code it carried. */
  readonly answer: Promise<{ code: string } | { error: string }>;
  close(): Promise<void>;
}

/**
 * The loopback redirect URI (RFC 8252 §7.3): 127.0.0.1 on a random port, one path. A request with
 * a missing or wrong `state` is answered 400 and ignored (a page the user did not start cannot
 * finish the login); the first with the right one settles `answer`. Nothing of the query is echoed.
 */
async function listenForCallback(serverName: string, signal: AbortSignal): Promise<CallbackListener> {
  const state = randomBytes(32).toString('base64url');
  const expected = Buffer.from(state);
  let settle: ((value: { code: string } | { error: string }) => void) | undefined;
  let fail: ((reason: unknown) => void) | undefined;
  const answer = new Promise<{ code: string } | { error: string }>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Awaited by the login only after the URL is shown; never an unhandled rejection before that.
  answer.catch(() => undefined);
  const page = (response: ServerResponse, status: number, text: string) => {
    response
      .writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      })
      .end(`<!doctype html><meta charset="utf-8"><title>toolhost</title><p>${text}</p>\n`);
  };
  // Imported here: every host imports this package, and only a login listens.
  const { createServer } = await import('node:http');
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback') {
      page(response, 404, 'Not found.');
      return;
    }
    const given = Buffer.from(url.searchParams.get('state') ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      page(response, 400, 'This sign-in was not started here (the state does not match); it was ignored.');
      return;
    }
    if (!settle) {
      page(response, 409, 'This sign-in is already finished.');
      return;
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    const done = settle;
    settle = undefined;
    if (error !== null || !code) {
      // Only a token-shaped error code is repeated, never free text from the query.
      const shown = error !== null && /^[A-Za-z0-9_.-]{1,64}$/.test(error) ? error : 'no code';
      page(response, 200, `The sign-in to ${escapeHtml(serverName)} was not completed; see the terminal.`);
      done({ error: shown });
      return;
    }
    page(response, 200, `Signed in to ${escapeHtml(serverName)}. You can close this window.`);
    done({ code });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const onAbort = () => fail?.(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const port = (http.address() as AddressInfo).port;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    state,
    answer,
    async close() {
      signal.removeEventListener('abort', onAbort);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function configInvalid(server: ResolvedMcpServer, problem: string): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `mcpServers.${server.name}: cannot sign in: ${problem}`,
    details: { field: `mcpServers.${server.name}`, server: server.name },
  });
}

function authRequired(serverName: string, what: string, reason: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'MCP_AUTH_REQUIRED',
    message: `signing in to MCP server "${serverName}" failed: ${what}`,
    recovery: `run \`toolhost mcp login ${serverName}\` again`,
    details: { server: serverName, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A login failure, value-free: SDK and OAuth error texts may quote server answers, so only kinds. */
function describeLoginError(serverName: string, error: unknown, signal: AbortSignal): ToolhostError {
  if (ToolhostError.isInstance(error)) return error;
  if (signal.aborted) {
    if (signal.reason === loginTimeout) {
      return authRequired(serverName, 'it did not complete in time (see --timeout)', 'timeout', error);
    }
    return new ToolhostError({
      code: 'ABORTED',
      message: `signing in to MCP server "${serverName}" was cancelled`,
      details: { server: serverName },
      cause: error,
    });
  }
  const name = error instanceof Error ? error.constructor.name : '';
  const oauthCode = (error as { errorCode?: unknown } | undefined)?.errorCode;
  if (typeof oauthCode === 'string' && /^[a-z_]{1,64}$/.test(oauthCode)) {
    return authRequired(serverName, `the authorization server answered ${oauthCode}`, 'oauth', error);
  }
  if (name === 'UnauthorizedError') {
    return authRequired(serverName, 'the server did not accept the new sign-in', 'rejected', error);
  }
  const httpCode = (error as { code?: unknown } | undefined)?.code;
  if (typeof httpCode === 'number' && httpCode >= 100 && httpCode < 600) {
    return new ToolhostError({
      code: 'MCP_CONNECT_FAILED',
      message: `MCP server "${serverName}" answered with HTTP ${httpCode} while signing in`,
      recovery: `check the server's url in the configuration, then run \`toolhost mcp login ${serverName}\` again`,
      details: { server: serverName, reason: 'http' },
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : '';
  if (/fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND/i.test(message)) {
    return new ToolhostError({
      code: 'MCP_CONNECT_FAILED',
      message: `MCP server "${serverName}" or its authorization server could not be reached while signing in`,
      recovery: `check the server's url and the network, then run \`toolhost mcp login ${serverName}\` again`,
      details: { server: serverName, reason: 'unreachable' },
      cause: error,
    });
  }
  return authRequired(
    serverName,
    `the OAuth flow failed (${name || 'unknown error'}; discovery, registration or the token exchange)`,
    'oauth',
    error,
  );
}
