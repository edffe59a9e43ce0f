import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { isJsonObject, own, resolvePointer, stableStringify } from './json-utils.js';

// The JSON Schema keywords whose values are schemas: the one table of @toolhost/internal (bundled at
// build time), the same one @toolhost/contracts re-exports. `items` is a one-schema keyword, as in
// draft 2020-12; its draft-07 tuple form is handled where each walk meets `items`.
export {
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
} from '@toolhost/internal';

/** The JSON Schema type names. */
export const JSON_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
/** One of {@link JSON_TYPES}. */
export type JsonTypeName = (typeof JSON_TYPES)[number];
const jsonTypeSet: ReadonlySet<string> = new Set(JSON_TYPES);

/** Whether a string is a JSON Schema type name. */
export function isJsonTypeName(value: unknown): value is JsonTypeName {
  return typeof value === 'string' && jsonTypeSet.has(value);
}

/** Type names some generators emit that are not JSON Schema; mapped to the real name. */
export const TYPE_ALIASES: Readonly<Record<string, JsonTypeName>> = {
  bool: 'boolean',
  dict: 'object',
  double: 'number',
  float: 'number',
  int: 'integer',
  list: 'array',
  map: 'object',
  str: 'string',
};

/** Whether a value can be a schema (an object or a boolean). */
export function isSchema(value: unknown): value is JsonObject | boolean {
  return isJsonObject(value) || typeof value === 'boolean';
}

/** The declared types of a schema node (`type` as a string or an array), or `undefined`. */
export function declaredTypes(node: JsonObject): JsonTypeName[] | undefined {
  const type = node.type;
  if (typeof type === 'string') return isJsonTypeName(type) ? [type] : [];
  if (Array.isArray(type)) return type.filter(isJsonTypeName);
  return undefined;
}

/** The JSON type of a value (integers are `integer`). */
export function typeOfValue(value: JsonValue): JsonTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'string';
}

/** The types of a list of values, `integer` folded into `number` when both occur. */
export function typesOfValues(values: readonly JsonValue[]): JsonTypeName[] {
  const types = new Set(values.map(typeOfValue));
  if (types.has('number') && types.has('integer')) types.delete('integer');
  return JSON_TYPES.filter((type) => types.has(type));
}

/** Whether a node is (or may be) an object schema: `type` includes `object`, or it has `properties`. */
export function isObjectLike(node: JsonObject): boolean {
  const types = declaredTypes(node);
  if (types) return types.includes('object');
  return (
    isJsonObject(node.properties) || Array.isArray(node.required) || node.additionalProperties !== undefined
  );
}

/** A resolved local reference: the target schema and its pointer in the document. */
export interface ResolvedRef {
  readonly pointer: string;
  readonly schema: JsonObject | boolean;
}

/**
 * Resolves a local `$ref` (`#`, `#/...` JSON Pointer) against the root document; `undefined` for
 * remote, anchor-style or dangling references.
 */
export function resolveLocalRef(root: JsonValue, ref: string): ResolvedRef | undefined {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  const target = resolvePointer(root, pointer);
  if (!isSchema(target)) return undefined;
  return { pointer, schema: target };
}

/**
 * Whether following `$ref`s from the target of `ref` can reach `ref`'s own target again (a cycle).
 * Only local references are followed.
 */
export function isRecursiveRef(root: JsonValue, ref: string): boolean {
  const start = resolveLocalRef(root, ref);
  if (!start) return false;
  const visited = new Set<string>();
  const stack: JsonValue[] = [start.schema];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    if (!isJsonObject(node)) continue;
    for (const key of Object.keys(node)) {
      const value = node[key]!;
      if (key === '$ref' && typeof value === 'string') {
        const target = resolveLocalRef(root, value);
        if (!target) continue;
        if (target.pointer === start.pointer || start.pointer.startsWith(`${target.pointer}/`)) return true;
        if (visited.has(target.pointer)) continue;
        visited.add(target.pointer);
        stack.push(target.schema);
      } else if (typeof value === 'object' && value !== null) {
        stack.push(value);
      }
    }
  }
  return false;
}

/** Appends a sentence to a schema node's description. */
export function appendDescription(node: JsonObject, text: string): void {
  const current = typeof node.description === 'string' ? node.description.trim() : '';
  node.description = current ? `${current} ${text}` : text;
}

/** A compact, deterministic rendering of a keyword value for a description. */
export function describeValue(value: JsonValue): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : stableStringify(value);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/**
 * Moves constraint keywords into the description as `(constraints: minLength: 3, pattern: "x")`,
 * in keyword order. Returns the keywords moved.
 */
export function moveToDescription(
  node: JsonObject,
  source: JsonObject,
  keywords: readonly string[],
): string[] {
  const moved = keywords.filter((keyword) => own(source, keyword) !== undefined).sort();
  if (moved.length === 0) return moved;
  const parts = moved.map((keyword) => `${keyword}: ${describeValue(source[keyword]!)}`);
  appendDescription(node, `(constraints: ${parts.join(', ')})`);
  return moved;
}

/** Whether a (compiled) schema accepts `null`: `type` includes `null`, or an `anyOf` branch does. */
export function acceptsNull(node: JsonObject | boolean, root: JsonValue, depth = 0): boolean {
  if (typeof node === 'boolean') return node;
  if (depth > 32) return false;
  if (typeof node.$ref === 'string') {
    const target = resolveLocalRef(root, node.$ref);
    return target ? acceptsNull(target.schema, root, depth + 1) : false;
  }
  if (node.nullable === true) return true;
  const types = declaredTypes(node);
  if (types && !types.includes('null')) return false;
  if (Array.isArray(node.enum) && !node.enum.includes(null)) return false;
  if (node.const !== undefined && node.const !== null) return false;
  if (types?.includes('null')) return true;
  const branches = Array.isArray(node.anyOf)
    ? node.anyOf
    : Array.isArray(node.oneOf)
      ? node.oneOf
      : undefined;
  if (branches) return branches.some((branch) => isSchema(branch) && acceptsNull(branch, root, depth + 1));
  return types === undefined && node.enum === undefined && node.const === undefined && !isObjectLike(node);
}

/** Whether a pattern compiles as an ECMAScript regular expression (JSON Schema's regex dialect). */
export function isValidPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/**
 * The root keywords OpenAI rejects in `parameters` whatever the mode ("schema must be a JSON
 * Schema of 'type: \"object\"', got ... "): a root `oneOf` / `anyOf` / `allOf` / `enum` / `not`
 * / `const` fails every request that carries the tool. Root combinators are already merged or
 * wrapped by `normalizeRoot`; the others are stated in the description (the host still enforces
 * them against the original schema).
 */
export const OPENAI_ROOT_REJECTED = ['oneOf', 'anyOf', 'allOf', 'enum', 'not', 'const'] as const;
