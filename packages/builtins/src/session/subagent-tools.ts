import {
  type AnyToolDefinition,
  defineTool,
  errorResult,
  type Result,
  type ToolCallContext,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import type { ReadSubagentResultArguments, TaskArguments } from './subagent-arguments.js';
import { renderSubagentResults, type SubagentSummary } from './subagent-format.js';
import {
  parallelTasksArgumentsSchema,
  readSubagentResultArgumentsSchema,
  taskArgumentsSchema,
} from './subagent-schemas.generated.js';

/** Most subagents one `parallel_tasks` call runs. */
export const MAX_PARALLEL_SUBAGENTS = 8;
/** Most bytes of one subagent's answer preview (one default page of `read_subagent_result`). */
export const SUBAGENT_PREVIEW_BYTES = 16_384;

/**
 * What the subagent tools need from their host: it runs subagents for the calling session (found
 * by `context.sessionId`) and reads the answers of its lineage. The host (`@toolhost/boot`)
 * implements it over child sessions, the embedding loop's runner and per-lineage persistence.
 */
export interface SubagentService {
  /**
   * Runs the tasks at once, each in its own child session of the caller, and returns one summary
   * per task in order once every one finished or stopped (the call's signal cancels them all: they
   * come back `cancelled`). Everything is checked before any subagent starts; a refusal (an unknown
   * `continue_from`, a subagent asking for subagents) is the error and nothing ran.
   */
  run(
    tasks: readonly TaskArguments[],
    context: ToolCallContext,
  ): Promise<Result<readonly SubagentSummary[], ToolhostError>>;
  /**
   * One page of a subagent's full answer, as `session:tool_result` pages: a JSON header line
   * (`result_ref`, `offset`, `next_offset`, `total_bytes`, `sha256`, `complete`), a newline, the page.
   */
  read(
    args: ReadSubagentResultArguments,
    context: ToolCallContext,
  ): Promise<Result<{ readonly text: string; readonly details: Record<string, unknown> }, ToolhostError>>;
}

/** Options of {@link createSubagentTools}. */
export interface SubagentToolsOptions {
  readonly subagents: SubagentService;
  /** The bytes a result may take so the host never cuts it (default 31744: 32 KiB less room for an error line). */
  readonly outputBytes?: number;
  /** How long one `task` or `parallel_tasks` call may run; default 30 minutes. */
  readonly timeoutMs?: number;
}

const TASK_DESCRIPTION = [
  'Delegate a self-contained task to a subagent: a fresh agent with its own conversation and session that works through the same tools and returns only its final answer.',
  'Use it for long investigations or independent pieces of work whose details need not fill this conversation; give the complete instructions in prompt, since the subagent sees nothing of this conversation.',
  'read_only=true gives it a read-only session (no edits, only read-only MCP tools); otherwise it has the policy of this session, never more.',
  'The result shows the status (completed, partial, failed or cancelled), whether it is retryable, a preview of the answer and a stable Subagent reference (sa_...): read the whole answer with read_subagent_result, and continue a retryable one with continue_from.',
].join(' ');

const PARALLEL_DESCRIPTION = [
  'Run 1 to 8 independent subagents at the same time (each as task would) and get one merged result: per subagent its status, retryable flag, Subagent reference and a fair share of the output as a preview of its answer.',
  'Use it to split a broad investigation into parallel parts. Read any full answer with read_subagent_result.',
].join(' ');

const READ_DESCRIPTION = [
  'Read the full final answer of a subagent by its Subagent reference (sa_...), one page at a time by UTF-8 byte offset.',
  'The first line is a JSON header (result_ref, offset, next_offset, total_bytes, sha256 of the whole answer, complete), then the page; continue at next_offset until complete is true.',
  'Only references of this session, its subagents and its parent, in this project, are readable.',
].join(' ');

const DELEGATION_ANNOTATIONS = Object.freeze({
  // The subagent may change files when this session may (never more), and it talks to a model.
  readOnly: false,
  destructive: false,
  openWorld: true,
  idempotent: false,
});

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Creates `task`, `parallel_tasks` and `read_subagent_result` (group `utility_builtins`). `task`
 * and `parallel_tasks` are sequential and abortable: the call's signal cancels their subagents,
 * which come back `cancelled` and retryable. Their text always fits `outputBytes`: previews are cut
 * to fair shares (at most {@link SUBAGENT_PREVIEW_BYTES} each) and end with the exact call that
 * reads on. A `failed` subagent makes `task` fail with `EXECUTION_ERROR` and a `cancelled` one with
 * `ABORTED`, both with the summary as output; `parallel_tasks` reports each status in its text and
 * fails only when it was cancelled. `read_subagent_result` is read-only and parallel.
 *
 * Error codes: `SUBAGENT_NOT_FOUND` (an unknown, foreign or finished reference), `PERMISSION_DENIED`
 * (a subagent asking for subagents), `RESULT_RANGE_INVALID` (a page out of range), `ABORTED`,
 * `EXECUTION_ERROR`.
 */
export function createSubagentTools(options: SubagentToolsOptions): AnyToolDefinition[] {
  const outputBytes = options.outputBytes ?? 32 * 1024 - 1024;
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  const service = options.subagents;
  const render = (summaries: readonly SubagentSummary[]) =>
    renderSubagentResults(summaries, { budgetBytes: outputBytes, previewMaxBytes: SUBAGENT_PREVIEW_BYTES });
  const details = (summaries: readonly SubagentSummary[]) => ({
    subagents: summaries.map((summary) => ({
      reference: summary.reference,
      status: summary.status,
      retryable: summary.retryable,
      answerBytes: Buffer.byteLength(summary.answer, 'utf8'),
    })),
  });

  const task = defineTool<TaskArguments>({
    name: 'task',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: DELEGATION_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: { name: 'task', description: TASK_DESCRIPTION, inputSchema: taskArgumentsSchema },
    permission: { preview: (args) => `task: ${oneLine(args.description, 120)}` },
    async execute(args, context) {
      const ran = await service.run([args], context);
      if (!ran.ok) return errorResult(ran.error);
      const summary = ran.value[0] as SubagentSummary;
      const output = {
        content: [{ type: 'text' as const, text: render([summary]) }],
        details: details([summary]),
      };
      if (summary.status === 'cancelled') {
        return errorResult(
          new ToolhostError({
            code: 'ABORTED',
            message: `the subagent ${summary.reference} was cancelled`,
            recovery: `it is retryable: continue it with task(continue_from="${summary.reference}") when it is still needed`,
          }),
          output,
        );
      }
      if (summary.status === 'failed') {
        return errorResult(
          new ToolhostError({
            code: 'EXECUTION_ERROR',
            message: `the subagent ${summary.reference} failed${summary.error ? ` (${summary.error.code})` : ''}`,
            recovery: summary.retryable
              ? `continue it with task(continue_from="${summary.reference}"), or take another approach`
              : 'take another approach',
          }),
          output,
        );
      }
      return { ok: true, output };
    },
  });

  const parallel = defineTool({
    name: 'parallel_tasks',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: DELEGATION_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name: 'parallel_tasks',
      description: PARALLEL_DESCRIPTION,
      inputSchema: parallelTasksArgumentsSchema,
    },
    permission: { preview: (args) => `parallel_tasks: ${args.tasks.length} subagents` },
    async execute(args, context) {
      const ran = await service.run(args.tasks.slice(0, MAX_PARALLEL_SUBAGENTS), context);
      if (!ran.ok) return errorResult(ran.error);
      const output = {
        content: [{ type: 'text' as const, text: render(ran.value) }],
        details: details(ran.value),
      };
      if (context.signal.aborted) {
        return errorResult(
          new ToolhostError({
            code: 'ABORTED',
            message: 'the subagents were cancelled',
            recovery: 'the retryable ones can be continued with task(continue_from=...) when still needed',
          }),
          output,
        );
      }
      return { ok: true, output };
    },
  });

  const read = defineTool<ReadSubagentResultArguments>({
    name: 'read_subagent_result',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false, idempotent: true },
    execution: { mode: 'parallel', timeoutMs: 30_000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name: 'read_subagent_result',
      description: READ_DESCRIPTION,
      inputSchema: readSubagentResultArgumentsSchema,
    },
    async execute(args, context) {
      const page = await service.read(args, context);
      if (!page.ok) return errorResult(page.error);
      return textResult(page.value.text, page.value.details);
    },
  });

  return [task, parallel, read] as AnyToolDefinition[];
}

/** The names of the subagent tools, in registration order. */
export const SUBAGENT_TOOL_NAMES: readonly string[] = Object.freeze([
  'task',
  'parallel_tasks',
  'read_subagent_result',
]);
