import type {
  RegisteredTool,
  ToolAnnotations,
  ToolDefinition,
  ToolhostError,
  ToolProgress,
  ToolResult,
} from '@toolhost/contracts';
import type { UseCapabilityArguments } from './capability-arguments.js';
import type { McpServersConfig, McpTransportKind } from './mcp-config.js';
import type { McpLimits, McpServerStatus, McpTimeouts } from './mcp-connection.js';
import type { ResultStore } from './result-store.js';

/** What every authorization request carries. */
interface AuthorizationRequestBase {
  readonly callId: string;
  readonly capabilityId: string;
  readonly server: string;
  readonly signal: AbortSignal;
  /** The hints for the permission step. */
  readonly annotations: ToolAnnotations;
  /** False when the hints come from a server not marked `trusted`: treat them as claims, not facts. */
  readonly annotationsTrusted: boolean;
  /** A short human preview for an approval prompt (no env or header values). */
  readonly preview: string;
}

/** Before a server process starts or a remote session opens: permission target `mcp_connect__<server>`. */
export interface McpConnectAuthorizationRequest extends AuthorizationRequestBase {
  readonly kind: 'mcp-connect';
  /** `mcp_connect__<server>`: the exact name permission rules match. */
  readonly toolName: string;
  readonly transport: McpTransportKind;
}

/**
 * Before each MCP `tools/call`: permission target `mcp__<server>__<tool>`. Reading a resource and
 * getting a prompt are asked the same way, as the tool names `read_resource` and `prompt`
 * (`mcp__<server>__read_resource`, `mcp__<server>__prompt`) with read-only hints; `method` says which.
 */
export interface McpToolAuthorizationRequest extends AuthorizationRequestBase {
  readonly kind: 'mcp-tool';
  /** `mcp__<server>__<tool>`: the exact name permission rules match. */
  readonly toolName: string;
  readonly tool: string;
  /** The MCP request this permits: `tools/call` (absent means the same), `resources/read` or `prompts/get`. */
  readonly method?: 'tools/call' | 'resources/read' | 'prompts/get';
  /** The validated arguments (for a person's approval prompt; never shown to the model). */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** What `authorize` is asked. */
export type CapabilityAuthorizationRequest = McpConnectAuthorizationRequest | McpToolAuthorizationRequest;

/** What `authorize` answers; a refusal's error is what the model sees. */
export type CapabilityAuthorization =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly error: ToolhostError };

/** What `dispatchTool` receives besides the name and arguments. */
export interface DispatchToolContext {
  readonly callId: string;
  readonly signal: AbortSignal;
  /** `tool:<name>`: validation errors must say "put the parameters inside `arguments`". */
  readonly capabilityId: string;
  readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
}

/** Runs `tool:<name>` through the host's whole pipeline (validation, permission, execution). */
export type DispatchTool = (name: string, args: unknown, context: DispatchToolContext) => Promise<ToolResult>;

/** The host's permission step for MCP targets. */
export type AuthorizeCapability = (
  request: CapabilityAuthorizationRequest,
) => Promise<CapabilityAuthorization>;

/** A target whose refusal the host can decide without asking anyone and without starting anything. */
export type CapabilityPolicyTarget =
  | { readonly kind: 'tool'; readonly tool: RegisteredTool }
  | {
      readonly kind: 'mcp-tool';
      readonly server: string;
      readonly tool: string;
      /** `mcp__<server>__<tool>`: the exact name permission rules match. */
      readonly toolName: string;
      /**
       * The tool's hints as known now (live, or from the schema cache), or undefined when nothing may
       * be assumed: then only a refusal that no hint of the server could lift counts (a deny rule, a
       * session that runs no tool of an untrusted server).
       */
      readonly annotations: ToolAnnotations | undefined;
      /** False when the hints come from a server not marked `trusted`. */
      readonly annotationsTrusted: boolean;
    };

/**
 * The refusal the session's policy gives a target whatever anyone answers (its sandbox, configured
 * deny rules), decided without asking anyone; undefined when it may run (or a person may allow it).
 * `call` is given when a call is being decided (the host may record it), absent for listings.
 */
export type RefuseCapability = (
  target: CapabilityPolicyTarget,
  call?: { readonly callId: string },
) => ToolhostError | undefined;

/**
 * Whether {@link RefuseCapability} refuses a target (for a listing), answered without building the
 * refusal's error: `list` and `search` ask it about every tool of every server.
 */
export type RefusesCapability = (target: CapabilityPolicyTarget) => boolean;

/** Options of {@link createCapabilityProxy}. */
export interface CapabilityProxyOptions {
  /**
   * The host's state directory: schema caches in `<stateDir>/mcp-cache/<slug>.json`, server stderr
   * in `<stateDir>/mcp-logs/<slug>.log`. Without it nothing is cached and stderr is discarded.
   */
  readonly stateDir?: string;
  /** `mcpServers` as in Claude Desktop / Cursor configuration files. Invalid entries throw `CONFIG_INVALID`. */
  readonly mcpServers?: McpServersConfig;
  /** The built-ins reachable as `tool:<name>` (listed tools not on the provider surface; never hidden aliases). */
  readonly catalog?: () => readonly RegisteredTool[];
  /** Runs `tool:<name>` through the host's whole pipeline (validation, permission, execution). */
  readonly dispatchTool?: DispatchTool;
  /** Called before a server connects and before each MCP tool call. Required: without it nothing may start. */
  readonly authorize: AuthorizeCapability;
  /**
   * The part of the host's permission step that needs no server and no person. Asked before an MCP
   * tool's server is started (with the hints unknown: a refusal here is final and nothing starts;
   * `authorize` still decides after the connect, with the live hints), and by `list` and `search`,
   * which leave out what it refuses and say so, and `inspect`, which marks it. Without it nothing
   * is refused before `authorize` is asked.
   */
  readonly refusal?: RefuseCapability;
  /**
   * The same decision as `refusal` as a yes or no, for `list` and `search` (which only count or leave
   * out what is refused); without it they call `refusal` and drop its error. Used only beside `refusal`.
   */
  readonly refuses?: RefusesCapability;
  /** The store `session:tool_result` pages; without one the capability is unavailable and not listed. */
  readonly resultStore?: ResultStore;
  readonly timeouts?: Partial<McpTimeouts>;
  readonly limits?: Partial<McpLimits>;
  /** Host variables a stdio server may inherit beyond the safe list, and the host environment (default `process.env`). */
  readonly environment?: {
    readonly inherit?: readonly string[];
    readonly source?: Readonly<Record<string, string | undefined>>;
  };
  /** The working directory of stdio servers without their own `cwd`; default the host's. */
  readonly cwd?: string;
  /**
   * The OAuth sign-in store, `<user config dir>/mcp-oauth` (never inside a project): HTTP servers
   * signed in to with `toolhost mcp login` use (and refresh) their tokens from here; a server that
   * asks for a sign-in without one fails with `MCP_AUTH_REQUIRED`. Without it no tokens are used.
   */
  readonly oauthStoreDir?: string;
}

/** Options of {@link CapabilityProxy.clone}: a child agent's own frontend over the same servers. */
export interface CapabilityProxyCloneOptions {
  readonly catalog?: () => readonly RegisteredTool[];
  readonly dispatchTool?: DispatchTool;
  readonly authorize?: AuthorizeCapability;
  /** The child's own policy pre-check (default the parent's). */
  readonly refusal?: RefuseCapability;
  /**
   * Its yes-or-no form (see {@link CapabilityProxyOptions.refuses}); default the parent's when the
   * child keeps the parent's `refusal`, none when it gives its own `refusal` without this.
   */
  readonly refuses?: RefusesCapability;
  /** The child's own store; default a fresh in-memory one (owned and closed by the clone); `null` for none. */
  readonly resultStore?: ResultStore | null;
}

/** One configured server in the inventory. */
export interface McpServerInventory {
  readonly name: string;
  readonly capabilityId: string;
  readonly status: McpServerStatus;
  readonly transport: McpTransportKind;
  readonly trusted: boolean;
  /** The last connect decision of this frontend's `authorize`; undefined when never asked. */
  readonly authorized: boolean | undefined;
  readonly connected: boolean;
  /** Tools known now (live when connected, else cached); undefined when none are known. */
  readonly toolCount: number | undefined;
  /** Resources, resource templates and prompts known now (each undefined when unknown). */
  readonly resourceCount?: number | undefined;
  readonly resourceTemplateCount?: number | undefined;
  readonly promptCount?: number | undefined;
  /** Where those counts come from. */
  readonly contentSource?: 'live' | 'cached' | 'none';
  readonly toolSource: 'live' | 'cached' | 'none';
  /** When the cached tool list was saved (ISO 8601), for `toolSource: 'cached'`; it may be stale. */
  readonly cachedAt: string | undefined;
  /** Known tools this frontend's session refuses whatever anyone answers (left out of `list` and `search`). */
  readonly refusedTools: number;
  readonly lastError: string | undefined;
}

/** What `list` reports, as data. */
export interface CapabilityInventory {
  readonly servers: readonly McpServerInventory[];
  readonly tools: readonly {
    readonly capabilityId: string;
    readonly name: string;
    readonly description: string;
  }[];
  /** Built-in tools reachable by id that this frontend's session refuses whatever anyone answers (not in `tools`). */
  readonly refusedTools: readonly string[];
  /** Whether `session:tool_result` is reachable (a result store is bound). */
  readonly sessionToolResult: boolean;
}

/** A running stdio server process. */
export interface McpServerProcess {
  readonly server: string;
  readonly pid: number;
}

/** The capability proxy: one fixed tool in front of built-ins, MCP servers and stored results. */
export interface CapabilityProxy {
  /**
   * The `use_capability` tool. Its name, description and schema are constants: identical for every
   * proxy, before and after servers connect or change their tool lists, with or without a result
   * store, in clones.
   */
  readonly tool: ToolDefinition<UseCapabilityArguments>;
  /** The store `session:tool_result` reads (the Host writes truncated results here). */
  readonly resultStore: ResultStore | undefined;
  /** The inventory `list` prints. Never starts anything. */
  inventory(): CapabilityInventory;
  /**
   * The hints of what a call would do, for the host's scheduler (never starts anything): list,
   * search, inspect, decline and `session:tool_result` are read-only; `tool:<name>` has the tool's
   * hints; an MCP tool has its server's hints only when the server is trusted; connecting is not read-only.
   */
  callAnnotations(args: unknown): ToolAnnotations;
  /** Stdio server processes running now. */
  serverProcesses(): readonly McpServerProcess[];
  /**
   * A frontend for a child agent: the same servers and connections, its own catalog, dispatch,
   * authorization and result store, so it cannot read its parent's results. Closing a clone ends
   * no server; closing the root proxy ends them all and closes every clone.
   */
  clone(options?: CapabilityProxyCloneOptions): CapabilityProxy;
  /** Ends every server process (whole process groups) and closes every frontend. Idempotent. */
  close(): Promise<void>;
  readonly closed: boolean;
}
