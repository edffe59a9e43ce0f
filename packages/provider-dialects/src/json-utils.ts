import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { isJsonObject, sha256Hex } from '@toolhost/internal';

// provider-dialects imports only types from @toolhost/contracts (the package DAG in DESIGN.md); its
// runtime helpers come from @toolhost/internal, bundled into this package at build time.
export { isJsonObject, sha256Hex };

/** Own-property lookup, safe for keys such as `__proto__` or `constructor`. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** A record built from entries with own data properties only (safe for any key). */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** Deep copy of a JSON value (drops `undefined` members, as JSON does). */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined) defineMember(out, key, cloneJson(item));
    }
    return out as T;
  }
  return value;
}

/** Sets an own data property, also for the key `__proto__`. */
export function defineMember(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * Every object's keys sorted by UTF-16 code units at every depth; arrays keep their order. This is
 * the byte-stable form compiled schemas are emitted in.
 */
export function sortKeysDeep(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) {
      const item = value[key];
      if (item !== undefined) defineMember(out, key, sortKeysDeep(item));
    }
    return out;
  }
  return value;
}

/** `JSON.stringify` of {@link sortKeysDeep}: equal values give equal text. */
export function stableStringify(value: JsonValue): string {
  return JSON.stringify(sortKeysDeep(value));
}

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return stableStringify(a) === stableStringify(b);
}

/** Escapes one JSON Pointer reference token (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Unescapes one JSON Pointer reference token. */
export function unescapePointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Appends reference tokens to a JSON Pointer (`''` is the root). */
export function pointerJoin(pointer: string, ...tokens: readonly (string | number)[]): string {
  let out = pointer;
  for (const token of tokens) out += `/${escapePointerToken(String(token))}`;
  return out;
}

/** Resolves a JSON Pointer inside a document; `undefined` when it does not exist. */
export function resolvePointer(document: JsonValue, pointer: string): JsonValue | undefined {
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let current: JsonValue | undefined = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapePointerToken(raw);
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (isJsonObject(current)) {
      current = own(current, token);
    } else {
      return undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/** The first `length` hex characters of SHA-256 of `text` (default 8). */
export function shortHash(text: string, length = 8): string {
  return sha256Hex(text).slice(0, length);
}

/** Parses JSON text; `undefined` when it is not valid JSON. */
export function tryParseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
