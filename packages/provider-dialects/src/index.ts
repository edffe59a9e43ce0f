// The public API of @toolhost/provider-dialects (README "API" lists every name): what other packages, the CLI,
// bench, docs and README examples import, and the types their signatures name. Everything else is
// internal: tests import it from its own file.
export {
  type CompiledTools,
  type CompileToolsOptions,
  compileTools,
  type HostedTool,
  type ToolVerdict,
} from './compile-tools.js';
export type { ArgumentChange, ToolDecoding } from './decode-arguments.js';
export { type DecodedToolCall, decodeToolCall } from './decode-tool-call.js';
export { type Dialect, getDialect } from './dialect.js';
export { DialectError, type DialectErrorCode, type DialectErrorDetails } from './dialect-error.js';
export { fingerprintValue, type PrefixFingerprint } from './fingerprint.js';
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
export type { NameMap } from './names.js';
export type { ReportAction, ReportEntry } from './report.js';
export type {
  BuildRequestOptions,
  BuiltRequest,
  ParseOptions,
  RequestReportEntry,
  StreamParser,
} from './request.js';
export type { ProviderViolation } from './validate-for-provider.js';
