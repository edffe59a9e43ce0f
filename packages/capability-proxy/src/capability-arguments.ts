/**
 * Argument types of `use_capability` and of the `session:tool_result` capability. The JSON Schemas in
 * `capability-schemas.generated.ts` are generated from these types (`pnpm gen:schemas`); the
 * descriptions below are what the model reads, and they must never mention anything dynamic
 * (server names, tool counts, connection state), so the provider-visible schema stays byte-identical.
 */

/** What `use_capability` should do. */
export type CapabilityAction = 'list' | 'search' | 'inspect' | 'call' | 'decline';

/** Arguments of the `use_capability` tool. */
export interface UseCapabilityArguments {
  /**
   * What to do. `search`: find capabilities by words (needs `query`). `inspect`: show one capability's description and full argument schema (needs `capability_id`). `call`: run it with its parameters in `arguments` (needs `capability_id`). `list`: a compact inventory of everything reachable. `decline`: record that you chose not to use a capability (needs `capability_id` and `reason`). list, search and inspect never start anything.
   */
  action: CapabilityAction;
  /**
   * The capability, exactly as list or search print it: `tool:<name>` (a built-in tool not offered directly), `mcp-server:<server>` (calling it connects the server and lists its tools), `mcp-tool:<server>/<tool>` (an MCP tool; also accepted as `mcp/<server>/<tool>`), or `session:tool_result` (pages the full text of a truncated tool result).
   */
  capability_id?: string;
  /** Words to look for in capability names and descriptions (for `search`). */
  query?: string;
  /**
   * The target capability's own parameters, as one object shaped by its schema (see `inspect`). Only for `call`.
   */
  arguments?: { [key: string]: unknown };
  /** Why the capability is declined (for `decline`; required and non-empty there). */
  reason?: string;
}

/** Arguments of the `session:tool_result` capability (passed inside `arguments`). */
export interface SessionToolResultArguments {
  /** The tool call id named in the truncation marker. */
  tool_call_id: string;
  /** The `result_ref` named in the truncation marker (`tr-` and 24 hex characters). */
  result_ref?: string;
  /**
   * The UTF-8 byte offset to start at: 0 (the default) or the `next_offset` of the previous page. It must lie on a character boundary and not beyond `total_bytes`.
   * @TJS-type integer
   */
  offset?: number;
  /**
   * At most this many bytes in the page: 1 to 24576, default 16384. A page never ends inside a character, so it may be a few bytes shorter.
   * @TJS-type integer
   */
  limit?: number;
}
