import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type ArgumentValidator,
  err,
  isObject,
  ok,
  type Result,
  ToolhostError,
  type ToolProgress,
} from '@toolhost/contracts';
import { expandVariables, type ResolvedMcpServer } from './mcp-config.js';
import {
  MCP_CONTENT_LIMITS,
  type McpServerContent,
  type Normalized,
  normalizePrompts,
  normalizeResources,
  normalizeTemplates,
  UNKNOWN_CONTENT,
} from './mcp-resources.js';
import { loadedMcpSdk, loadMcpSdk } from './mcp-sdk.js';
import {
  MCP_TOOL_LIMITS,
  type McpSchemaCache,
  type McpToolSchema,
  normalizeMcpTools,
  readSchemaCache,
  writeSchemaCache,
} from './mcp-tools.js';
import { configuredHeadersOnlyTo, createBoundedFetch } from './bounded-fetch.js';
import { createMcpOAuthProvider, hasStoredTokens, McpSignInRequired } from './mcp-oauth-provider.js';
import { createServerEnvironment } from './server-environment.js';
import { createStdioTransport, type StdioTransport } from './stdio-transport.js';

/** Timeouts of MCP traffic, in milliseconds. */
export interface McpTimeouts {
  /** Starting the server, `initialize` and the first `tools/list`; default 5000. */
  readonly handshakeMs: number;
  /** One request without an answer or a progress notification; default 60000 (progress extends it). */
  readonly requestMs: number;
  /**
   * One call in total, whatever progress says; default 120000. A call past it (or past `requestMs`
   * without progress) is cancelled with `notifications/cancelled`; a server that keeps sending
   * progress for it longer than `closeGraceMs` after that ignored the cancellation, and its
   * connection is dropped (a stdio server's whole process group ends; the next call reconnects).
   */
  readonly totalMs: number;
}

/** Limits on what a server may send and how it is stopped. */
export interface McpLimits {
  /** The largest single message accepted from a stdio server, in bytes; default 16 MiB. */
  readonly maxMessageBytes: number;
  /** Non-JSON-RPC stdout lines tolerated before the connection is declared broken; default 20. */
  readonly maxGarbageLines: number;
  /**
   * Grace after closing stdin, then after SIGTERM; default 2000. Also how long a server may still
   * report progress on a call it was asked to cancel before its connection is dropped.
   */
  readonly closeGraceMs: number;
  /** Bytes of a server's stderr logged per process; default 1 MiB. */
  readonly maxLogBytes: number;
}

/** The lifecycle state of one configured server. */
export type McpServerStatus = 'configured' | 'disabled' | 'connecting' | 'ready' | 'failed';

/** The transport a connection actually used. */
export type McpTransportUsed = 'stdio' | 'streamable-http' | 'sse';

/** Everything a connection needs from the proxy. */
export interface McpConnectionOptions {
  readonly server: ResolvedMcpServer;
  readonly stateDir: string | undefined;
  readonly cwd: string | undefined;
  readonly inheritEnvironment: readonly string[];
  readonly environmentSource: Readonly<Record<string, string | undefined>>;
  readonly timeouts: McpTimeouts;
  readonly limits: McpLimits;
  readonly validator: ArgumentValidator;
  readonly clientVersion: string;
  /**
   * The OAuth sign-in store (`<user config dir>/mcp-oauth`): an HTTP server signed in to with
   * `toolhost mcp login` gets its stored tokens (refreshed without asking when they run out).
   * Without it, or for a server whose configuration sets its own `Authorization` header, no OAuth.
   */
  readonly oauthStoreDir?: string | undefined;
  /** Called after `tools/list_changed` refreshed the live tool list. */
  readonly onToolsChanged?: (server: string, tools: readonly McpToolSchema[]) => void;
}

/** Options of {@link McpConnection.callTool}. */
export interface McpCallOptions {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
}

/** A request other than `tools/call`: `resources/read` or `prompts/get`. */
export interface McpContentRequest {
  readonly method: 'resources/read' | 'prompts/get';
  readonly params: Record<string, unknown>;
  /** How errors name the target: `resource read`, `prompt "name"` (never an argument value). */
  readonly label: string;
  /** The signature part after `<server>/`: `read_resource`, `prompt`. */
  readonly signatureName: string;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
}

/** One configured MCP server and, while it runs, its client. Never starts anything until `connect`. */
export interface McpConnection {
  readonly server: ResolvedMcpServer;
  readonly status: McpServerStatus;
  /** The live tool list while connected. */
  readonly liveTools: readonly McpToolSchema[] | undefined;
  /**
   * The schema cache (read once from the state dir, refreshed on every live list), or undefined
   * when there is none. A hint, never a gate: a tool missing from it may still exist.
   */
  schemaCache(): McpSchemaCache | undefined;
  /**
   * The live resources, templates and prompts while connected (each undefined until listed, or when
   * its listing failed). Listed after the handshake, in the background: see {@link contentListed}.
   */
  readonly liveContent: McpServerContent | undefined;
  /** Resolves once the current session's resources, templates and prompts are listed (or failed to be). */
  contentListed(): Promise<McpServerContent | undefined>;
  /** Sends `resources/read` or `prompts/get` on a connected server; errors as {@link callTool}'s. */
  request(options: McpContentRequest): Promise<Result<unknown, ToolhostError>>;
  /** The reason of the last failure (value-free). */
  readonly lastError: string | undefined;
  /**
   * What the last live `tools/list` left out, value-free (entries without a valid name, repeated
   * names, tools beyond the cap, pages beyond the cap), for the model; empty when nothing was.
   */
  readonly listingNotes: readonly string[];
  /** The stdio server's pid while it runs. */
  readonly pid: number | undefined;
  readonly transportUsed: McpTransportUsed | undefined;
  /** The stderr log of a stdio server. */
  readonly logPath: string | undefined;
  /**
   * Connects (or joins a connect in progress): starts the server, `initialize`, `tools/list`, all
   * within the handshake timeout. Errors: `MCP_CONNECT_FAILED`, `ABORTED`.
   */
  connect(signal: AbortSignal): Promise<Result<readonly McpToolSchema[], ToolhostError>>;
  /**
   * Calls a tool on a connected server and returns the raw MCP result. Errors: `MCP_CALL_FAILED`
   * (timeouts, a crash, a broken stream, a JSON-RPC error), `ABORTED`.
   */
  callTool(options: McpCallOptions): Promise<Result<unknown, ToolhostError>>;
  /** Ends the server (its whole process group for stdio). The connection may connect again later. */
  close(): Promise<void>;
}

interface LiveSession {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: McpTransportUsed;
}

/** Creates the connection object of one configured server (nothing starts). */
export function createMcpConnection(options: McpConnectionOptions): McpConnection {
  const { server, limits } = options;
  const timeouts: McpTimeouts = { ...options.timeouts, ...server.timeouts };
  let status: McpServerStatus = server.enabled ? 'configured' : 'disabled';
  let live: LiveSession | undefined;
  let liveTools: McpToolSchema[] | undefined;
  let liveContent: McpServerContent | undefined;
  let contentListing: Promise<McpServerContent | undefined> | undefined;
  let cached: McpSchemaCache | undefined;
  let cacheRead = false;
  let lastError: string | undefined;
  let listingNotes: readonly string[] = [];
  let attempt: Promise<Result<readonly McpToolSchema[], ToolhostError>> | undefined;
  let attemptController: AbortController | undefined;
  let generation = 0;
  const logPath = options.stateDir ? join(options.stateDir, 'mcp-logs', `${server.slug}.log`) : undefined;
  // Sessions being ended in the background; close() waits for them, so no process outlives it.
  const endings = new Set<Promise<void>>();
  function ending(closing: Promise<void>): void {
    endings.add(closing);
    void closing.finally(() => endings.delete(closing));
  }

  function connectFailed(message: string, reason: string, cause?: unknown): ToolhostError {
    return new ToolhostError({
      code: 'MCP_CONNECT_FAILED',
      message: `MCP server "${server.name}" ${message}`,
      signature: `mcp_connect:${server.name}:${reason}`,
      details: {
        server: server.name,
        reason,
        remoteDispatched: false,
        ...(logPath && server.transport === 'stdio' ? { log: logPath } : {}),
      },
      ...(cause === undefined ? {} : { cause }),
    });
  }

  async function openSession(
    signal: AbortSignal,
  ): Promise<Result<{ session: LiveSession; tools: McpToolSchema[] }, ToolhostError>> {
    const { Client, StreamableHTTPError } = await loadMcpSdk();
    const kinds: McpTransportUsed[] =
      server.transport === 'stdio'
        ? ['stdio']
        : server.transport === 'http'
          ? ['streamable-http']
          : server.transport === 'sse'
            ? ['sse']
            : ['streamable-http', 'sse'];
    let lastFailure: ToolhostError | undefined;
    for (const kind of kinds) {
      const made = makeTransport(kind);
      if (!made.ok) return made;
      const transport = made.value;
      const client = new Client(
        { name: 'toolhost', version: options.clientVersion },
        {
          capabilities: {},
          listChanged: {
            tools: {
              autoRefresh: false,
              debounceMs: 100,
              onChanged: () => {
                void refreshTools(client);
              },
            },
            // notifications/resources/list_changed: resources and templates are listed again.
            resources: {
              autoRefresh: false,
              debounceMs: 100,
              onChanged: () => {
                void refreshContent(client, ['resources', 'templates']);
              },
            },
            prompts: {
              autoRefresh: false,
              debounceMs: 100,
              onChanged: () => {
                void refreshContent(client, ['prompts']);
              },
            },
          },
        },
      );
      // The SDK reports transport errors here; failures surface through the requests they break.
      client.onerror = () => undefined;
      try {
        await untilAborted(client.connect(transport, { timeout: timeouts.handshakeMs, signal }), signal);
        const session: LiveSession = { client, transport, kind };
        watchCancellations(session);
        const listed = await untilAborted(listToolsOf(client, signal), signal);
        listingNotes = listed.notes;
        return ok({ session, tools: listed.tools });
      } catch (error) {
        // Described before closing: a server that exits once its stdin closes must not have its
        // exit ("exited with code 0") reported instead of the real failure.
        const failure = describeConnectError(error, transport, signal);
        const closing = closeQuietly(client, transport);
        // A transport that gave up on its server (garbage, an over-large message) is still ending it,
        // which may take two close graces: report now, and let close() wait for the process instead.
        if (transportFailure(transport)) ending(closing);
        else await closing;
        lastFailure = failure;
        // Legacy servers answer the Streamable HTTP POST with a 4xx (404, 405): try SSE (spec fallback).
        const fallback =
          kind === 'streamable-http' &&
          kinds.length > 1 &&
          error instanceof StreamableHTTPError &&
          error.code !== undefined &&
          error.code >= 400 &&
          error.code < 500 &&
          error.code !== 401 &&
          error.code !== 403;
        if (!fallback) return err(failure);
      }
    }
    return err(lastFailure ?? connectFailed('could not be reached', 'unknown'));
  }

  function makeTransport(kind: McpTransportUsed): Result<Transport, ToolhostError> {
    const source = options.environmentSource;
    if (kind === 'stdio') {
      const environment = createServerEnvironment({
        configured: server.env,
        inherit: options.inheritEnvironment,
        source,
      });
      if (!environment.ok) {
        return err(
          connectFailed(
            `needs the host variable ${environment.error.missing} (referenced by env.${environment.error.variable}), which is not set`,
            'config',
          ),
        );
      }
      const expanded: string[] = [];
      for (const value of [server.command ?? '', ...server.args, server.cwd ?? options.cwd ?? '']) {
        const result = expandVariables(value, source);
        if (!result.ok) {
          return err(
            connectFailed(`needs the host variable ${result.error.missing}, which is not set`, 'config'),
          );
        }
        expanded.push(result.value);
      }
      const [command, ...rest] = expanded;
      const cwd = rest.pop();
      return ok(
        createStdioTransport({
          command: command!,
          args: rest,
          env: environment.value,
          cwd: cwd || undefined,
          stderrLog: logPath,
          maxMessageBytes: limits.maxMessageBytes,
          maxGarbageLines: limits.maxGarbageLines,
          closeGraceMs: limits.closeGraceMs,
          maxLogBytes: limits.maxLogBytes,
        }),
      );
    }
    const url = expandVariables(server.url ?? '', source);
    if (!url.ok) {
      return err(connectFailed(`needs the host variable ${url.error.missing}, which is not set`, 'config'));
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(server.headers)) {
      const expanded = expandVariables(value, source);
      if (!expanded.ok) {
        return err(
          connectFailed(
            `needs the host variable ${expanded.error.missing} (referenced by header ${name}), which is not set`,
            'config',
          ),
        );
      }
      headers[name] = expanded.value;
    }
    let target: URL;
    try {
      target = new URL(url.value);
    } catch (error) {
      return err(connectFailed('has an invalid URL', 'config', error));
    }
    const requestInit: RequestInit = { headers };
    // One holder per transport: the bounded fetch reports an over-large message here, and a call or
    // a handshake that fails because of it says so (like the stdio transport's `failure`).
    const holder: HttpHolder = {};
    const bounded = createBoundedFetch(limits.maxMessageBytes, (reason) => {
      if (holder.failure) return;
      holder.failure = reason;
      if (live && live.transport === holder.transport) dropSession(live, reason);
      else attemptController?.abort(oversizedMessage);
    });
    const scoped = configuredHeadersOnlyTo(bounded, target.origin, Object.keys(headers));
    // A 401 with a Bearer challenge is a server that wants an OAuth sign-in (MCP authorization):
    // remembered so the failure says "sign in", not "HTTP 401". Only the header's scheme is read.
    const fetch: typeof bounded = async (input, init) => {
      const response = await scoped(input, init);
      if (response.status === 401 && /^\s*bearer\b/i.test(response.headers.get('www-authenticate') ?? '')) {
        holder.bearerChallenge = true;
      }
      return response;
    };
    const ownAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
    // The provider is attached only to a server signed in to: a call never registers a client or
    // starts an authorization (the provider refuses), it only uses and refreshes stored tokens.
    const authProvider =
      options.oauthStoreDir && !ownAuthorization && hasStoredTokens(options.oauthStoreDir, target.href)
        ? createMcpOAuthProvider({
            storeDir: options.oauthStoreDir,
            serverUrl: target.href,
            clientVersion: options.clientVersion,
          })
        : undefined;
    const transport =
      kind === 'sse'
        ? new (loadedMcpSdk().SSEClientTransport)(target, {
            requestInit,
            fetch,
            ...(authProvider ? { authProvider } : {}),
          })
        : new (loadedMcpSdk().StreamableHTTPClientTransport)(target, {
            requestInit,
            fetch,
            ...(authProvider ? { authProvider } : {}),
            reconnectionOptions: {
              maxRetries: 2,
              initialReconnectionDelay: 500,
              maxReconnectionDelay: 5_000,
              reconnectionDelayGrowFactor: 2,
            },
          });
    holder.transport = transport;
    httpFailures.set(transport, holder);
    return ok(transport);
  }

  /** Why a transport gave up on its server (garbage, an over-large message), stdio or HTTP. */
  function transportFailure(transport: Transport): string | undefined {
    return (transport as Partial<StdioTransport>).failure ?? httpFailures.get(transport)?.failure;
  }

  /** Whether a failure is a server asking for a sign-in this connection could not give. */
  function needsSignIn(error: unknown, transport: Transport): boolean {
    if (error instanceof McpSignInRequired || error instanceof loadedMcpSdk().UnauthorizedError) return true;
    const httpCode = (error as { code?: unknown } | undefined)?.code;
    return httpCode === 401 && httpFailures.get(transport)?.bearerChallenge === true;
  }

  function signInRequired(cause: unknown): ToolhostError {
    return new ToolhostError({
      code: 'MCP_AUTH_REQUIRED',
      message: `MCP server "${server.name}" needs a sign-in (OAuth) that toolhost does not have or could not renew`,
      recovery: `ask the user to run \`toolhost mcp login ${server.name}\`, then call again; retrying before that fails the same way`,
      signature: `mcp_auth:${server.name}`,
      details: { server: server.name, reason: 'sign_in_required', remoteDispatched: false },
      cause,
    });
  }

  function describeConnectError(error: unknown, transport: Transport, signal: AbortSignal): ToolhostError {
    if (ToolhostError.isInstance(error) && error.code === 'MCP_CONNECT_FAILED') return error;
    if (!signal.aborted && needsSignIn(error, transport)) return signInRequired(error);
    const stdio = transport as Partial<StdioTransport>;
    const failure = transportFailure(transport);
    if (failure) return connectFailed(failure, 'protocol', error);
    if (signal.aborted) {
      const reason = signal.reason;
      if (reason === closedWhileConnecting)
        return connectFailed('was closed while connecting', 'closed', error);
      if (reason === handshakeTimeout) {
        return connectFailed(
          `did not complete the handshake within ${timeouts.handshakeMs} ms`,
          'timeout',
          error,
        );
      }
      return new ToolhostError({
        code: 'ABORTED',
        message: `connecting MCP server "${server.name}" was cancelled`,
        details: { server: server.name, remoteDispatched: false },
        cause: error,
      });
    }
    if (stdio.exitDescription?.startsWith('could not be started')) {
      return connectFailed(stdio.exitDescription, 'unreachable', error);
    }
    if (stdio.exitDescription) {
      return connectFailed(
        `${stdio.exitDescription} during the handshake (its stderr is in the host's MCP log)`,
        'exited',
        error,
      );
    }
    if (error instanceof loadedMcpSdk().McpError) {
      return connectFailed(`rejected the handshake (JSON-RPC error ${error.code})`, 'protocol', error);
    }
    const httpCode = (error as { code?: unknown } | undefined)?.code;
    if (!('pid' in transport) && typeof httpCode === 'number' && httpCode >= 100 && httpCode < 600) {
      return connectFailed(`answered the handshake with HTTP ${httpCode}`, 'http', error);
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code === 'string')
      return connectFailed(`could not be reached or started (${code})`, 'unreachable', error);
    if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
      return connectFailed('could not be reached (the connection failed)', 'unreachable', error);
    }
    return connectFailed('failed during the handshake', 'protocol', error);
  }

  /**
   * Lists what the server declares of resources, resource templates and prompts, page by page and
   * entry by entry (like tools; bounded by {@link MCP_CONTENT_LIMITS}), each within `requestMs`. A
   * listing that fails leaves that part unknown; it never fails the connection (the tools work).
   */
  async function listContent(
    client: Client,
    parts: readonly ('resources' | 'templates' | 'prompts')[],
    previous: McpServerContent,
  ): Promise<McpServerContent> {
    const capabilities = client.getServerCapabilities() ?? {};
    const { ResultSchema } = loadedMcpSdk();
    async function listAll<T>(
      method: string,
      key: string,
      normalize: (raw: readonly unknown[], seen: Set<string>) => Normalized<T>,
    ): Promise<T[] | undefined> {
      try {
        const items: T[] = [];
        const seen = new Set<string>();
        let cursor: string | undefined;
        for (let page = 0; page < MCP_CONTENT_LIMITS.maxPages; page++) {
          const result = (await client.request(
            { method, params: cursor === undefined ? {} : { cursor } } as never,
            ResultSchema,
            { timeout: timeouts.requestMs },
          )) as Record<string, unknown>;
          const list = result[key];
          if (!Array.isArray(list)) return undefined;
          for (const item of normalize(list, seen).items) {
            if (items.length < MCP_CONTENT_LIMITS.maxEntries) items.push(item);
          }
          cursor =
            typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
          if (!cursor || items.length >= MCP_CONTENT_LIMITS.maxEntries) break;
        }
        return items;
      } catch {
        return undefined;
      }
    }
    const hasResources = isObject(capabilities.resources);
    const hasPrompts = isObject(capabilities.prompts);
    const [resources, templates, prompts] = await Promise.all([
      !parts.includes('resources')
        ? previous.resources
        : hasResources
          ? listAll('resources/list', 'resources', normalizeResources)
          : [],
      !parts.includes('templates')
        ? previous.templates
        : hasResources
          ? listAll('resources/templates/list', 'resourceTemplates', normalizeTemplates)
          : [],
      !parts.includes('prompts')
        ? previous.prompts
        : hasPrompts
          ? listAll('prompts/list', 'prompts', normalizePrompts)
          : [],
    ]);
    return { resources, templates, prompts };
  }

  async function refreshContent(
    client: Client,
    parts: readonly ('resources' | 'templates' | 'prompts')[],
  ): Promise<void> {
    if (!live || live.client !== client) return;
    await contentListing?.catch(() => undefined);
    if (!live || live.client !== client) return;
    const listed = await listContent(client, parts, liveContent ?? UNKNOWN_CONTENT);
    if (!live || live.client !== client) return;
    liveContent = listed;
    rememberContent(listed);
  }

  /**
   * The first `tools/list`. A server that declares no `tools` capability and answers "method not
   * found" (one that offers only resources or prompts) has no tools; it used to fail the handshake.
   */
  async function listToolsOf(
    client: Client,
    signal: AbortSignal,
  ): Promise<{ tools: McpToolSchema[]; notes: string[] }> {
    try {
      return await listAllTools(client, timeouts.handshakeMs, signal);
    } catch (error) {
      const { McpError, ErrorCode } = loadedMcpSdk();
      if (
        error instanceof McpError &&
        error.code === ErrorCode.MethodNotFound &&
        !isObject(client.getServerCapabilities()?.tools)
      ) {
        return { tools: [], notes: [] };
      }
      throw error;
    }
  }

  async function refreshTools(client: Client): Promise<void> {
    if (!live || live.client !== client) return;
    try {
      const listed = await listAllTools(client, timeouts.requestMs, undefined);
      if (!live || live.client !== client) return;
      liveTools = listed.tools;
      listingNotes = listed.notes;
      remember(listed.tools);
      options.onToolsChanged?.(server.name, listed.tools);
    } catch {
      // The previous list stays; the next connect lists again.
    }
  }

  /**
   * Reads every page of `tools/list` as a plain result and checks it tool by tool: the SDK's own
   * `listTools` validates the whole list at once, so one tool without `inputSchema` failed the
   * handshake of the whole server (reported as "exited with code 0"), and it compiles every
   * `outputSchema` with ajv, where a hostile, deeply nested one would overflow the stack. Each page
   * is normalised at once (only bounded, canonical tools are kept), pages and tools are capped.
   */
  async function listAllTools(
    client: Client,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<{ tools: McpToolSchema[]; notes: string[] }> {
    const { ResultSchema } = loadedMcpSdk();
    const byName = new Map<string, McpToolSchema>();
    let dropped = 0;
    let overflow = 0;
    let cursor: string | undefined;
    let morePages = false;
    for (let page = 0; page < MCP_TOOL_LIMITS.maxPages; page++) {
      const result = (await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ResultSchema,
        { timeout, ...(signal ? { signal } : {}) },
      )) as Record<string, unknown>;
      if (!Array.isArray(result.tools)) {
        throw new ToolhostError({
          code: 'MCP_CONNECT_FAILED',
          message: `MCP server "${server.name}" answered tools/list without a tools array`,
          signature: `mcp_connect:${server.name}:protocol`,
          details: { server: server.name, reason: 'protocol', remoteDispatched: false },
        });
      }
      const normalized = normalizeMcpTools(result.tools, options.validator);
      dropped += normalized.dropped;
      overflow += normalized.overflow;
      for (const tool of normalized.tools) {
        if (byName.has(tool.name)) dropped++;
        else if (byName.size >= MCP_TOOL_LIMITS.maxTools) overflow++;
        else byName.set(tool.name, tool);
      }
      cursor =
        typeof result.nextCursor === 'string' && result.nextCursor !== '' ? result.nextCursor : undefined;
      morePages = cursor !== undefined;
      if (!cursor || byName.size >= MCP_TOOL_LIMITS.maxTools) break;
    }
    const tools = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const notes: string[] = [];
    if (dropped > 0) {
      notes.push(
        `${dropped} entries of its tool list were ignored (not an object, no valid name, or a repeated name)`,
      );
    }
    if (overflow > 0 || (morePages && byName.size >= MCP_TOOL_LIMITS.maxTools)) {
      notes.push(
        `it lists more than ${MCP_TOOL_LIMITS.maxTools} tools; only the first ${MCP_TOOL_LIMITS.maxTools} are kept`,
      );
    } else if (morePages) {
      notes.push(`its tool list has more than ${MCP_TOOL_LIMITS.maxPages} pages; the rest were not read`);
    }
    const unusable = tools.filter((tool) => tool.unusable !== undefined).length;
    if (unusable > 0) notes.push(`${unusable} of its tools cannot be used (each says why)`);
    return { tools, notes };
  }

  /**
   * Watches one session for a server that ignores `notifications/cancelled`: the SDK sends it when
   * a call times out or is aborted, and then forgets the call, so progress the server keeps sending
   * for that request would go unnoticed while the server keeps working (and, over stdio, keeps a
   * process busy). Progress for a cancelled request arriving more than `closeGraceMs` after the
   * cancellation drops the connection. A server that stays silent after a cancellation is not
   * punished: nothing shows that it is still working.
   */
  function watchCancellations(session: LiveSession): void {
    const { transport } = session;
    const cancelledAt = new Map<string | number, number>();
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      const record = message as { method?: unknown; params?: { requestId?: unknown } };
      const requestId = record.params?.requestId;
      if (
        record.method === 'notifications/cancelled' &&
        (typeof requestId === 'string' || typeof requestId === 'number')
      ) {
        cancelledAt.set(requestId, Date.now());
        // Bounded: forget the oldest cancellations of a long session.
        if (cancelledAt.size > 256) cancelledAt.delete(cancelledAt.keys().next().value as string | number);
      }
      return send(message, sendOptions);
    };
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const record = message as { id?: unknown; method?: unknown; params?: { progressToken?: unknown } };
      if (record.method === 'notifications/progress') {
        const token = record.params?.progressToken;
        const at =
          typeof token === 'string' || typeof token === 'number' ? cancelledAt.get(token) : undefined;
        if (at !== undefined && Date.now() - at > limits.closeGraceMs) {
          cancelledAt.delete(token as string | number);
          dropSession(
            session,
            `kept working on a call it was asked to cancel (progress more than ${limits.closeGraceMs} ms after notifications/cancelled), so its connection was dropped`,
          );
          return;
        }
      } else if (
        record.method === undefined &&
        (typeof record.id === 'string' || typeof record.id === 'number')
      ) {
        // A late answer: the server finished the cancelled call after all.
        cancelledAt.delete(record.id);
      }
      deliver?.(message, extra);
    };
  }

  // The last live tool list, so a content refresh rewrites the cache with it.
  let rememberedTools: McpToolSchema[] = [];

  function remember(tools: McpToolSchema[]): void {
    rememberedTools = tools;
    // Until this session lists its content, the cache keeps what an earlier session listed.
    const content = liveContent ?? cachedContent();
    const usable = tools.filter((tool) => tool.schemaValid && tool.unusable === undefined);
    cached = {
      tools: usable,
      listing: usable,
      withoutSchema: tools
        .filter((tool) => !tool.schemaValid && tool.unusable === undefined)
        .map(({ name, title, description, annotations }) => ({ name, title, description, annotations })),
      savedAt: new Date().toISOString(),
      content,
    };
    cacheRead = true;
    if (options.stateDir) writeSchemaCache(options.stateDir, server, tools, content);
  }

  function cachedContent(): McpServerContent {
    if (!cacheRead) {
      cacheRead = true;
      cached = options.stateDir ? readSchemaCache(options.stateDir, server) : undefined;
    }
    return cached?.content ?? UNKNOWN_CONTENT;
  }

  function rememberContent(content: McpServerContent): void {
    // Not a spread: the cache read from a file normalises its tools only when they are asked for.
    if (cached) {
      const earlier = cached;
      cached = {
        get tools() {
          return earlier.tools;
        },
        listing: earlier.listing,
        withoutSchema: earlier.withoutSchema,
        content,
        savedAt: new Date().toISOString(),
      };
    }
    if (options.stateDir) writeSchemaCache(options.stateDir, server, rememberedTools, content);
  }

  async function runConnect(): Promise<Result<readonly McpToolSchema[], ToolhostError>> {
    status = 'connecting';
    const controller = new AbortController();
    attemptController = controller;
    const timer = setTimeout(() => controller.abort(handshakeTimeout), timeouts.handshakeMs);
    const myGeneration = ++generation;
    try {
      const opened = await openSession(controller.signal);
      if (!opened.ok) {
        status = 'failed';
        lastError = opened.error.message;
        return opened;
      }
      const { session, tools } = opened.value;
      if (myGeneration !== generation) {
        // close() ran while connecting: do not keep a server nobody owns.
        await closeQuietly(session.client, session.transport);
        return err(connectFailed('was closed while connecting', 'closed'));
      }
      live = session;
      liveTools = tools;
      liveContent = undefined;
      status = 'ready';
      lastError = undefined;
      remember(tools);
      // Resources, templates and prompts are listed after the handshake, so a server that is slow
      // (or broken) at listing them still gets its tools used; what needs them waits for this.
      const listing = listContent(
        session.client,
        ['resources', 'templates', 'prompts'],
        UNKNOWN_CONTENT,
      ).then(
        (content) => {
          if (live !== session) return undefined;
          liveContent = content;
          rememberContent(content);
          return content;
        },
        () => undefined,
      );
      contentListing = listing;
      ending(listing.then(() => undefined));
      const previousClose = session.transport.onclose;
      session.transport.onclose = () => {
        previousClose?.();
        if (live !== session) return;
        // The server went away on its own (a crash): the next call reconnects.
        const stdio = session.transport as Partial<StdioTransport>;
        live = undefined;
        liveTools = undefined;
        liveContent = undefined;
        status = 'failed';
        lastError = `MCP server "${server.name}" ${stdio.failure ?? stdio.exitDescription ?? 'closed the connection'}`;
      };
      return ok(tools);
    } finally {
      clearTimeout(timer);
      if (attemptController === controller) attemptController = undefined;
    }
  }

  return {
    server,
    get status() {
      return status;
    },
    get liveTools() {
      return liveTools;
    },
    schemaCache() {
      if (!cacheRead) {
        cacheRead = true;
        cached = options.stateDir ? readSchemaCache(options.stateDir, server) : undefined;
      }
      return cached;
    },
    get liveContent() {
      return liveContent;
    },
    async contentListed() {
      await contentListing;
      return live ? liveContent : undefined;
    },
    request(call) {
      return runRequest(
        call.label,
        call.signatureName,
        call.signal,
        call.onProgress,
        (session, requestOptions) =>
          session.client.request(
            { method: call.method, params: call.params } as never,
            loadedMcpSdk().ResultSchema,
            requestOptions,
          ),
      );
    },
    get lastError() {
      return lastError;
    },
    get listingNotes() {
      return listingNotes;
    },
    get pid() {
      return (live?.transport as Partial<StdioTransport> | undefined)?.pid;
    },
    get transportUsed() {
      return live?.kind;
    },
    get logPath() {
      return server.transport === 'stdio' ? logPath : undefined;
    },
    async connect(signal) {
      if (!server.enabled) return err(connectFailed('is disabled', 'disabled'));
      if (status === 'ready' && liveTools) return ok(liveTools);
      attempt ??= runConnect().finally(() => {
        attempt = undefined;
      });
      const result = await untilAborted(attempt, signal).catch((error: unknown) => {
        if (!signal.aborted) throw error;
        return undefined;
      });
      if (result) return result;
      return err(
        new ToolhostError({
          code: 'ABORTED',
          message: `the call was cancelled while MCP server "${server.name}" was connecting`,
          details: { server: server.name, remoteDispatched: false },
        }),
      );
    },
    callTool(call) {
      return runRequest(
        `tool "${call.tool}"`,
        call.tool,
        call.signal,
        call.onProgress,
        (session, requestOptions) =>
          session.client.callTool(
            { name: call.tool, arguments: call.arguments },
            loadedMcpSdk().CompatibilityCallToolResultSchema,
            requestOptions,
          ),
      );
    },
    async close() {
      generation++;
      attemptController?.abort(closedWhileConnecting);
      const session = live;
      live = undefined;
      liveTools = undefined;
      liveContent = undefined;
      if (server.enabled) status = 'configured';
      if (session) {
        if (session.transport instanceof loadedMcpSdk().StreamableHTTPClientTransport) {
          await untilAborted(session.transport.terminateSession(), AbortSignal.timeout(1_000)).catch(
            () => undefined,
          );
        }
        await closeQuietly(session.client, session.transport);
      }
      await attempt?.catch(() => undefined);
      await Promise.all([...endings]);
    },
  };

  /**
   * One request on the live session, bounded like a tool call: `requestMs` without an answer or
   * progress, `totalMs` in all (then cancelled), aborted with the caller's signal; failures become
   * `MCP_CALL_FAILED` / `ABORTED` naming `label`, and a broken session is dropped.
   */
  async function runRequest(
    label: string,
    signatureName: string,
    signal: AbortSignal,
    onProgress: ((progress: ToolProgress) => void) | undefined,
    send: (
      session: LiveSession,
      requestOptions: {
        timeout: number;
        resetTimeoutOnProgress: boolean;
        signal: AbortSignal;
        onprogress: (progress: {
          progress: number;
          total?: number | undefined;
          message?: string | undefined;
        }) => void;
      },
    ) => Promise<unknown>,
  ): Promise<Result<unknown, ToolhostError>> {
    const call = { signal, onProgress };
    const session = live;
    if (!session || status !== 'ready') {
      return err(callFailed(label, signatureName, 'is not connected', 'not_connected'));
    }
    const controller = new AbortController();
    let hardLimit = false;
    const timer = setTimeout(() => {
      hardLimit = true;
      controller.abort(totalTimeout);
    }, timeouts.totalMs);
    const onAbort = () => controller.abort(call.signal.reason);
    if (call.signal.aborted) onAbort();
    else call.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await send(session, {
        timeout: timeouts.requestMs,
        resetTimeoutOnProgress: true,
        // No `maxTotalTimeout`: the SDK enforces it on the next progress notification without
        // sending `notifications/cancelled`, so the server would never hear that its call is
        // over. The hard total is the timer above, which aborts the signal: the SDK then cancels.
        signal: controller.signal,
        // Passing a progress callback is what makes the SDK attach a progress token, without
        // which servers send no progress and `resetTimeoutOnProgress` never fires.
        onprogress: (progress) => {
          call.onProgress?.({
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            ...(progress.message === undefined ? {} : { message: progress.message }),
          });
        },
      });
      return ok(result);
    } catch (error) {
      if (call.signal.aborted && !hardLimit) {
        return err(
          new ToolhostError({
            code: 'ABORTED',
            message: `the call to MCP server "${server.name}" (${label}) was cancelled`,
            details: { server: server.name, tool: signatureName, remoteDispatched: true },
            cause: error,
          }),
        );
      }
      if (
        hardLimit ||
        (error instanceof loadedMcpSdk().McpError && /maximum total timeout/i.test(error.message))
      ) {
        return err(
          callFailed(
            label,
            signatureName,
            `did not finish within the hard limit of ${timeouts.totalMs} ms`,
            'timeout',
            error,
          ),
        );
      }
      if (
        error instanceof loadedMcpSdk().McpError &&
        error.code === loadedMcpSdk().ErrorCode.RequestTimeout
      ) {
        return err(
          callFailed(
            label,
            signatureName,
            `sent neither an answer nor progress for ${timeouts.requestMs} ms (request timed out)`,
            'timeout',
            error,
          ),
        );
      }
      if (needsSignIn(error, session.transport)) {
        // The tokens ran out and could not be refreshed: the next call after a login reconnects.
        dropSession(session, 'needs a sign-in');
        return err(signInRequired(error));
      }
      const stdio = session.transport as Partial<StdioTransport>;
      const failure = transportFailure(session.transport);
      if (failure) {
        dropSession(session, failure);
        return err(callFailed(label, signatureName, failure, 'protocol', error));
      }
      if (
        live !== session ||
        (error instanceof loadedMcpSdk().McpError && error.code === loadedMcpSdk().ErrorCode.ConnectionClosed)
      ) {
        const how = stdio.exitDescription ?? 'closed the connection';
        dropSession(session, `${how} during a call`);
        return err(callFailed(label, signatureName, `${how} during the call`, 'connection_closed', error));
      }
      if (error instanceof loadedMcpSdk().McpError) {
        return err(
          callFailed(
            label,
            signatureName,
            `answered with JSON-RPC error ${error.code}`,
            'server_error',
            error,
            error.message,
          ),
        );
      }
      const message = error instanceof Error ? error.message : '';
      if (/fetch failed|ECONNREFUSED|ECONNRESET|socket|terminated/i.test(message)) {
        // A remote server that went away: forget the session so the next call connects afresh.
        dropSession(session, 'could not be reached during a call');
        return err(
          callFailed(
            label,
            signatureName,
            'could not be reached (the connection failed)',
            'connection_closed',
            error,
          ),
        );
      }
      return err(callFailed(label, signatureName, 'failed to answer the call', 'protocol', error));
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Forgets a broken session (and ends it) so the next call reconnects; other calls on it fail. */
  function dropSession(session: LiveSession, reason: string): void {
    if (live !== session) return;
    live = undefined;
    liveTools = undefined;
    liveContent = undefined;
    status = 'failed';
    lastError = `MCP server "${server.name}" ${reason}`;
    ending(closeQuietly(session.client, session.transport));
  }

  function callFailed(
    label: string,
    tool: string,
    what: string,
    reason: string,
    cause?: unknown,
    serverMessage?: string,
  ): ToolhostError {
    return new ToolhostError({
      code: 'MCP_CALL_FAILED',
      message: `MCP server "${server.name}" ${what} (${label})`,
      signature: `mcp_call:${server.name}/${tool}:${reason}`,
      details: {
        server: server.name,
        tool,
        reason,
        remoteDispatched: reason !== 'not_connected',
        // Third-party text: the proxy shows it as untrusted output, never inside the message.
        ...(serverMessage === undefined ? {} : { serverMessage: serverMessage.slice(0, 2_000) }),
      },
      ...(cause === undefined ? {} : { cause }),
    });
  }
}

const handshakeTimeout = Symbol('handshake timeout');
const oversizedMessage = Symbol('oversized message');
// The bounded-fetch holder of each HTTP transport.
const httpFailures = new WeakMap<Transport, HttpHolder>();

/** What an HTTP transport's fetch noticed: an over-large message, a Bearer challenge. */
interface HttpHolder {
  transport?: Transport;
  failure?: string;
  bearerChallenge?: boolean;
}
const totalTimeout = Symbol('total timeout');
const closedWhileConnecting = Symbol('closed while connecting');

/** Rejects as soon as `signal` aborts, without waiting for `promise`. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function closeQuietly(client: Client, transport: Transport): Promise<void> {
  try {
    await client.close();
  } catch {
    // ignore
  }
  try {
    await transport.close();
  } catch {
    // ignore
  }
}
