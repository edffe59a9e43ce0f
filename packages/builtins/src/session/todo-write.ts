import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import type { TodoWriteArguments } from './session-arguments.js';
import { todoWriteArgumentsSchema } from './session-schemas.generated.js';
import type { TodoItem, TodoStatus } from './session-state.js';
import { SESSION_READ_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION = [
  "Replace the session's task list with the given one and get it back rendered.",
  'Keep it honest: each status says the real progress (pending, in_progress, completed); there is no required order and no sign-off.',
  'Send the whole list every time (an empty list clears it). Use it for work of several steps; skip it for a single quick action.',
].join(' ');

const MARKS: Readonly<Record<TodoStatus, string>> = { completed: 'x', in_progress: '~', pending: ' ' };

/**
 * The task list as the model reads it back: a count line, then one line per task in order
 * (`[x] t1: ...` completed, `[~]` in progress, `[ ]` pending).
 */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'Todo list cleared (0 items).';
  const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length;
  return [
    `Todo list (${todos.length} item${todos.length === 1 ? '' : 's'}: ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending):`,
    ...todos.map((todo) => `[${MARKS[todo.status]}] ${todo.id}: ${todo.content.replace(/\s*\n\s*/g, ' ')}`),
  ].join('\n');
}

/**
 * Creates `todo_write` (group `utility_builtins`; the seed's read-only flag true, but never run in
 * parallel: execution `sequential`). The list replaces the session's whole list; tasks without an id
 * get the first free `t<n>`. No ordering or sign-off rules. Error codes: `ARGUMENT_VALIDATION` for
 * two tasks with one id.
 */
export function createTodoWriteTool(options: SessionToolsOptions): ToolDefinition<TodoWriteArguments> {
  return defineTool({
    name: 'todo_write',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_READ_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: false },
    pathAccess: 'none',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'todo_write', description: DESCRIPTION, inputSchema: todoWriteArgumentsSchema },
    permission: { preview: (args) => `todo_write (${args.todos.length} tasks)` },
    async execute(args, context) {
      const state = options.state(context);
      const given = new Map<string, number>();
      for (const [index, todo] of args.todos.entries()) {
        if (todo.id === undefined) continue;
        const earlier = given.get(todo.id);
        if (earlier !== undefined) {
          return errorResult(
            new ToolhostError({
              code: 'ARGUMENT_VALIDATION',
              message: `todos[${index}].id repeats the id of todos[${earlier}]; every task needs its own id`,
              recovery:
                'give each task a distinct id, or leave id out to have one assigned; the list was not changed',
              details: { argument: `todos[${index}].id` },
            }),
          );
        }
        given.set(todo.id, index);
      }
      let next = 1;
      const freeId = () => {
        while (given.has(`t${next}`)) next += 1;
        const id = `t${next}`;
        given.set(id, -1);
        return id;
      };
      const todos: TodoItem[] = args.todos.map((todo) => ({
        id: todo.id ?? freeId(),
        content: todo.content,
        status: todo.status,
      }));
      state.replaceTodos(todos);
      const count = (status: TodoStatus) => todos.filter((todo) => todo.status === status).length;
      return textResult(renderTodos(todos), {
        todos: todos.length,
        completed: count('completed'),
        inProgress: count('in_progress'),
        pending: count('pending'),
      });
    },
  });
}
