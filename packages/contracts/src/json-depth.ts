import { ToolhostError } from './errors.js';
import { boundedText } from './text.js';

/**
 * The deepest JSON nesting a tool input schema may have: every object and array counts one level,
 * the root object is level 1 (so `{"properties":{"a":{"type":"string"}}}` is 3 levels deep, and
 * one nested property costs two). 128 levels is about 64 nested properties, far beyond any real
 * tool, and shallow enough that every recursive walk over a schema (canonicalisation, fingerprints,
 * ajv compilation, the dialect compilers) stays well inside the call stack. One constant for the
 * whole toolhost: `provider-dialects`, which imports only types from here, pins its own copy to
 * {@link MaxSchemaDepth} so the two cannot drift.
 */
export const MAX_SCHEMA_DEPTH = 128;

/** The type of {@link MAX_SCHEMA_DEPTH}, for packages that may import only types from contracts. */
export type MaxSchemaDepth = typeof MAX_SCHEMA_DEPTH;

/**
 * Whether a JSON value nests deeper than `limit` levels (objects and arrays count; a scalar is 0
 * levels, `{}` and `[]` are 1). Iterative, so it never overflows the stack whatever the input, and
 * it stops at the first path past the limit.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: { readonly value: object; readonly depth: number }[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return false;
}

/**
 * The error for a schema nested deeper than {@link MAX_SCHEMA_DEPTH}: `CONFIG_INVALID` with
 * `details.reason` `schema_too_deep` and the limit, naming the tool when one is given. Value-free.
 */
export function schemaTooDeepError(toolName?: string): ToolhostError<'CONFIG_INVALID'> {
  const what =
    toolName === undefined ? 'a tool input schema' : `the input schema of tool "${boundedText(toolName)}"`;
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `${what} nests deeper than ${MAX_SCHEMA_DEPTH} levels (objects and arrays), the limit for tool schemas`,
    recovery: `flatten the schema (or use $ref definitions) so it nests at most ${MAX_SCHEMA_DEPTH} levels`,
    details: {
      reason: 'schema_too_deep',
      limit: MAX_SCHEMA_DEPTH,
      ...(toolName === undefined ? {} : { toolName: boundedText(toolName) }),
    },
  });
}

/** Whether an error is the {@link schemaTooDeepError} (from any installed copy of contracts). */
export function isSchemaTooDeepError(error: unknown): error is ToolhostError<'CONFIG_INVALID'> {
  return ToolhostError.isInstance(error) && error.details.reason === 'schema_too_deep';
}
