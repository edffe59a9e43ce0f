import { parseGoalRecord } from './goal-protocol.js';
import type { Deliverable, GoalRecord, TodoItem, TodoStatus } from './session-state.js';

/** The session tools' state as a snapshot keeps it (the goal without its in-process activation). */
export interface SessionStateSnapshot {
  readonly todos: readonly TodoItem[];
  readonly goal: GoalRecord | null;
  readonly deliverables: readonly Deliverable[];
}

const TODO_STATUSES: ReadonlySet<string> = new Set<TodoStatus>(['pending', 'in_progress', 'completed']);
const TODO_ID = /^[A-Za-z0-9_-]{1,64}$/;

function text(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

/**
 * Reads the session tools' state back from untrusted JSON (a snapshot file): entries that are not
 * what the tools write (a wrong type, a bound exceeded, a repeated id or path) are dropped, never
 * trusted; missing parts are empty. At most 100 tasks and 8 deliverables, as the tools allow.
 */
export function parseSessionStateSnapshot(value: {
  readonly todos?: unknown;
  readonly goal?: unknown;
  readonly deliverables?: unknown;
}): SessionStateSnapshot {
  const todos: TodoItem[] = [];
  const ids = new Set<string>();
  for (const entry of Array.isArray(value.todos) ? value.todos.slice(0, 100) : []) {
    const todo = entry as Partial<TodoItem> | null;
    if (
      typeof todo !== 'object' ||
      todo === null ||
      typeof todo.id !== 'string' ||
      !TODO_ID.test(todo.id) ||
      ids.has(todo.id) ||
      !text(todo.content, 2000) ||
      typeof todo.status !== 'string' ||
      !TODO_STATUSES.has(todo.status)
    )
      continue;
    ids.add(todo.id);
    todos.push({ id: todo.id, content: todo.content, status: todo.status });
  }
  const deliverables: Deliverable[] = [];
  const paths = new Set<string>();
  for (const entry of Array.isArray(value.deliverables) ? value.deliverables.slice(0, 8) : []) {
    const item = entry as Partial<Deliverable> | null;
    if (
      typeof item !== 'object' ||
      item === null ||
      !text(item.path, 8192) ||
      paths.has(item.path) ||
      !Number.isSafeInteger(item.bytes) ||
      (item.bytes as number) < 0 ||
      !(
        item.description === undefined ||
        (typeof item.description === 'string' && item.description.length <= 500)
      )
    )
      continue;
    paths.add(item.path);
    deliverables.push({
      path: item.path,
      ...(item.description === undefined ? {} : { description: item.description }),
      bytes: item.bytes as number,
    });
  }
  return { todos, goal: parseGoalRecord(value.goal) ?? null, deliverables };
}
