import type { MaxSchemaDepth } from '@toolhost/contracts';

/**
 * The contract's schema depth limit. This package imports only types from `@toolhost/contracts`,
 * so it keeps its own copy, pinned by the type: if the contract's `MAX_SCHEMA_DEPTH` changes, this
 * line stops compiling until it follows.
 */
export const MAX_SCHEMA_DEPTH: MaxSchemaDepth = 128;

/**
 * Whether a JSON value nests deeper than {@link MAX_SCHEMA_DEPTH} levels (objects and arrays; the
 * root is level 1), counted without recursion. Every schema walk in the compilers recurses, so
 * `compileTools` refuses such a schema before any of them runs.
 */
export function schemaTooDeep(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_SCHEMA_DEPTH) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
