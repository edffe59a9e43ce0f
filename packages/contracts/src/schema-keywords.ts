// The JSON Schema keyword table is written once in @toolhost/internal (bundled into this package at
// build time), shared with provider-dialects; contracts re-exports it as its public API.
export {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TUPLE_ITEMS_KEYWORD,
} from '@toolhost/internal';
