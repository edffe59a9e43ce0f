import { errorMessage } from '@toolhost/contracts';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApproveCallback } from '@toolhost/boot';
import { openHost } from '../open-host.js';
import { VERSION } from '../run-cli.js';
import { serveStdio } from '../serve-stdio.js';

function parsePort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw usageError('--http takes a TCP port from 0 to 65535 (0 picks a free one)');
  }
  return port;
}

/**
 * `toolhost serve [--http PORT]`: the host's provider surface as an MCP server. Over stdio (the
 * default) it serves until stdin ends; over HTTP until SIGINT/SIGTERM. A message larger than
 * `MAX_SERVE_MESSAGE_BYTES` (4 MiB) is refused with a JSON-RPC error and serving goes on. Either way it then closes the
 * MCP sessions and the host, which ends running calls, jobs and MCP servers. A call that needs
 * approval is asked of the MCP client with `elicitation/create` when it declares elicitation;
 * otherwise it fails closed (`APPROVAL_REQUIRED`, naming the rule or flag that would allow it).
 * `--plan` opens every MCP session in plan mode.
 */
export const serveCommand: CommandHandler = async ({ globals, values, io, signal }) => {
  const port = typeof values.http === 'string' ? parsePort(values.http) : undefined;
  const origins = (values['allow-origin'] as readonly string[] | undefined) ?? [];
  if (origins.length > 0 && port === undefined) throw usageError('--allow-origin needs --http PORT');
  // The Streamable HTTP stack (the SDK's server transport, @hono/node-server) loads only for --http:
  // serving over stdio never needs it, and it costs start-up time.
  const http = port === undefined ? undefined : await import('../serve-http.js');
  const allowedOrigins = origins.map((origin) => {
    const parsed = (http as NonNullable<typeof http>).parseAllowedOrigin(origin);
    // The value is the person's own flag, so it may be named; it is never a model's.
    if (!parsed.ok) throw usageError(`--allow-origin ${origin} ${parsed.reason}`);
    return parsed.origin;
  });
  const plan = values.plan === true;
  const host = await openHost(globals, { io, network: values.network === true });
  // Each MCP session's approvals go to its own client (elicitation), once its MCP server exists. The
  // approver loads with the SDK's server (mcp-server.js): approvals are asked only during a tools/call,
  // which the SDK's server answers, so start-up never loads it.
  const openServedSession = async () => {
    let server: Server | undefined;
    let approver: ApproveCallback | undefined;
    const session = await host.openSession({
      approve: async (request) => {
        approver ??= (await import('../mcp-server.js')).createElicitationApprover(() => server);
        return approver(request);
      },
      ...(plan ? { plan } : {}),
    });
    return {
      session,
      attach: (created: Server) => {
        server = created;
      },
    };
  };
  try {
    if (port !== undefined && http) {
      const { createMcpServer } = await import('../mcp-server.js');
      const listening = await http
        .startHttpServer({
          port,
          allowedOrigins,
          // One toolhost session per MCP session: no client sees another's observations, jobs or results.
          openSession: async () => {
            const { session, attach } = await openServedSession();
            const server = createMcpServer(session, { version: VERSION });
            attach(server);
            return { server, dispose: () => session.close() };
          },
        })
        .catch((error: unknown) => {
          throw usageError(`cannot listen on 127.0.0.1:${port}: ${errorMessage(error)}`, error);
        });
      io.stderr.write(`toolhost: serving MCP on ${listening.url}\n`);
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await listening.close();
      return EXIT_CODES.success;
    }
    const { session, attach } = await openServedSession();
    await serveStdio({
      session,
      stdin: io.stdin,
      stdout: io.stdout,
      signal,
      version: VERSION,
      onServer: attach,
    });
    return EXIT_CODES.success;
  } finally {
    await host.close();
  }
};
