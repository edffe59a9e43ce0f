import { sha256Hex } from '@toolhost/internal';
import { isJsonObject, type JsonObject, type JsonValue } from './json.js';
import { MAX_SCHEMA_DEPTH, schemaTooDeepError } from './json-depth.js';
import {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TUPLE_ITEMS_KEYWORD,
} from './schema-keywords.js';

// The shared keyword table (schema-keywords.ts); a tuple `items` array is walked like prefixItems.
const schemaKeywords: ReadonlySet<string> = new Set(SINGLE_SCHEMA_KEYWORDS);
const schemaArrayKeywords: ReadonlySet<string> = new Set(SCHEMA_ARRAY_KEYWORDS);
const schemaMapKeywords: ReadonlySet<string> = new Set(SCHEMA_MAP_KEYWORDS);

/**
 * Canonicalises a JSON Schema: object keys sorted at every depth, every `required` array and the
 * arrays of `dependentRequired` sorted, a `required` that is not an array removed (the OpenAPI-style
 * boolean), a `dependentRequired` that is not an object removed, and the root always has
 * `properties`. An empty or missing schema becomes `{"properties":{},"type":"object"}`.
 *
 * The walk is schema-aware: a property *named* `required` inside `properties` is a schema and is
 * kept. The result is a new object (the input is not mutated) and canonicalising it again returns
 * identical bytes. A string is parsed as JSON first; text that is not JSON is a misuse and throws.
 *
 * A schema nesting deeper than {@link MAX_SCHEMA_DEPTH} levels throws `ToolhostError`
 * `CONFIG_INVALID` (`details.reason` `schema_too_deep`): the walk is recursive and counts its depth,
 * so a hostile 20,000-level schema is refused at level 129 instead of overflowing the stack.
 */
export function canonicalizeSchema(schema: unknown): JsonObject {
  const input = typeof schema === 'string' ? (schema.trim() === '' ? undefined : JSON.parse(schema)) : schema;
  if (input === undefined || input === null || (isJsonObject(input) && Object.keys(input).length === 0)) {
    return { properties: {}, type: 'object' };
  }
  if (!isJsonObject(input)) throw new TypeError('a tool input schema must be a JSON object');
  const root = canonicalSchemaNode(input, 1) as JsonObject;
  if (!isJsonObject(root.properties)) return sortKeys({ ...root, properties: {} }, 1) as JsonObject;
  return root;
}

// `depth` is the JSON nesting level of `node` (the root object is 1); every walk below checks it.
function canonicalSchemaNode(node: JsonValue, depth: number): JsonValue {
  if (!isJsonObject(node)) return canonicalValue(node, depth);
  if (depth > MAX_SCHEMA_DEPTH) throw schemaTooDeepError();
  const inner = depth + 1;
  const out: JsonObject = {};
  for (const key of Object.keys(node).sort()) {
    const value = node[key] as JsonValue;
    if (key === 'required') {
      if (!Array.isArray(value)) continue;
      out[key] = sortedByJson(canonicalArray(value, inner));
    } else if (key === 'dependentRequired') {
      if (!isJsonObject(value)) continue;
      guardDepth(inner);
      const map: JsonObject = {};
      for (const name of Object.keys(value).sort()) {
        const list = value[name] as JsonValue;
        map[name] = Array.isArray(list)
          ? sortedByJson(canonicalArray(list, inner + 1))
          : canonicalValue(list, inner + 1);
      }
      out[key] = map;
    } else if (schemaMapKeywords.has(key) && isJsonObject(value)) {
      guardDepth(inner);
      const map: JsonObject = {};
      for (const name of Object.keys(value).sort())
        map[name] = canonicalSchemaNode(value[name] as JsonValue, inner + 1);
      out[key] = map;
    } else if ((schemaArrayKeywords.has(key) || key === TUPLE_ITEMS_KEYWORD) && Array.isArray(value)) {
      guardDepth(inner);
      out[key] = value.map((item) => canonicalSchemaNode(item, inner + 1));
    } else if (schemaKeywords.has(key)) {
      out[key] = canonicalSchemaNode(value, inner);
    } else if (key === 'dependencies' && isJsonObject(value)) {
      guardDepth(inner);
      const map: JsonObject = {};
      for (const name of Object.keys(value).sort()) {
        const entry = value[name] as JsonValue;
        map[name] = Array.isArray(entry)
          ? sortedByJson(canonicalArray(entry, inner + 1))
          : canonicalSchemaNode(entry, inner + 1);
      }
      out[key] = map;
    } else {
      // enum, const, default, examples and unknown keywords: data, only keys sorted.
      out[key] = canonicalValue(value, inner);
    }
  }
  return out;
}

function guardDepth(depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH) throw schemaTooDeepError();
}

/** The items of an array at nesting level `depth`, each canonicalised as data. */
function canonicalArray(values: readonly JsonValue[], depth: number): JsonValue[] {
  guardDepth(depth);
  return values.map((item) => canonicalValue(item, depth + 1));
}

function canonicalValue(value: JsonValue, depth: number): JsonValue {
  if (Array.isArray(value)) return canonicalArray(value, depth);
  if (isJsonObject(value)) return sortKeys(value, depth);
  return value;
}

function sortKeys(value: JsonObject, depth: number): JsonValue {
  guardDepth(depth);
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = canonicalValue(value[key] as JsonValue, depth + 1);
  return out;
}

function sortedByJson(values: JsonValue[]): JsonValue[] {
  return values
    .map((value) => [JSON.stringify(value), value] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, value]) => value);
}

/** The canonical bytes of a schema: `JSON.stringify` of {@link canonicalizeSchema}. */
export function canonicalSchemaJson(schema: unknown): string {
  return JSON.stringify(canonicalizeSchema(schema));
}

export { sha256Hex };

/** The schema fingerprint: the first 16 hex characters of SHA-256 of the canonical bytes. */
export function schemaFingerprint(schema: unknown): string {
  return sha256Hex(canonicalSchemaJson(schema)).slice(0, 16);
}
