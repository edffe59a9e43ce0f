// @toolhost/internal: helpers written once and bundled into each package that uses them (tsup
// `noExternal`), never published and never named by a public type. contracts re-exports the pure ones
// as its public API; the mechanism packages (path-policy, read-evidence, jobs) and provider-dialects,
// which must not depend on contracts' runtime, import them from here.
export { type AtomicWriteOptions, writeFileAtomicSync } from './atomic-write.js';
export { errorMessage } from './error-message.js';
export { isJsonObject, isObject, type JsonObject, type JsonValue } from './json.js';
export { lazyRequire } from './lazy-require.js';
export { processStartTime } from './process-start-time.js';
export {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TUPLE_ITEMS_KEYWORD,
} from './schema-keywords.js';
export { sha256Hex } from './sha256.js';
export {
  incompleteUtf8Tail,
  isUtf8Continuation,
  leadingContinuationBytes,
  utf8BoundaryAfter,
  utf8BoundaryBefore,
  utf8Prefix,
} from './utf8.js';
