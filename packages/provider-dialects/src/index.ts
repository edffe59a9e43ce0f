export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_MAX_CACHE_BREAKPOINTS,
  type AnthropicCacheOptions,
  applyAnthropicCacheBreakpoints,
  buildAnthropicRequest,
  createAnthropicStreamParser,
  encodeAnthropicToolResult,
  parseAnthropicRequest,
  parseAnthropicResponse,
} from './anthropic.js';
export {
  type CompiledTools,
  type CompileToolsOptions,
  compileTools,
  type HostedTool,
  type ToolVerdict,
} from './compile-tools.js';
export {
  type ArgumentChange,
  type DecodedArguments,
  decodeArguments,
  type ToolDecoding,
} from './decode-arguments.js';
export { type DecodedToolCall, decodeToolCall } from './decode-tool-call.js';
export { type Dialect, getDialect, isDialectName } from './dialect.js';
export { DialectError, type DialectErrorCode, type DialectErrorDetails } from './dialect-error.js';
export { fingerprint, fingerprintValue, type PrefixFingerprint } from './fingerprint.js';
export {
  buildGeminiRequest,
  createGeminiStreamParser,
  encodeGeminiToolResult,
  GEMINI_SKIP_THOUGHT_SIGNATURE,
  geminiModelPath,
  parseGeminiRequest,
  parseGeminiResponse,
} from './gemini.js';
export {
  type AssistantContentPart,
  type AssistantMessage,
  DIALECT_NAMES,
  type DialectName,
  type ImagePart,
  type Message,
  type ModelResponse,
  type ProviderData,
  type ProviderPart,
  type ReasoningPart,
  type SseEvent,
  type StopReason,
  type StreamEvent,
  type SystemMessage,
  type TextPart,
  type ToolCallPart,
  type ToolChoice,
  type ToolMessage,
  type ToolResultContentPart,
  type Usage,
  type UserContentPart,
  type UserMessage,
} from './ir.js';
export {
  createNameMap,
  type NameMap,
  normalizeToolCallId,
  SAFE_TOOL_NAME_PATTERN,
  sanitizeToolName,
  TOOL_CALL_ID_RULES,
} from './names.js';
export {
  buildOpenAIChatRequest,
  chatToolImagesMarker,
  createOpenAIChatStreamParser,
  encodeOpenAIChatToolResult,
  parseOpenAIChatRequest,
  parseOpenAIChatResponse,
} from './openai-chat.js';
export {
  buildOpenAIResponsesRequest,
  createOpenAIResponsesStreamParser,
  encodeOpenAIResponsesToolResult,
  parseOpenAIResponsesRequest,
  parseOpenAIResponsesResponse,
} from './openai-responses.js';
export type { ReportAction, ReportEntry } from './report.js';
export type {
  BuildRequestOptions,
  BuiltRequest,
  ParseOptions,
  RequestReportEntry,
  StreamParser,
} from './request.js';
export { WRAPPED_ROOT_PROPERTY } from './schema-root.js';
export { OPENAI_STRICT_FORMATS, OPENAI_STRICT_LIMITS } from './schema-openai-strict.js';
export { GEMINI_OPENAPI_FORMATS, GEMINI_OPENAPI_KEYWORDS } from './schema-gemini-openapi.js';
export { type ToToolMessageOptions, toToolMessage } from './tool-message.js';
export { PROVIDER_LIMITS, type ProviderViolation, validateForProvider } from './validate-for-provider.js';
