import type { JsonObject, ModelTool, Result } from '@toolhost/contracts';
import {
  buildAnthropicRequest,
  createAnthropicStreamParser,
  encodeAnthropicToolResult,
  parseAnthropicRequest,
  parseAnthropicResponse,
} from './anthropic.js';
import { type CompiledTools, type CompileToolsOptions, compileTools } from './compile-tools.js';
import { type DecodedToolCall, decodeToolCall } from './decode-tool-call.js';
import { DialectError } from './dialect-error.js';
import { fingerprint, type PrefixFingerprint } from './fingerprint.js';
import {
  buildGeminiRequest,
  createGeminiStreamParser,
  encodeGeminiToolResult,
  parseGeminiRequest,
  parseGeminiResponse,
} from './gemini.js';
import {
  DIALECT_NAMES,
  type DialectName,
  type Message,
  type ModelResponse,
  type ToolCallPart,
  type ToolMessage,
} from './ir.js';
import {
  buildOpenAIChatRequest,
  createOpenAIChatStreamParser,
  encodeOpenAIChatToolResult,
  parseOpenAIChatRequest,
  parseOpenAIChatResponse,
} from './openai-chat.js';
import {
  buildOpenAIResponsesRequest,
  createOpenAIResponsesStreamParser,
  encodeOpenAIResponsesToolResult,
  parseOpenAIResponsesRequest,
  parseOpenAIResponsesResponse,
} from './openai-responses.js';
import type { BuildRequestOptions, BuiltRequest, ParseOptions, StreamParser } from './request.js';
import { type ProviderViolation, validateForProvider } from './validate-for-provider.js';

/** One wire format behind a uniform interface. Every member is pure (no I/O). */
export interface Dialect {
  readonly name: DialectName;
  /** {@link compileTools} for this dialect. */
  compileTools(
    modelTools: readonly ModelTool[],
    options?: Omit<CompileToolsOptions, 'dialect'>,
  ): CompiledTools;
  /** The request path and body. */
  buildRequest(options: BuildRequestOptions): BuiltRequest;
  /** A complete response body → the neutral response, or a `PROVIDER_ERROR`. */
  parseResponse(body: unknown, options?: ParseOptions): Result<ModelResponse, DialectError>;
  /** A parser fed with the provider's server-sent events. */
  createStreamParser(options?: ParseOptions): StreamParser;
  /** A request body → neutral messages (transcripts, replays, round trips). */
  parseRequest(body: unknown, options?: ParseOptions): { messages: Message[] };
  /** One tool result in the provider's form (the items/blocks/parts it becomes). */
  encodeToolResult(message: ToolMessage): JsonObject[];
  /** A parsed call → neutral name and decoded arguments. */
  decodeToolCall(call: ToolCallPart, tools?: CompiledTools): DecodedToolCall;
  /** The provider rules a wire tool list breaks. */
  validateForProvider(tools: unknown): ProviderViolation[];
  /** Fingerprints of a built body's cacheable prefix (system + tools). */
  fingerprint(body: JsonObject): PrefixFingerprint;
}

function make(
  name: DialectName,
  parts: Pick<
    Dialect,
    'buildRequest' | 'parseResponse' | 'createStreamParser' | 'parseRequest' | 'encodeToolResult'
  >,
): Dialect {
  return Object.freeze({
    name,
    compileTools: (modelTools: readonly ModelTool[], options: Omit<CompileToolsOptions, 'dialect'> = {}) =>
      compileTools(modelTools, { ...options, dialect: name }),
    ...parts,
    decodeToolCall,
    validateForProvider: (tools: unknown) => validateForProvider(tools, name),
    fingerprint: (body: JsonObject) => fingerprint(body, name),
  });
}

const DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  'openai-chat': make('openai-chat', {
    buildRequest: buildOpenAIChatRequest,
    parseResponse: parseOpenAIChatResponse,
    createStreamParser: createOpenAIChatStreamParser,
    parseRequest: parseOpenAIChatRequest,
    encodeToolResult: encodeOpenAIChatToolResult,
  }),
  'openai-responses': make('openai-responses', {
    buildRequest: buildOpenAIResponsesRequest,
    parseResponse: parseOpenAIResponsesResponse,
    createStreamParser: createOpenAIResponsesStreamParser,
    parseRequest: parseOpenAIResponsesRequest,
    encodeToolResult: encodeOpenAIResponsesToolResult,
  }),
  anthropic: make('anthropic', {
    buildRequest: buildAnthropicRequest,
    parseResponse: parseAnthropicResponse,
    createStreamParser: createAnthropicStreamParser,
    parseRequest: parseAnthropicRequest,
    encodeToolResult: encodeAnthropicToolResult,
  }),
  gemini: make('gemini', {
    buildRequest: buildGeminiRequest,
    parseResponse: parseGeminiResponse,
    createStreamParser: createGeminiStreamParser,
    parseRequest: parseGeminiRequest,
    encodeToolResult: encodeGeminiToolResult,
  }),
};

/** Whether a string names a dialect. */
export function isDialectName(value: unknown): value is DialectName {
  return typeof value === 'string' && (DIALECT_NAMES as readonly string[]).includes(value);
}

/**
 * The dialect with this name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`). Throws
 * `DialectError` `CONFIG_INVALID` for any other name.
 */
export function getDialect(name: string): Dialect {
  if (!isDialectName(name)) {
    throw new DialectError({
      code: 'CONFIG_INVALID',
      message: `unknown dialect; use one of ${DIALECT_NAMES.join(', ')}`,
      details: { dialectName: name },
    });
  }
  return DIALECTS[name];
}
