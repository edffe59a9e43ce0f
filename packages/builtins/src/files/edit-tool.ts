import {
  type ArgumentSchema,
  defineTool,
  errorResult,
  type ToolCallContext,
  type ToolDefinition,
  type ToolResult,
  textResult,
} from '@toolhost/contracts';
import type { DecodedText, TextChangeSpan } from '@toolhost/read-evidence';
import { formatUnifiedDiff } from './file-diff.js';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';

/** What tells one in-place editing tool from another: its name, model view and approval preview. */
export interface EditToolSpec<A extends { readonly path: string }> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ArgumentSchema<A>;
  /** The short human preview for an approval prompt. */
  readonly preview: (args: A) => string;
  readonly execute: (args: A, context: ToolCallContext) => Promise<ToolResult>;
}

/**
 * Declares an editing tool that changes the one file named by its `path` argument in place
 * (edit_file, multi_edit, delete_range, delete_symbol, notebook_edit): group `editing_builtins`,
 * category `write`, destructive and not idempotent, sequential and not abortable within the write
 * timeout, write access to `path`, which is also the permission subject.
 */
export function defineEditTool<A extends { readonly path: string }>(
  options: ResolvedFileToolsOptions,
  spec: EditToolSpec<A>,
): ToolDefinition<A> {
  return defineTool<A>({
    name: spec.name,
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: options.limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: spec.name, description: spec.description, inputSchema: spec.inputSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: spec.preview,
    },
    execute: spec.execute,
  });
}

/** A text edit's new text, with the prefix and suffix it shares with the old one, or a failure. */
export type TextEditPlan<R> =
  | { readonly ok: true; readonly text: string; readonly report: R; readonly span: TextChangeSpan }
  | { readonly ok: false; readonly result: ToolResult };

/** A written text edit, as its summary line sees it. */
export interface WrittenTextEdit<R> {
  readonly report: R;
  readonly displayPath: string;
  readonly before: string;
  readonly after: string;
  /** The first changed line (1-based), the same in both versions. */
  readonly changeLine: number;
}

/** How one text-editing tool plans its change and reports it. */
export interface TextEditSteps<A extends { readonly path: string }, R> {
  /** Checks of the arguments alone, before the file is touched; a result stops the call. */
  readonly check?: (args: A) => ToolResult | undefined;
  /** The change, computed in memory on the decoded current text. */
  readonly plan: (args: A, decoded: DecodedText, displayPath: string) => TextEditPlan<R>;
  /** The result when the new text equals the old (nothing is written); without it, `summary` reports. */
  readonly unchanged?: (displayPath: string) => ToolResult;
  /** The first line of the result (the diff follows) and the result's details. */
  readonly summary: (
    args: A,
    written: WrittenTextEdit<R>,
  ) => { readonly text: string; readonly details: Readonly<Record<string, unknown>> };
}

/**
 * The handler of edit_file, multi_edit and delete_range: resolve `path` for writing, run the plan
 * under the structured-modification protocol (`mutateTextFile`: observation, stale check, atomic
 * write, observation advanced), then answer with the summary line, a bounded unified diff of the
 * change and the notice of a concurrent write lost in the commit gap, if any.
 */
export function textEditHandler<A extends { readonly path: string }, R>(
  options: ResolvedFileToolsOptions,
  steps: TextEditSteps<A, R>,
): (args: A, context: ToolCallContext) => Promise<ToolResult> {
  return async (args, context) => {
    const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
    if (!target.ok) return errorResult(target.error);
    const { displayPath } = target.value;
    const refused = steps.check?.(args);
    if (refused) return refused;
    const outcome = await mutateTextFile(
      options,
      options.observationsFor(context),
      target.value,
      ({ decoded }) => {
        const plan = steps.plan(args, decoded, displayPath);
        if (!plan.ok) return plan;
        return {
          ok: true,
          text: plan.text,
          report: { inner: plan.report, text: plan.text, span: plan.span },
          span: plan.span,
        };
      },
    );
    if (!outcome.ok) return outcome.result;
    if (!outcome.changed && steps.unchanged) return steps.unchanged(displayPath);
    const { inner, text: after, span } = outcome.report;
    const before = outcome.source.decoded.text;
    const diff = formatUnifiedDiff({
      oldText: before,
      newText: after,
      prefixLength: span.prefixLength,
      suffixLength: span.suffixLength,
      displayPath,
      maxLines: options.limits.maxDiffLines,
      maxBytes: options.limits.maxDiffBytes,
    });
    const summary = steps.summary(args, {
      report: inner,
      displayPath,
      before,
      after,
      changeLine: diff.changeLine,
    });
    return textResult(
      `${summary.text}\n${diff.text}${outcome.notice ? `\n${outcome.notice}` : ''}`,
      summary.details,
    );
  };
}

/** edit_file's and multi_edit's answer when the replacement equals the text it matched. */
export function unchangedReplacementResult(displayPath: string): ToolResult {
  return textResult(`${displayPath} is unchanged: the replacement equals the text it matched`, {
    path: displayPath,
    replacements: 0,
  });
}
