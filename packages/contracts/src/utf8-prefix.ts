// The UTF-8 boundary helpers are written once in @toolhost/internal (bundled into this package at
// build time); contracts re-exports them as its public API.
export { isUtf8Continuation, utf8BoundaryAfter, utf8BoundaryBefore, utf8Prefix } from '@toolhost/internal';
