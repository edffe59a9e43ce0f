import { spawn } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import type { McpSignInReport, ResolvedMcpServer } from '@toolhost/boot';
import { CliError, EXIT_CODES, failure, oneLine, usageError } from '../cli-error.js';
import type { CliIo, CommandHandler } from '../command-types.js';

const SUBCOMMANDS = ['list', 'login', 'logout'] as const;
/** The longest `--timeout` a login may wait: one hour. */
const MAX_LOGIN_TIMEOUT_SECONDS = 3_600;

/**
 * `toolhost mcp list | login SERVER | logout SERVER`: OAuth 2.1 sign-in to the HTTP MCP servers of
 * the configuration. `login` prints the authorization URL (and opens it only where a browser exists
 * and stdout is a terminal), waits on a loopback redirect for the browser's return (bounded by
 * `--timeout`), exchanges the code and stores the tokens in the user configuration directory (0600,
 * never in the project). `logout` deletes them. `list` prints each configured server with its
 * transport and sign-in status, never a token. Exit codes: 0 done, 1 the sign-in failed, 2 a usage
 * or configuration error.
 */
export const mcpCommand: CommandHandler = async ({ globals, values, positionals, io, signal }) => {
  const [subcommand, name] = positionals;
  if (!SUBCOMMANDS.includes(subcommand as (typeof SUBCOMMANDS)[number])) {
    throw usageError(`mcp takes list, login SERVER or logout SERVER (see toolhost mcp --help)`);
  }
  if (subcommand === 'list' ? name !== undefined : name === undefined) {
    throw usageError(
      subcommand === 'list'
        ? 'mcp list takes no server name'
        : `mcp ${subcommand} takes the name of a configured server`,
    );
  }
  if (subcommand !== 'login' && (values.timeout !== undefined || values['no-browser'] !== undefined)) {
    throw usageError('--timeout and --no-browser belong to mcp login');
  }
  if (subcommand !== 'list' && values.json !== undefined) throw usageError('--json belongs to mcp list');
  const timeoutMs = loginTimeout(values.timeout);
  const boot = await import('@toolhost/boot');
  let root: string;
  try {
    root = realpathSync(globals.root);
  } catch (error) {
    throw usageError(`--root: ${globals.root} does not exist or cannot be read`, error);
  }
  const userConfigDir = boot.resolveUserConfigDir({ env: io.env });
  const resolved = boot.resolveHostConfig({
    root,
    ...(globals.config === undefined ? {} : { config: globals.config }),
    userConfig: join(userConfigDir, boot.USER_CONFIG_FILE_NAME),
    userConfigDir,
  });
  if (!resolved.ok) throw usageError(resolved.error.message, resolved.error);
  const parsed = boot.parseMcpServers(resolved.value.config.mcpServers);
  if (!parsed.ok) throw usageError(parsed.error.message, parsed.error);
  const servers = parsed.value;
  const storeDir = join(resolve(userConfigDir), boot.MCP_OAUTH_DIR_NAME);

  if (subcommand === 'list') {
    const rows = servers.map((server) => ({
      name: server.name,
      transport: transportName(server),
      enabled: server.enabled,
      ...boot.mcpServerSignIn(storeDir, server, io.env),
    }));
    if (values.json === true) {
      io.stdout.write(
        `${JSON.stringify({
          servers: rows.map(({ name, transport, enabled, status, refreshable }) => ({
            name,
            transport,
            enabled,
            signIn: status,
            refreshable,
          })),
        })}\n`,
      );
      return EXIT_CODES.success;
    }
    if (rows.length === 0) {
      io.stdout.write(
        'No MCP servers are configured (mcpServers in toolhost.config.json or the user configuration).\n',
      );
      return EXIT_CODES.success;
    }
    const nameWidth = Math.max(...rows.map((row) => row.name.length));
    const transportWidth = Math.max(...rows.map((row) => row.transport.length));
    for (const row of rows) {
      const status = `${describeSignIn(row, servers.find((server) => server.name === row.name)!)}${row.enabled ? '' : ' (disabled)'}`;
      io.stdout.write(`${row.name.padEnd(nameWidth)}  ${row.transport.padEnd(transportWidth)}  ${status}\n`);
    }
    return EXIT_CODES.success;
  }

  const server = servers.find((candidate) => candidate.name === name);
  if (!server) {
    const known = servers.map((candidate) => candidate.name);
    throw usageError(
      `no MCP server named ${JSON.stringify(name)} is configured${known.length > 0 ? ` (configured: ${known.join(', ')})` : ''}`,
    );
  }

  if (subcommand === 'logout') {
    const removed = boot.logoutMcpServer(storeDir, server, io.env);
    if (!removed.ok) throw usageError(removed.error.message, removed.error);
    io.stdout.write(
      removed.value
        ? `Signed out of ${server.name}: its tokens were deleted.\n`
        : `${server.name} had no sign-in; nothing to delete.\n`,
    );
    return EXIT_CODES.success;
  }

  // Sign-ins are the user's: a configuration directory inside the project would put tokens where
  // the project (and whoever commits it) can see them.
  for (const base of [root, resolve(globals.root)]) {
    const inside = relative(base, storeDir);
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      throw usageError(
        `the user configuration directory ${userConfigDir} lies inside the project; sign-ins are never kept in a project (set TOOLHOST_CONFIG_DIR or XDG_CONFIG_HOME elsewhere)`,
      );
    }
  }
  const target = boot.mcpSignInTarget(server, io.env);
  if (!target.ok) throw usageError(target.error.message, target.error);
  if (target.value.kind === 'none') {
    throw usageError(
      target.value.why === 'stdio'
        ? `${server.name} is a stdio server; only HTTP servers sign in`
        : `${server.name} sets its own Authorization header in its configuration, so toolhost does not sign in for it`,
    );
  }
  const browser = values['no-browser'] === true ? undefined : browserOpener(io);
  const outcome = await boot.loginMcpServer({
    server,
    storeDir,
    environment: io.env,
    timeoutMs,
    signal,
    onAuthorizationUrl: (url) => {
      io.stdout.write(`To sign in to ${server.name}, open this URL in a browser:\n\n  ${url}\n\n`);
      io.stderr.write(
        `toolhost: waiting up to ${Math.round(timeoutMs / 1000)} s for the browser to come back (Ctrl-C stops)\n`,
      );
      if (browser) browser(url);
    },
  });
  if (!outcome.ok) {
    if (signal.aborted && CliError.isInstance(signal.reason)) throw signal.reason;
    const error = outcome.error;
    const message = oneLine(`${error.code}: ${error.message}${error.recovery ? `; ${error.recovery}` : ''}`);
    if (error.code === 'CONFIG_INVALID') throw usageError(message, error);
    throw failure(message, error);
  }
  io.stdout.write(
    outcome.value.signedIn
      ? `Signed in to ${server.name}; it lists ${outcome.value.toolCount} tools. The sign-in is kept in ${outcome.value.file} (readable only by you); \`toolhost mcp logout ${server.name}\` deletes it.\n`
      : `${server.name} let toolhost in without a sign-in (it lists ${outcome.value.toolCount} tools); nothing was stored.\n`,
  );
  return EXIT_CODES.success;
};

function loginTimeout(value: unknown): number {
  if (value === undefined) return 300_000;
  const text = String(value);
  const seconds = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_LOGIN_TIMEOUT_SECONDS) {
    throw usageError(`--timeout: expected whole seconds from 1 to ${MAX_LOGIN_TIMEOUT_SECONDS}`);
  }
  return seconds * 1000;
}

function transportName(server: ResolvedMcpServer): string {
  return server.transport === 'http-auto' ? 'http (then sse)' : server.transport;
}

function describeSignIn(report: McpSignInReport, server: ResolvedMcpServer): string {
  switch (report.status) {
    case 'not-applicable':
      return server.transport === 'stdio'
        ? 'no sign-in (stdio)'
        : 'no sign-in (its own Authorization header)';
    case 'not-signed-in':
      return `not signed in (toolhost mcp login ${server.name})`;
    case 'signed-in':
      return 'signed in';
    case 'expired':
      return report.refreshable
        ? 'signed in (the access token ran out; the next use refreshes it)'
        : `sign-in expired (toolhost mcp login ${server.name})`;
  }
}

/**
 * How to open a URL in a browser, or undefined where there is none: only when stdout is a terminal
 * (a person is there), never in CI, and only with an opener on PATH (`open` on macOS; `xdg-open` with
 * a display elsewhere). The URL is an argument, never shell text.
 */
function browserOpener(io: CliIo): ((url: string) => void) | undefined {
  if (io.stdout.isTTY !== true || io.env.CI) return undefined;
  const command =
    process.platform === 'darwin'
      ? 'open'
      : process.platform === 'win32'
        ? undefined
        : io.env.DISPLAY || io.env.WAYLAND_DISPLAY
          ? 'xdg-open'
          : undefined;
  if (!command) return undefined;
  const found = (io.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, command))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  if (!found) return undefined;
  return (url) => {
    try {
      const child = spawn(found, [url], { detached: true, stdio: 'ignore' });
      child.on('error', () => undefined);
      child.unref();
    } catch {
      // The URL is printed; a browser that does not open changes nothing.
    }
  };
}
