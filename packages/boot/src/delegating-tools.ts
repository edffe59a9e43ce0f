import type { AnyToolDefinition } from '@toolhost/contracts';

const delegating = new WeakSet<AnyToolDefinition>();

/**
 * Marks a definition the host itself composed as one that only delegates (`task`,
 * `parallel_tasks`): the call changes nothing by itself, and every action of the subagent it starts
 * is decided on its own by the subagent's session, whose policy is never wider than the caller's. So
 * the permission step treats the call as a safe read, as it treats `use_capability`. Only the exact
 * objects the host registered are marked: an extra tool that merely has the same name is not.
 */
export function markDelegatingTool(definition: AnyToolDefinition): void {
  delegating.add(definition);
}

/** Whether {@link markDelegatingTool} marked this definition. */
export function isDelegatingTool(definition: AnyToolDefinition): boolean {
  return delegating.has(definition);
}
