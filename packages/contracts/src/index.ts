// The public API of @toolhost/contracts (README "API" lists every name): what other packages, the CLI,
// bench, docs and README examples import, and the types their signatures name. Everything else is
// internal: tests import it from its own file.
export {
  canonicalizeSchema,
  canonicalSchemaJson,
  schemaFingerprint,
  sha256Hex,
} from './canonicalize-schema.js';
export { closeNames } from './close-names.js';
export { deepFreeze } from './deep-freeze.js';
export { editDistance } from './edit-distance.js';
export { errorMessage } from './error-message.js';
export {
  ERROR_CODES,
  type ErrorCode,
  type ErrorCodeInfo,
  type ErrorDetails,
  type ErrorKind,
  isErrorCode,
  ToolhostError,
  type ToolhostErrorOptions,
  toToolhostError,
} from './errors.js';
export { isJsonObject, isObject, type JsonObject, type JsonValue } from './json.js';
export { isSchemaTooDeepError, MAX_SCHEMA_DEPTH, type MaxSchemaDepth } from './json-depth.js';
export {
  type CompileLinearRegExpResult,
  compileLinearRegExp,
  type LinearRegExp,
  type LinearRegExpRefusal,
} from './linear-regexp.js';
export {
  createToolRegistry,
  type RegisteredTool,
  type ToolListOptions,
  type ToolLookup,
  type ToolRegistry,
} from './registry.js';
export { err, ok, type Result } from './result.js';
export { boundedText, firstLine } from './text.js';
export { toModelTools } from './to-model-tools.js';
export {
  type AnyToolDefinition,
  type ArgumentSchema,
  type ContentBlock,
  defineTool,
  errorResult,
  type HostedToolDeclarations,
  knownTextBytes,
  type ModelTool,
  outputText,
  type PathAccess,
  type ResolvedToolPath,
  type ResultShape,
  TOOL_GROUPS,
  type ToolAnnotations,
  type ToolCallContext,
  type ToolCategory,
  type ToolDefinition,
  type ToolExecution,
  type ToolGroup,
  type ToolHandler,
  type ToolInvocation,
  type ToolOutput,
  type ToolPathTarget,
  type ToolPermissionInput,
  type ToolProgress,
  type ToolResult,
  type ToolSource,
  type ToolVisibility,
  type TurnOrigin,
  textResult,
  textResultOfLength,
} from './tool.js';
export { isUtf8Continuation, utf8BoundaryAfter, utf8BoundaryBefore, utf8Prefix } from './utf8-prefix.js';
export {
  type ArgumentValidator,
  type ArgumentValidatorOptions,
  type ArgumentViolation,
  createArgumentValidator,
  MAX_ARGUMENT_ERROR_BYTES,
  MAX_ARGUMENT_VIOLATIONS,
  parseArguments,
  sharedArgumentValidator,
  type ValidateArgumentsOptions,
  type ValidatedArguments,
  validateArguments,
} from './validate-arguments.js';
