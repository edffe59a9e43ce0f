import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { defineMember, isJsonObject } from './json-utils.js';
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS } from './schema-common.js';

/**
 * Decoding annotations are kept inside a copy of the compiled schema (the decode schema) under
 * these keys, and stripped from what is sent. They say how to map a provider's arguments back.
 */
export const ANNOTATION = {
  /** On an object: optional properties that strict mode made nullable; `null` means absent. */
  absentIfNull: 'x-toolhost-absent-if-null',
  /** On a stringified enum: the original values, in order. */
  enumValues: 'x-toolhost-enum',
  /** On a value sent as a JSON-encoded string: parse it back. */
  jsonString: 'x-toolhost-json',
} as const;

const annotationKeys: ReadonlySet<string> = new Set(Object.values(ANNOTATION));

/** Whether a key is a decoding annotation. */
export function isAnnotationKey(key: string): boolean {
  return annotationKeys.has(key);
}

/** Whether a schema carries any decoding annotation at any depth. */
export function hasAnnotations(schema: JsonValue): boolean {
  let found = false;
  walkSchemaNodes(schema, (node) => {
    if (Object.keys(node).some(isAnnotationKey)) found = true;
  });
  return found;
}

/** A copy of a decode schema without annotations: the bytes the provider receives. */
export function stripAnnotations(schema: JsonValue): JsonValue {
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    if (isAnnotationKey(key)) continue;
    const value = schema[key]!;
    if ((SINGLE_SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      out[key] = Array.isArray(value) ? value.map(stripAnnotations) : stripAnnotations(value);
    } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map(stripAnnotations);
    } else if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isJsonObject(value)) {
      const map: JsonObject = {};
      for (const name of Object.keys(value)) defineMember(map, name, stripAnnotations(value[name]!));
      out[key] = map;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Visits every schema node (object) reachable through schema keywords. */
export function walkSchemaNodes(
  schema: JsonValue,
  visit: (node: JsonObject, pointer: string) => void,
  pointer = '',
): void {
  if (!isJsonObject(schema)) return;
  visit(schema, pointer);
  for (const key of Object.keys(schema)) {
    const value = schema[key]!;
    const base = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if ((SINGLE_SCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) walkSchemaNodes(item, visit, `${base}/${index}`);
      } else walkSchemaNodes(value, visit, base);
    } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
      for (const [index, item] of value.entries()) walkSchemaNodes(item, visit, `${base}/${index}`);
    } else if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isJsonObject(value)) {
      for (const name of Object.keys(value)) {
        walkSchemaNodes(value[name]!, visit, `${base}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      }
    }
  }
}
