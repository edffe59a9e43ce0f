import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { makeMcpServer, readBody } from './http-servers.js';

/** What the loopback authorization server did, for assertions. */
export interface OAuthCounters {
  registrations: number;
  authorizations: number;
  codeExchanges: number;
  refreshes: number;
  /** Requests to /mcp refused with 401. */
  unauthorized: number;
  /** Names of request headers the authorization server received (lower case). */
  authServerHeaders: Set<string>;
  calls: number;
  /** The `clientInfo.version` of every MCP initialize request and the `software_version` of every registration. */
  clientVersions: string[];
}

/** A loopback MCP server over Streamable HTTP behind the SDK's OAuth server pieces. */
export interface OAuthMcpServer {
  /** The MCP endpoint (`http://127.0.0.1:<port>/mcp`), protected by `requireBearerAuth`. */
  readonly url: string;
  /** The authorization server's issuer (`http://127.0.0.1:<other port>/`). */
  readonly issuer: string;
  readonly counters: OAuthCounters;
  /** Every access and refresh token issued so far (to prove none leaks anywhere). */
  readonly issuedSecrets: readonly string[];
  /** Lets every access token issued so far run out now (as if its short lifetime had passed). */
  expireAccessTokens(): void;
  /** Forgets every refresh token (the next refresh fails with invalid_grant). */
  revokeRefreshTokens(): void;
  /**
   * Makes the next two refreshes a race: the second is answered only after the first one's new
   * access token was used (so its rotated-away refresh token fails with invalid_grant then).
   */
  pairRefreshes(): void;
  close(): Promise<void>;
}

interface TokenRecord {
  clientId: string;
  expiresAt: number;
  resource: string | undefined;
}

/**
 * A small in-memory `OAuthServerProvider` (the SDK ships only a demo one, without refresh): dynamic
 * registration, authorization codes bound to a client and a PKCE challenge (checked by the SDK's
 * token handler), short-lived access tokens and rotating refresh tokens. `authorize` grants at once
 * and redirects, as a browser would after the user clicked "allow".
 */
class MemoryOAuthProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  readonly accessTokens = new Map<string, TokenRecord>();
  readonly refreshTokens = new Map<string, { clientId: string; resource: string | undefined }>();
  readonly secrets: string[] = [];
  /** Armed by `pairRefreshes`: the second refresh waits until the first one's new token was used. */
  private pairing:
    | { count: number; firstToken?: string; firstUsed: Promise<void>; markUsed: () => void }
    | undefined;

  pairRefreshes(): void {
    let markUsed: () => void = () => undefined;
    const firstUsed = new Promise<void>((resolve) => {
      markUsed = resolve;
    });
    this.pairing = { count: 0, firstUsed, markUsed };
  }

  constructor(
    private readonly counters: OAuthCounters,
    private readonly accessTtlSeconds: number,
  ) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: async (id) => this.clients.get(id),
      registerClient: async (client) => {
        this.counters.registrations++;
        this.counters.clientVersions.push(`registration:${String(client.software_version)}`);
        const full = client as OAuthClientInformationFull;
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: express.Response,
  ): Promise<void> {
    this.counters.authorizations++;
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const record = this.codes.get(code);
    if (!record) throw new InvalidGrantError('unknown authorization code');
    return record.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const record = this.codes.get(code);
    if (!record || record.clientId !== client.client_id)
      throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.counters.codeExchanges++;
    return this.issue(client.client_id, record.params.resource?.href);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const pairing = this.pairing;
    const turn = pairing ? ++pairing.count : 0;
    if (pairing && turn === 2) {
      await pairing.firstUsed;
      this.pairing = undefined;
    }
    const record = this.refreshTokens.get(refreshToken);
    if (!record || record.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refreshTokens.delete(refreshToken);
    this.counters.refreshes++;
    const tokens = this.issue(client.client_id, record.resource);
    if (pairing && turn === 1) pairing.firstToken = tokens.access_token;
    return tokens;
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    if (this.pairing?.firstToken === token) this.pairing.markUsed();
    const record = this.accessTokens.get(token);
    if (!record) throw new InvalidTokenError('unknown access token');
    return {
      token,
      clientId: record.clientId,
      scopes: [],
      expiresAt: record.expiresAt,
      ...(record.resource ? { resource: new URL(record.resource) } : {}),
    };
  }

  private issue(clientId: string, resource: string | undefined): OAuthTokens {
    const access = `at-${randomBytes(18).toString('hex')}`;
    const refresh = `rt-${randomBytes(18).toString('hex')}`;
    this.secrets.push(access, refresh);
    this.accessTokens.set(access, {
      clientId,
      expiresAt: Math.floor(Date.now() / 1000) + this.accessTtlSeconds,
      resource,
    });
    this.refreshTokens.set(refresh, { clientId, resource });
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.accessTtlSeconds,
      refresh_token: refresh,
    };
  }
}

async function listen(server: HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * Starts a loopback authorization server (`mcpAuthRouter`: metadata, `/register`, `/authorize`,
 * `/token`) and, on another port, an MCP server over Streamable HTTP whose `/mcp` is behind
 * `requireBearerAuth` and which serves its protected-resource metadata (`mcpAuthMetadataRouter`).
 * Access tokens live `accessTtlSeconds` (default 60); {@link OAuthMcpServer.expireAccessTokens}
 * ends them at once, so a test never sleeps.
 */
export async function startOAuthMcpServer(
  options: { accessTtlSeconds?: number } = {},
): Promise<OAuthMcpServer> {
  const counters: OAuthCounters = {
    registrations: 0,
    authorizations: 0,
    codeExchanges: 0,
    refreshes: 0,
    unauthorized: 0,
    calls: 0,
    authServerHeaders: new Set(),
    clientVersions: [],
  };
  const provider = new MemoryOAuthProvider(counters, options.accessTtlSeconds ?? 60);
  const authApp = express();
  const authHttp = createServer(authApp);
  const authPort = await listen(authHttp);
  const issuerUrl = new URL(`http://127.0.0.1:${authPort}/`);
  authApp.use((request, _response, next) => {
    for (const name of Object.keys(request.headers)) counters.authServerHeaders.add(name.toLowerCase());
    next();
  });
  authApp.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
    }),
  );

  const mcpApp = express();
  const mcpHttp = createServer(mcpApp);
  const mcpPort = await listen(mcpHttp);
  const mcpUrl = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
  mcpApp.use(
    mcpAuthMetadataRouter({
      oauthMetadata: createOAuthMetadata({ provider, issuerUrl }),
      resourceServerUrl: mcpUrl,
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    expectedResource: mcpUrl,
  });
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();
  const counter = {
    get calls() {
      return counters.calls;
    },
    set calls(value: number) {
      counters.calls = value;
    },
  };
  mcpApp.all(
    '/mcp',
    (_request, response, next) => {
      response.on('finish', () => {
        if (response.statusCode === 401) counters.unauthorized++;
      });
      next();
    },
    bearer,
    (request, response) => {
      void (async () => {
        const sessionId = request.headers['mcp-session-id'];
        const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (existing) {
          await existing.handleRequest(request, response);
          return;
        }
        if (request.method !== 'POST' || sessionId !== undefined) {
          response.status(404).end();
          return;
        }
        const body = await readBody(request);
        if (!isInitializeRequest(body)) {
          response.status(400).end();
          return;
        }
        counters.clientVersions.push(`initialize:${body.params.clientInfo.version}`);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            transports.set(id, transport);
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) transports.delete(transport.sessionId);
        };
        const server = makeMcpServer(counter, false);
        servers.add(server);
        await server.connect(transport);
        await transport.handleRequest(request, response, body);
      })().catch(() => {
        if (!response.headersSent) response.status(500);
        response.end();
      });
    },
  );

  return {
    url: mcpUrl.href,
    issuer: issuerUrl.href,
    counters,
    get issuedSecrets() {
      return [...provider.secrets];
    },
    expireAccessTokens() {
      const past = Math.floor(Date.now() / 1000) - 10;
      for (const record of provider.accessTokens.values()) record.expiresAt = past;
    },
    revokeRefreshTokens() {
      provider.refreshTokens.clear();
    },
    pairRefreshes() {
      provider.pairRefreshes();
    },
    async close() {
      for (const server of servers) await server.close().catch(() => undefined);
      for (const http of [mcpHttp, authHttp]) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      }
    },
  };
}

/**
 * Plays the browser for a printed authorization URL: asks the authorization server (which grants
 * at once and redirects), first visits the loopback redirect with a forged `state` (it must be
 * refused), then follows the real redirect. Returns the statuses seen.
 */
export async function playBrowser(authorizationUrl: string): Promise<{ forged: number; callback: number }> {
  const grant = await fetch(authorizationUrl, { redirect: 'manual' });
  await grant.body?.cancel();
  const location = grant.headers.get('location');
  if (grant.status !== 302 || !location) throw new Error(`the authorization server answered ${grant.status}`);
  const forgedUrl = new URL(location);
  forgedUrl.searchParams.set('state', 'forged-state');
  const forged = await fetch(forgedUrl, { redirect: 'manual' });
  await forged.body?.cancel();
  const callback = await fetch(location, { redirect: 'manual' });
  await callback.body?.cancel();
  return { forged: forged.status, callback: callback.status };
}
