import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '@toolhost/boot';
import type { ToolAnnotations } from '@toolhost/contracts';

// Everything `serve` answers `initialize` and `tools/list` with, computed from the session alone:
// this module imports nothing of the MCP SDK at run time (types only), so `serve` over stdio can
// answer both before the SDK (zod, ajv) has loaded (see serve-stdio.ts).

/** The server name `serve` announces. */
export const SERVE_SERVER_NAME = 'toolhost';

/** The capabilities `serve` announces: tools, and a tool list that never changes. */
export const SERVE_CAPABILITIES = Object.freeze({ tools: Object.freeze({ listChanged: false }) });

/**
 * The protocol versions the MCP SDK's `Server` negotiates (its `SUPPORTED_PROTOCOL_VERSIONS`, the
 * latest first), held here so `initialize` is answered without importing the SDK; a test pins them
 * to the installed SDK's, so an upgrade that changes them fails instead of drifting.
 */
export const SERVE_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
]);

/** The instructions `serve` announces for a session (its run policy and how failures read). */
export function serveInstructions(session: Pick<Session, 'policy'>): string {
  return (
    'toolhost: a governed tool surface. Every call goes through the run policy (sandbox ' +
    `${session.policy.sandbox}, approval ${session.policy.approval}); failures say CODE: cause; recovery.`
  );
}

/** MCP's four tool hints from the contract's annotations; an unknown annotation stays absent (unknown is not false). */
export function mcpToolAnnotations(
  annotations: ToolAnnotations | undefined,
): Tool['annotations'] | undefined {
  if (!annotations) return undefined;
  const hints: NonNullable<Tool['annotations']> = {
    ...(annotations.readOnly === undefined ? {} : { readOnlyHint: annotations.readOnly }),
    ...(annotations.destructive === undefined ? {} : { destructiveHint: annotations.destructive }),
    ...(annotations.idempotent === undefined ? {} : { idempotentHint: annotations.idempotent }),
    ...(annotations.openWorld === undefined ? {} : { openWorldHint: annotations.openWorld }),
  };
  return Object.keys(hints).length > 0 ? hints : undefined;
}

/**
 * The MCP tool list of a session's provider surface, in the surface's order. Each tool's hints are
 * the ones it really has in that session (`Session.effectiveAnnotations`): the shell and
 * `use_capability` never claim more safety than the widest thing they can reach, because clients
 * such as Codex run read-only-hinted tools without asking.
 */
export function mcpTools(session: Pick<Session, 'modelTools' | 'effectiveAnnotations'>): Tool[] {
  return session.modelTools().map((tool) => {
    const annotations = mcpToolAnnotations(session.effectiveAnnotations(tool.name));
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Tool['inputSchema'],
      ...(annotations ? { annotations } : {}),
    };
  });
}

/**
 * The result of `initialize`, as the SDK's `Server` builds it: the requested protocol version when
 * supported, else the latest; the capabilities, server info and instructions.
 */
export function initializeResult(
  session: Pick<Session, 'policy'>,
  options: { readonly requestedVersion: string; readonly version: string; readonly name?: string },
): {
  protocolVersion: string;
  capabilities: typeof SERVE_CAPABILITIES;
  serverInfo: { name: string; version: string };
  instructions: string;
} {
  return {
    protocolVersion: SERVE_PROTOCOL_VERSIONS.includes(options.requestedVersion)
      ? options.requestedVersion
      : (SERVE_PROTOCOL_VERSIONS[0] as string),
    capabilities: SERVE_CAPABILITIES,
    serverInfo: { name: options.name ?? SERVE_SERVER_NAME, version: options.version },
    instructions: serveInstructions(session),
  };
}
