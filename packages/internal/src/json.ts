/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Whether a value is an object that is not an array and not null, for reading unknown input. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a value is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return isObject(value);
}
