// The JSON types and guards are written once in @toolhost/internal (bundled into this package at build
// time); contracts re-exports them as its public API.
export { isJsonObject, isObject, type JsonObject, type JsonValue } from '@toolhost/internal';
