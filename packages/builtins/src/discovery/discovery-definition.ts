import { statSync } from 'node:fs';
import {
  type ToolAnnotations,
  type ToolCategory,
  type ToolExecution,
  ToolhostError,
} from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';

/** The facts every discovery tool shares: read-only, safe to repeat, parallel and abortable. */
export const DISCOVERY_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false,
  idempotent: true,
});

/** The execution facts of a discovery tool with the given timeout. */
export function discoveryExecution(timeoutMs: number): ToolExecution {
  return { mode: 'parallel', timeoutMs, abortable: true };
}

/** The category of each discovery tool. */
export const DISCOVERY_CATEGORIES: Readonly<Record<'ls' | 'glob' | 'grep' | 'view_image', ToolCategory>> = {
  ls: 'read',
  glob: 'search',
  grep: 'search',
  view_image: 'read',
};

/**
 * The access a search path needs: `read` when it names a file, `list` otherwise (a directory, or a
 * path that cannot be resolved, which the handler then reports). Used by `permission.paths`.
 */
export function searchPathAccess(policy: PathPolicy, input: string | undefined): 'read' | 'list' {
  const resolved = policy.resolve(input, { access: 'list', optional: true });
  if (!resolved.ok || !resolved.exists) return 'list';
  try {
    return statSync(resolved.path).isFile() ? 'read' : 'list';
  } catch {
    return 'list';
  }
}

/** An `ARGUMENT_VALIDATION` error about one argument, with the validator's signature shape. */
export function argumentError(options: {
  readonly toolName: string;
  readonly fingerprint: string;
  readonly argument: string;
  readonly message: string;
  readonly recovery: string;
}): ToolhostError {
  return new ToolhostError({
    code: 'ARGUMENT_VALIDATION',
    message: options.message,
    recovery: options.recovery,
    details: { argument: options.argument },
    signature: `argument_validation:${options.toolName}:${options.fingerprint}:${options.argument}`,
  });
}
