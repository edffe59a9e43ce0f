/**
 * The JSON Schema keywords whose values are schemas, in one table for every walk over a schema
 * (contracts' canonicalisation, the provider-dialects' compilers and checks).
 *
 * `items` is a one-schema keyword, as in draft 2020-12. Draft-07 and earlier also allow it as an array
 * of schemas (the tuple form that 2020-12 renamed `prefixItems`); walkers handle that form of `items`
 * as a special case of the one-schema keyword ({@link TUPLE_ITEMS_KEYWORD}). It is deliberately not in
 * {@link SCHEMA_ARRAY_KEYWORDS}: those must be non-empty arrays of schemas, and a 2020-12 `items` array
 * is an error a dialect reports, not a form to accept silently.
 */
export const SINGLE_SCHEMA_KEYWORDS = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'contentSchema',
  'else',
  'if',
  'items',
  'not',
  'propertyNames',
  'then',
  'unevaluatedItems',
  'unevaluatedProperties',
] as const;

/** Keywords whose value is an array of schemas. */
export const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAP_KEYWORDS = [
  '$defs',
  'definitions',
  'dependentSchemas',
  'patternProperties',
  'properties',
] as const;

/** The one-schema keyword that draft-07 and earlier also allow as an array of schemas (a tuple). */
export const TUPLE_ITEMS_KEYWORD = 'items';
