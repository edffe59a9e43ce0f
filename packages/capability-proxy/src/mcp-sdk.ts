import type { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  CompatibilityCallToolResultSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  McpError,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

/** The MCP SDK values this package uses. */
export interface McpSdk {
  readonly Client: typeof Client;
  readonly SSEClientTransport: typeof SSEClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof StreamableHTTPError;
  /** What the HTTP transports throw when a server wants a sign-in they could not complete. */
  readonly UnauthorizedError: typeof UnauthorizedError;
  readonly CompatibilityCallToolResultSchema: typeof CompatibilityCallToolResultSchema;
  readonly ErrorCode: typeof ErrorCode;
  readonly McpError: typeof McpError;
  readonly JSONRPCMessageSchema: typeof JSONRPCMessageSchema;
  /** Any result object (keys passed through): `tools/list` is read with it and checked tool by tool. */
  readonly ResultSchema: typeof ResultSchema;
  /** RFC 6570 URI templates: resource templates are expanded with it. */
  readonly UriTemplate: typeof UriTemplate;
}

let loaded: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

/**
 * Loads the MCP SDK on first use. The SDK and its zod schemas cost about 200 ms to import, and most
 * hosts never connect a server (`list` and `inspect` never do), so nothing imports it up front: a
 * command such as `toolhost tools` starts without it.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/uriTemplate.js'),
    // Imported by the HTTP transports anyway: no extra cost.
    import('@modelcontextprotocol/sdk/client/auth.js'),
  ]).then(([client, sse, streamable, types, uriTemplate, auth]) => {
    loaded = {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
      StreamableHTTPError: streamable.StreamableHTTPError,
      UnauthorizedError: auth.UnauthorizedError,
      CompatibilityCallToolResultSchema: types.CompatibilityCallToolResultSchema,
      ErrorCode: types.ErrorCode,
      McpError: types.McpError,
      JSONRPCMessageSchema: types.JSONRPCMessageSchema,
      ResultSchema: types.ResultSchema,
      UriTemplate: uriTemplate.UriTemplate,
    };
    return loaded;
  });
  return loading;
}

/** The SDK once {@link loadMcpSdk} has resolved; a session cannot exist before that, so anything else is a bug. */
export function loadedMcpSdk(): McpSdk {
  if (!loaded) throw new Error('the MCP SDK is used before loadMcpSdk() resolved');
  return loaded;
}
