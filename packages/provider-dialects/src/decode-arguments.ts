import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { cloneJson, isJsonObject, pointerJoin, tryParseJson } from './json-utils.js';
import { ANNOTATION } from './schema-annotations.js';
import { declaredTypes, resolveLocalRef, typeOfValue } from './schema-common.js';

/**
 * How to map one tool's wire arguments back to what its neutral schema describes. Present in
 * `CompiledTools.decoding` only for tools whose compile changed the shape of arguments.
 */
export interface ToolDecoding {
  /** The compiled schema with decode annotations (the wire schema plus `x-toolhost-*` keys). */
  readonly schema?: JsonObject;
  /** The wrapper property of a wrapped non-object root. */
  readonly unwrap?: string;
}

/** One change `decodeArguments` made; `pointer` is a JSON Pointer into the arguments. */
export interface ArgumentChange {
  readonly pointer: string;
  readonly action: 'null-to-absent' | 'enum-decoded' | 'json-decoded' | 'unwrapped';
}

/** Decoded arguments and the changes made to them. */
export interface DecodedArguments {
  readonly arguments: JsonValue;
  readonly changes: readonly ArgumentChange[];
}

/**
 * Maps a provider's arguments back to the neutral schema's shape, before validation: `null` for a
 * property that OpenAI strict mode made nullable becomes absent; a stringified Gemini enum value
 * becomes the original value; a JSON-encoded string Gemini `parameters` carried becomes the value
 * it encodes; a wrapped root is unwrapped. Values that do not match are left alone for the
 * validator to report. The input is not mutated. Without a decoding, arguments pass unchanged.
 */
export function decodeArguments(args: JsonValue, decoding: ToolDecoding | undefined): DecodedArguments {
  if (!decoding) return { arguments: args, changes: [] };
  const changes: ArgumentChange[] = [];
  let value = cloneJson(args);
  if (decoding.schema) {
    const root = decoding.schema;
    value = walk(value, root, '', root, changes, 0);
  }
  if (decoding.unwrap !== undefined && isJsonObject(value) && Object.hasOwn(value, decoding.unwrap)) {
    value = value[decoding.unwrap]!;
    changes.push({ pointer: '', action: 'unwrapped' });
  }
  return { arguments: value, changes };
}

function walk(
  value: JsonValue,
  schema: JsonValue,
  pointer: string,
  root: JsonObject,
  changes: ArgumentChange[],
  depth: number,
): JsonValue {
  if (!isJsonObject(schema) || depth > 64) return value;
  let node = schema;
  for (let guard = 0; typeof node.$ref === 'string' && guard < 16; guard++) {
    const target = resolveLocalRef(root, node.$ref);
    if (!target || !isJsonObject(target.schema)) return value;
    node = target.schema;
  }
  if (node[ANNOTATION.jsonString] === true && typeof value === 'string') {
    const parsed = tryParseJson(value);
    if (parsed === undefined) return value;
    changes.push({ pointer, action: 'json-decoded' });
    return parsed;
  }
  const enumValues = node[ANNOTATION.enumValues];
  if (Array.isArray(enumValues) && typeof value === 'string') {
    const original = enumValues.find(
      (item) => (typeof item === 'string' ? item : JSON.stringify(item)) === value,
    );
    if (original !== undefined && original !== value) {
      changes.push({ pointer, action: 'enum-decoded' });
      return original;
    }
    return value;
  }
  if (Array.isArray(node.anyOf)) {
    const branch = chooseBranch(value, node.anyOf, root);
    if (branch !== undefined) value = walk(value, branch, pointer, root, changes, depth + 1);
  }
  if (isJsonObject(value) && isJsonObject(node.properties)) {
    const properties = node.properties;
    const absent = node[ANNOTATION.absentIfNull];
    const absentSet = new Set(Array.isArray(absent) ? absent.filter((name) => typeof name === 'string') : []);
    for (const key of Object.keys(value)) {
      const item = value[key]!;
      if (item === null && absentSet.has(key)) {
        delete value[key];
        changes.push({ pointer: pointerJoin(pointer, key), action: 'null-to-absent' });
      } else if (Object.hasOwn(properties, key)) {
        value[key] = walk(item, properties[key]!, pointerJoin(pointer, key), root, changes, depth + 1);
      }
    }
  }
  if (Array.isArray(value) && isJsonObject(node.items)) {
    const items = node.items;
    for (let index = 0; index < value.length; index++) {
      value[index] = walk(value[index]!, items, pointerJoin(pointer, index), root, changes, depth + 1);
    }
  }
  return value;
}

function chooseBranch(
  value: JsonValue,
  branches: readonly JsonValue[],
  root: JsonObject,
): JsonValue | undefined {
  const candidates = branches.filter((branch) => matches(value, branch, root));
  if (candidates.length <= 1 || !isJsonObject(value)) return candidates[0];
  const keys = Object.keys(value);
  return (
    candidates.find((branch) => {
      const resolved = resolve(branch, root);
      return (
        isJsonObject(resolved?.properties) &&
        keys.every((key) => Object.hasOwn(resolved.properties as JsonObject, key))
      );
    }) ?? candidates[0]
  );
}

function resolve(schema: JsonValue, root: JsonObject): JsonObject | undefined {
  let node = schema;
  for (let guard = 0; isJsonObject(node) && typeof node.$ref === 'string' && guard < 16; guard++) {
    node = resolveLocalRef(root, node.$ref)?.schema ?? false;
  }
  return isJsonObject(node) ? node : undefined;
}

function matches(value: JsonValue, schema: JsonValue, root: JsonObject): boolean {
  const node = resolve(schema, root);
  if (!node) return schema === true;
  if (node[ANNOTATION.jsonString] === true || Array.isArray(node[ANNOTATION.enumValues])) {
    return typeof value === 'string';
  }
  const types = declaredTypes(node);
  const actual = typeOfValue(value);
  if (types) return types.includes(actual) || (actual === 'integer' && types.includes('number'));
  if (isJsonObject(node.properties)) return actual === 'object';
  if (Array.isArray(node.anyOf)) return node.anyOf.some((branch) => matches(value, branch, root));
  return true;
}
