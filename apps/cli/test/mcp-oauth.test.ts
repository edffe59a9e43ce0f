import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import {
  type OAuthMcpServer,
  playBrowser,
  startOAuthMcpServer,
} from '../../../packages/capability-proxy/test/oauth-servers.js';
import { type CliRun, type Json, makeProject, runToolhost, SessionDriver, spawnToolhost } from './helpers.js';

/** Every file under `dir` (recursively), as text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, text: readFileSync(path, 'latin1') });
  }
  return out;
}

/** A user configuration directory outside the project, with `secure` configured and its echo allowed. */
async function userConfig(oauth: OAuthMcpServer): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'toolhost-oauth-user-')));
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({
      mcpServers: { secure: { url: oauth.url } },
      permissions: { allow: ['mcp__secure__echo'] },
    }),
  );
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `toolhost mcp login` as a process and plays the browser for the URL it prints. */
async function login(
  cwd: string,
  configDir: string,
): Promise<CliRun & { browser: { forged: number; callback: number } }> {
  const child = spawnToolhost(['mcp', 'login', 'secure', '--timeout', '120'], {
    cwd,
    env: { TOOLHOST_CONFIG_DIR: configDir },
  });
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  let browser: Promise<{ forged: number; callback: number }> | undefined;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const url = /^ {2}(http:\/\/\S+)$/m.exec(stdout)?.[1];
    if (url && !browser) browser = playBrowser(url);
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  assert.ok(browser, `login printed no authorization URL; stdout: ${stdout} stderr: ${stderr}`);
  return { ...exit, stdout, stderr, browser: await browser };
}

const ECHO = {
  name: 'use_capability',
  arguments: { action: 'call', capability_id: 'mcp-tool:secure/echo', arguments: { message: 'over oauth' } },
};

describe('toolhost mcp (OAuth sign-in)', () => {
  it('a call fails with MCP_AUTH_REQUIRED naming `toolhost mcp login` until a login; then calls succeed, an expired token is refreshed without asking, the 0600 token file lives outside the project, list shows the status without token text, and logout removes it', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const user = await userConfig(oauth);
    t.after(user.cleanup);
    const project = await makeProject({ 'README.md': '# project\n' });
    t.after(project.cleanup);
    const env = { TOOLHOST_CONFIG_DIR: user.dir };

    const before = await runToolhost(['mcp', 'list'], { cwd: project.root, env });
    assert.equal(before.code, 0, before.stderr);
    assert.match(
      before.stdout,
      /^secure\s+http \(then sse\)\s+not signed in \(toolhost mcp login secure\)$/m,
    );

    const session = SessionDriver.start([], { cwd: project.root, env });
    t.after(() => session.kill());
    const refused: Json = await session.send({ id: 'c1', ...ECHO });
    assert.equal(refused.status, 'error', refused.output);
    assert.equal(refused.error.code, 'MCP_AUTH_REQUIRED');
    assert.match(refused.error.message, /toolhost mcp login secure/);
    assert.equal(oauth.counters.registrations, 0, 'a call registers no client');
    assert.equal(oauth.counters.authorizations, 0, 'no interactive flow starts inside a call');

    const signedIn = await login(project.root, user.dir);
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.equal(signedIn.browser.forged, 400, 'the loopback redirect refuses a forged state');
    assert.equal(signedIn.browser.callback, 200);
    assert.match(signedIn.stdout, /Signed in to secure; it lists \d+ tools/);
    assert.equal(oauth.counters.registrations, 1, 'dynamic client registration');
    assert.equal(oauth.counters.codeExchanges, 1);

    // The same session: its next call connects with the new sign-in.
    const ok: Json = await session.send({ id: 'c2', ...ECHO });
    assert.equal(ok.status, 'ok', ok.output);
    assert.match(ok.output, /http echo: over oauth/);

    oauth.expireAccessTokens();
    const refreshed: Json = await session.send({ id: 'c3', ...ECHO });
    assert.equal(refreshed.status, 'ok', refreshed.output);
    assert.equal(oauth.counters.refreshes, 1, 'the token was refreshed');
    assert.equal(oauth.counters.authorizations, 1, 'nobody was asked again');
    const exit = await session.close();
    assert.equal(exit.code, 0, session.stderr);

    // A new process with a stored token that ran out refreshes it at connect.
    oauth.expireAccessTokens();
    const call = await runToolhost(['call', 'use_capability', JSON.stringify(ECHO.arguments)], {
      cwd: project.root,
      env,
    });
    assert.equal(call.code, 0, call.stderr);
    assert.match(call.stdout, /http echo: over oauth/);
    assert.equal(oauth.counters.refreshes, 2);
    assert.equal(oauth.counters.authorizations, 1);

    const store = join(user.dir, 'mcp-oauth');
    const files = readdirSync(store);
    assert.equal(files.length, 1, 'one entry for the one server URL');
    const tokenFile = join(store, files[0]!);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600, 'the token file is 0600');
    assert.ok(relative(project.root, tokenFile).startsWith('..'), 'the token file is outside the project');
    const secrets = oauth.issuedSecrets;
    assert.ok(secrets.some((secret) => readFileSync(tokenFile, 'utf8').includes(secret)));
    // Nothing in the project (the state directory, session records, the audit log) holds a token.
    for (const file of filesUnder(project.root)) {
      for (const secret of secrets) assert.ok(!file.text.includes(secret), `${file.path} holds a token`);
    }
    for (const output of [signedIn.stdout, signedIn.stderr, call.stdout, call.stderr, session.stderr]) {
      for (const secret of secrets) assert.ok(!output.includes(secret), 'no token is printed');
    }

    const list = await runToolhost(['mcp', 'list'], { cwd: project.root, env });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^secure\s+http \(then sse\)\s+signed in$/m);
    const json = await runToolhost(['mcp', 'list', '--json'], { cwd: project.root, env });
    assert.deepEqual(JSON.parse(json.stdout), {
      servers: [
        {
          name: 'secure',
          transport: 'http (then sse)',
          enabled: true,
          signIn: 'signed-in',
          refreshable: true,
        },
      ],
    });
    for (const secret of secrets) assert.ok(!list.stdout.includes(secret) && !json.stdout.includes(secret));

    const logout = await runToolhost(['mcp', 'logout', 'secure'], { cwd: project.root, env });
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /Signed out of secure/);
    assert.ok(!existsSync(tokenFile), 'logout deletes the token file');
    const after = await runToolhost(['mcp', 'list'], { cwd: project.root, env });
    assert.match(after.stdout, /not signed in/);
    const again = await runToolhost(['call', 'use_capability', JSON.stringify(ECHO.arguments)], {
      cwd: project.root,
      env,
    });
    assert.equal(again.code, 1);
    assert.match(again.stdout, /MCP_AUTH_REQUIRED: .*toolhost mcp login secure/);
  });

  it('exits 2 on usage errors and 1 when the browser never comes back within --timeout', async (t) => {
    const oauth = await startOAuthMcpServer();
    t.after(() => oauth.close());
    const user = await userConfig(oauth);
    t.after(user.cleanup);
    const project = await makeProject();
    t.after(project.cleanup);
    const env = { TOOLHOST_CONFIG_DIR: user.dir };
    for (const args of [
      ['mcp'],
      ['mcp', 'frob'],
      ['mcp', 'login'],
      ['mcp', 'list', 'secure'],
      ['mcp', 'login', 'nosuch'],
      ['mcp', 'login', 'secure', '--timeout', '0'],
      ['mcp', 'logout', 'secure', '--timeout', '5'],
    ]) {
      const run = await runToolhost(args, { cwd: project.root, env });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^toolhost: \S/);
    }
    const inside = await runToolhost(['mcp', 'login', 'secure'], {
      cwd: project.root,
      env: { TOOLHOST_CONFIG_DIR: join(project.root, 'cfg') },
    });
    assert.equal(inside.code, 2, 'a configuration directory inside the project is refused');

    const abandoned = await runToolhost(['mcp', 'login', 'secure', '--timeout', '2'], {
      cwd: project.root,
      env,
    });
    assert.equal(abandoned.code, 1, abandoned.stderr);
    assert.match(abandoned.stdout, /^ {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/m);
    assert.match(abandoned.stderr, /MCP_AUTH_REQUIRED: .*did not complete in time/);
    assert.ok(
      !existsSync(join(user.dir, 'mcp-oauth')) || readdirSync(join(user.dir, 'mcp-oauth')).length === 0,
    );
  });
});
