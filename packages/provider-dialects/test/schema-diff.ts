import type { JsonValue } from '@toolhost/contracts';
import type { CompiledTools, DialectName, ReportEntry } from '../src/index.js';

const escapeToken = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The JSON Pointers where two JSON values differ: where a key exists on one side only, where
 * arrays differ in length, or where primitives (or types) differ. Object key order is ignored.
 */
export function diffPaths(a: JsonValue | undefined, b: JsonValue | undefined, pointer = ''): string[] {
  if (a === b) return [];
  const aObject = typeof a === 'object' && a !== null && !Array.isArray(a);
  const bObject = typeof b === 'object' && b !== null && !Array.isArray(b);
  if (aObject && bObject) {
    const out: string[] = [];
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const inA = Object.hasOwn(a, key);
      const inB = Object.hasOwn(b, key);
      const path = `${pointer}/${escapeToken(key)}`;
      if (inA && inB) out.push(...diffPaths(a[key], b[key], path));
      else out.push(path);
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [pointer];
    return a.flatMap((item, index) => diffPaths(item, b[index], `${pointer}/${index}`));
  }
  return [pointer];
}

const STRUCTURAL = new Set(['wrapped', 'merged', 'inlined', 'stringified', 'rewritten']);

/** Whether a report entry accounts for a difference at `path` (see the package README). */
export function covers(entry: ReportEntry, path: string): boolean {
  const keywordPath = `${entry.pointer}/${escapeToken(entry.keyword)}`;
  if (path === keywordPath || path.startsWith(`${keywordPath}/`)) return true;
  if (entry.action === 'moved-to-description' && path === `${entry.pointer}/description`) return true;
  // A schema dropped as a whole (a `false` property, a branch that accepts nothing) is reported at
  // its own pointer.
  if (entry.action === 'dropped' && path === entry.pointer) return true;
  if (STRUCTURAL.has(entry.action)) {
    if (path === entry.pointer) return true;
    if (path.startsWith(`${entry.pointer}/`) && !path.slice(entry.pointer.length + 1).includes('/'))
      return true;
  }
  return false;
}

/** The wire schema of one tool in a compiled list, or `undefined` when it has none / is absent. */
export function wireSchema(
  compiled: CompiledTools,
  wireName: string,
): { found: boolean; schema: JsonValue | undefined } {
  const dialect: DialectName = compiled.dialect;
  for (const tool of compiled.tools) {
    if (dialect === 'gemini') {
      const declarations = (tool.functionDeclarations ?? []) as Record<string, JsonValue>[];
      for (const declaration of declarations) {
        if (declaration.name === wireName)
          return { found: true, schema: declaration.parametersJsonSchema ?? declaration.parameters };
      }
    } else if (dialect === 'openai-chat') {
      const fn = tool.function as Record<string, JsonValue> | undefined;
      if (fn?.name === wireName) return { found: true, schema: fn.parameters };
    } else if (dialect === 'openai-responses') {
      if (tool.name === wireName && tool.type === 'function') return { found: true, schema: tool.parameters };
    } else if (tool.name === wireName && tool.input_schema !== undefined) {
      return { found: true, schema: tool.input_schema };
    }
  }
  return { found: false, schema: undefined };
}

const INT64_KEYWORDS = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);

/**
 * A Gemini `parameters` schema with the protos' Type enum names (`OBJECT`, `STRING`, ...) read
 * back as JSON Schema type names, and its int64 counts (decimal strings, the protos' canonical
 * JSON) as numbers: the same values in another spelling, not a change to report.
 */
export function fromGeminiWireTypes(schema: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(schema)) return schema.map((item) => fromGeminiWireTypes(item)!);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key]!;
    if (key === 'type' && typeof value === 'string') out[key] = value.toLowerCase();
    else if (INT64_KEYWORDS.has(key) && typeof value === 'string' && /^[0-9]+$/.test(value))
      out[key] = Number(value);
    else if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const properties: Record<string, JsonValue> = {};
      for (const name of Object.keys(value))
        Object.defineProperty(properties, name, {
          value: fromGeminiWireTypes(value[name]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      out[key] = properties;
    } else if (key === 'items' || key === 'anyOf') out[key] = fromGeminiWireTypes(value)!;
    else out[key] = value;
  }
  return out;
}
