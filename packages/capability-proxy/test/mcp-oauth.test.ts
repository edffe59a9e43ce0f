import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  createCapabilityProxy,
  loginMcpServer,
  logoutMcpServer,
  MCP_OAUTH_DIR_NAME,
  mcpServerSignIn,
  parseMcpServers,
  type ResolvedMcpServer,
} from '../src/index.js';
import { mcpOAuthFile } from '../src/mcp-oauth-store.js';
import { GENEROUS_TIMEOUTS, run, seen, tempDir } from './helpers.js';
import { playBrowser, startOAuthMcpServer } from './oauth-servers.js';

/** Whether the store holds tokens for `url`. */
function readMcpOAuthEntryTokens(storeDir: string, url: string): boolean {
  try {
    return (
      typeof JSON.parse(readFileSync(mcpOAuthFile(storeDir, url), 'utf8')).tokens?.access_token === 'string'
    );
  } catch {
    return false;
  }
}

function resolved(name: string, url: string): ResolvedMcpServer {
  const parsed = parseMcpServers({ [name]: { url } });
  assert.ok(parsed.ok);
  return parsed.value[0]!;
}

/** Signs in the way `toolhost mcp login` does, with this test playing the browser. */
async function login(server: ResolvedMcpServer, storeDir: string) {
  let browser: Promise<{ forged: number; callback: number }> | undefined;
  const outcome = await loginMcpServer({
    server,
    storeDir,
    environment: {},
    timeoutMs: 60_000,
    onAuthorizationUrl: (url) => {
      browser = playBrowser(url);
    },
  });
  assert.ok(browser, 'the authorization URL was handed out');
  return { outcome, browser: await browser };
}

describe('MCP OAuth (capability proxy)', () => {
  it('fails a call to a server that needs a sign-in with MCP_AUTH_REQUIRED naming `toolhost mcp login`, without registering or authorizing; after a login calls succeed and an access token that ran out is refreshed in the same session without asking', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const configDir = tempDir(t, 'oauth-config-');
    const storeDir = join(configDir, MCP_OAUTH_DIR_NAME);
    const proxy = createCapabilityProxy({
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      mcpServers: { secure: { url: oauth.url } },
      oauthStoreDir: storeDir,
    });
    t.after(() => proxy.close());
    const echo = { action: 'call', capability_id: 'mcp-tool:secure/echo', arguments: { message: 'hi' } };

    const refused = await run(proxy, echo);
    assert.ok(!refused.ok, seen(refused));
    assert.equal(refused.error.code, 'MCP_AUTH_REQUIRED');
    assert.match(seen(refused), /toolhost mcp login secure/);
    assert.equal(oauth.counters.registrations, 0, 'a call registers no client');
    assert.equal(oauth.counters.authorizations, 0, 'a call starts no authorization');

    const { outcome, browser } = await login(resolved('secure', oauth.url), storeDir);
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
    assert.equal(browser.forged, 400, 'a callback with a forged state is refused');
    assert.equal(browser.callback, 200);
    assert.equal(outcome.value.signedIn, true);
    assert.ok(outcome.value.toolCount >= 2);
    assert.equal(oauth.counters.registrations, 1, 'dynamic client registration');
    assert.equal(oauth.counters.codeExchanges, 1);
    const file = mcpOAuthFile(storeDir, oauth.url);
    assert.equal(outcome.value.file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the token file is 0600');
    assert.equal(statSync(storeDir).mode & 0o777, 0o700, 'its directory is 0700');
    assert.deepEqual(
      readdirSync(storeDir).filter((name) => name.endsWith('.tmp')),
      [],
      'no temporary file is left behind',
    );

    const first = await run(proxy, echo);
    assert.equal(seen(first), 'http echo: hi');
    const firstToken = JSON.parse(readFileSync(file, 'utf8')).tokens.access_token as string;

    oauth.expireAccessTokens();
    const unauthorizedBefore = oauth.counters.unauthorized;
    const refreshed = await run(proxy, echo, 'call-2');
    assert.equal(seen(refreshed), 'http echo: hi', 'the live session refreshed its token and went on');
    assert.equal(oauth.counters.refreshes, 1);
    assert.equal(oauth.counters.unauthorized, unauthorizedBefore + 1, 'the old token was refused once');
    assert.equal(oauth.counters.authorizations, 1, 'nobody was asked again');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    assert.notEqual(stored.tokens.access_token, firstToken, 'the refreshed token is stored');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'still 0600 after the refresh rewrote it');

    // A token that ran out and cannot be refreshed: the call fails closed, again without a flow.
    oauth.expireAccessTokens();
    oauth.revokeRefreshTokens();
    const lapsed = await run(proxy, echo, 'call-3');
    assert.ok(!lapsed.ok, seen(lapsed));
    assert.equal(lapsed.error.code, 'MCP_AUTH_REQUIRED');
    assert.match(seen(lapsed), /toolhost mcp login secure/);
    assert.equal(oauth.counters.authorizations, 1, 'a failed refresh starts no authorization');
    for (const secret of oauth.issuedSecrets) {
      assert.ok(!seen(lapsed).includes(secret), 'no token appears in an error');
    }
  });

  it('a fresh proxy refreshes an expired stored token at connect; logout removes the entry and the status says so', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const storeDir = join(tempDir(t, 'oauth-config-'), MCP_OAUTH_DIR_NAME);
    const server = resolved('secure', oauth.url);
    assert.deepEqual(mcpServerSignIn(storeDir, server, {}), { status: 'not-signed-in', refreshable: false });
    const { outcome } = await login(server, storeDir);
    assert.ok(outcome.ok);
    assert.deepEqual(mcpServerSignIn(storeDir, server, {}), { status: 'signed-in', refreshable: true });

    oauth.expireAccessTokens();
    const proxy = createCapabilityProxy({
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      mcpServers: { secure: { url: oauth.url } },
      oauthStoreDir: storeDir,
    });
    t.after(() => proxy.close());
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:secure/echo',
      arguments: { message: 'fresh' },
    });
    assert.equal(seen(echo), 'http echo: fresh');
    assert.equal(oauth.counters.refreshes, 1);

    const removed = logoutMcpServer(storeDir, server, {});
    assert.ok(removed.ok && removed.value);
    assert.throws(() => statSync(mcpOAuthFile(storeDir, oauth.url)), /ENOENT/);
    assert.deepEqual(mcpServerSignIn(storeDir, server, {}), { status: 'not-signed-in', refreshable: false });
    const again = logoutMcpServer(storeDir, server, {});
    assert.ok(again.ok && !again.value, 'a second logout finds nothing');
  });

  it('two sessions refreshing the same sign-in at once both go on: the one whose rotated refresh token is refused keeps the new sign-in of the other instead of deleting it', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const storeDir = join(tempDir(t, 'oauth-config-'), MCP_OAUTH_DIR_NAME);
    const { outcome } = await login(resolved('secure', oauth.url), storeDir);
    assert.ok(outcome.ok);
    const proxies = [0, 1].map(() =>
      createCapabilityProxy({
        authorize: async () => ({ allowed: true }),
        timeouts: GENEROUS_TIMEOUTS,
        mcpServers: { secure: { url: oauth.url } },
        oauthStoreDir: storeDir,
      }),
    );
    t.after(() => Promise.all(proxies.map((proxy) => proxy.close())));
    const echo = { action: 'call', capability_id: 'mcp-tool:secure/echo', arguments: { message: 'both' } };
    for (const proxy of proxies) assert.equal(seen(await run(proxy, echo)), 'http echo: both');
    oauth.expireAccessTokens();
    oauth.pairRefreshes();
    const both = await Promise.all(proxies.map((proxy, index) => run(proxy, echo, `race-${index}`)));
    for (const result of both) assert.equal(seen(result), 'http echo: both');
    assert.ok(readMcpOAuthEntryTokens(storeDir, oauth.url), 'the sign-in is still stored');
    for (const proxy of proxies) assert.equal(seen(await run(proxy, echo, 'after')), 'http echo: both');
    assert.equal(oauth.counters.authorizations, 1, 'nobody was asked again');
  });

  it('sends the headers of the server configuration only to the server, never to its authorization server (another origin)', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const storeDir = join(tempDir(t, 'oauth-config-'), MCP_OAUTH_DIR_NAME);
    const parsed = parseMcpServers({
      secure: { url: oauth.url, headers: { 'X-Api-Key': 'key-for-the-server' } },
    });
    assert.ok(parsed.ok);
    let browser: Promise<unknown> | undefined;
    const outcome = await loginMcpServer({
      server: parsed.value[0]!,
      storeDir,
      environment: {},
      timeoutMs: 60_000,
      onAuthorizationUrl: (url) => {
        browser = playBrowser(url);
      },
    });
    await browser;
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
    oauth.expireAccessTokens();
    const proxy = createCapabilityProxy({
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      mcpServers: { secure: { url: oauth.url, headers: { 'X-Api-Key': 'key-for-the-server' } } },
      oauthStoreDir: storeDir,
    });
    t.after(() => proxy.close());
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:secure/echo',
      arguments: { message: 'k' },
    });
    assert.equal(seen(echo), 'http echo: k');
    assert.equal(oauth.counters.refreshes, 1, 'the refresh went to the authorization server');
    assert.ok(oauth.counters.authServerHeaders.has('content-type'), 'the authorization server was asked');
    assert.ok(!oauth.counters.authServerHeaders.has('x-api-key'), 'the server key never went there');
  });

  // Issue 24: the login sent the hard-coded client version 0.0.0 (its option was never set); the proxy
  // already sent the package's. Both now send this package's package.json version.
  it("login and the proxy's connection send this package's version as the MCP client version, never a hard-coded one", async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const storeDir = join(tempDir(t, 'oauth-version-'), MCP_OAUTH_DIR_NAME);
    const server = resolved('versioned', oauth.url);
    const { outcome } = await login(server, storeDir);
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
    const proxy = createCapabilityProxy({
      authorize: async () => ({ allowed: true }),
      timeouts: GENEROUS_TIMEOUTS,
      mcpServers: { versioned: { url: oauth.url } },
      oauthStoreDir: storeDir,
    });
    t.after(() => proxy.close());
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:versioned/echo',
      arguments: { message: 'v' },
    });
    assert.equal(seen(echo), 'http echo: v');
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const kinds = new Set(oauth.counters.clientVersions.map((entry) => entry.split(':')[0]));
    assert.deepEqual([...kinds].sort(), ['initialize', 'registration']);
    for (const entry of oauth.counters.clientVersions) assert.equal(entry.split(':')[1], version, entry);
  });

  it('a login whose browser never comes back times out with MCP_AUTH_REQUIRED and leaves the earlier sign-in as it was', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const storeDir = join(tempDir(t, 'oauth-config-'), MCP_OAUTH_DIR_NAME);
    const server = resolved('secure', oauth.url);
    const { outcome } = await login(server, storeDir);
    assert.ok(outcome.ok);
    const before = readFileSync(mcpOAuthFile(storeDir, oauth.url), 'utf8');
    let shown = 0;
    const abandoned = await loginMcpServer({
      server,
      storeDir,
      environment: {},
      timeoutMs: 1_500,
      onAuthorizationUrl: () => {
        shown++;
      },
    });
    assert.equal(shown, 1);
    assert.ok(!abandoned.ok);
    assert.equal(abandoned.error.code, 'MCP_AUTH_REQUIRED');
    assert.match(abandoned.error.message, /did not complete in time/);
    assert.equal(readFileSync(mcpOAuthFile(storeDir, oauth.url), 'utf8'), before, 'the old sign-in is kept');
  });
});
