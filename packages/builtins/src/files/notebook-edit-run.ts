import {
  errorResult,
  type JsonObject,
  type ToolCallContext,
  type ToolResult,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import type { FormattingOptions, ModificationOptions } from 'jsonc-parser';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import type { NotebookEditArguments } from './notebook-arguments.js';
import { isNotebookPath } from './notebook-path.js';
import {
  type NotebookCellType,
  newCellId,
  notebookHasCellIds,
  notebookLayout,
  type ParsedNotebook,
  parseNotebook,
  sourceLines,
} from './notebook-format.js';

type JsoncModule = typeof import('jsonc-parser');

let jsonc: Promise<JsoncModule> | undefined;

/** jsonc-parser computes minimal text edits of a JSON document, so untouched bytes stay as they were. */
function loadJsonc(): Promise<JsoncModule> {
  jsonc ??= import('jsonc-parser');
  return jsonc;
}

function notebookError(message: string, recovery?: string): ToolhostError {
  return new ToolhostError({ code: 'NOTEBOOK_INVALID', message, ...(recovery ? { recovery } : {}) });
}

function refused(error: ToolhostError): { ok: false; result: ToolResult } {
  return { ok: false, result: errorResult(error) };
}

/** The index a call selects, or why it selects nothing. `undefined` index: no selection given. */
function selectCell(
  notebook: ParsedNotebook,
  args: NotebookEditArguments,
  displayPath: string,
): { ok: true; index: number | undefined } | { ok: false; error: ToolhostError } {
  const count = notebook.cells.length;
  let byId: number | undefined;
  if (args.cell_id !== undefined) {
    byId = notebook.cells.findIndex((cell) => cell.id === args.cell_id);
    if (byId < 0) {
      // Notebooks before nbformat 4.5 have no ids; "cell-N" is the common spelling of a number then.
      const numbered = /^cell-(\d+)$/.exec(args.cell_id);
      const hasIds = notebook.cells.some((cell) => typeof cell.id === 'string');
      if (numbered && !hasIds) byId = Number(numbered[1]);
      else
        return {
          ok: false,
          error: notebookError(
            `${displayPath} has no cell with that cell_id (${count} cells${hasIds ? '' : ', none of them with an id: pass cell_number'})`,
          ),
        };
    }
  }
  const byNumber = args.cell_number;
  if (byNumber !== undefined && byId !== undefined && byNumber !== byId)
    return {
      ok: false,
      error: new ToolhostError({
        code: 'ARGUMENT_VALIDATION',
        message: `cell_id names cell ${byId} but cell_number is ${byNumber}`,
        recovery: 'pass only one of cell_id and cell_number',
      }),
    };
  const index = byId ?? byNumber;
  if (index === undefined) return { ok: true, index: undefined };
  const insert = (args.edit_mode ?? 'replace') === 'insert';
  if (index < (insert ? -1 : 0) || index >= count)
    return {
      ok: false,
      error: notebookError(
        `${displayPath} has ${count} cell${count === 1 ? '' : 's'} (numbers 0-${Math.max(0, count - 1)}); there is no cell ${index}${index === -1 ? ' to replace or delete (-1 only inserts at the start)' : ''}`,
      ),
    };
  return { ok: true, index };
}

/** Where a new key goes in a cell: in sorted position when the cell's keys are sorted (as Jupyter writes them), else at the end. */
function insertionIndexFor(key: string): NonNullable<ModificationOptions['getInsertionIndex']> {
  return (properties) => {
    const sorted = properties.every(
      (name, index) => index === 0 || (properties[index - 1] as string) <= name,
    );
    if (!sorted) return properties.length;
    const at = properties.findIndex((name) => name > key);
    return at < 0 ? properties.length : at;
  };
}

/** The source in the form the notebook uses: the cell's own, else the form most cells use, else nbformat's list form. */
function sourceValue(
  text: string,
  notebook: ParsedNotebook,
  cell: JsonObject | undefined,
): string | string[] {
  const asList = cell
    ? Array.isArray(cell.source)
    : notebook.cells.filter((other) => Array.isArray(other.source)).length * 2 >= notebook.cells.length;
  return asList ? sourceLines(text) : text;
}

interface NotebookChange {
  readonly mode: 'replace' | 'insert' | 'delete';
  /** The cell number after the edit (for delete, the number it had). */
  readonly index: number;
  readonly cellType: NotebookCellType;
  readonly id: string | undefined;
  readonly clearedOutputs: number;
}

/** The body of `notebook_edit` (loaded on its first call, see notebook-edit.ts). */
export function createNotebookEditExecutor(
  options: ResolvedFileToolsOptions,
): (args: NotebookEditArguments, context: ToolCallContext) => Promise<ToolResult> {
  return async (args: NotebookEditArguments, context: ToolCallContext): Promise<ToolResult> => {
    const mode = args.edit_mode ?? 'replace';
    const invalidArgument = (argument: string, message: string, recovery: string) =>
      errorResult(
        new ToolhostError({ code: 'ARGUMENT_VALIDATION', message, recovery, details: { argument } }),
      );
    if (mode !== 'delete' && args.new_source === undefined)
      return invalidArgument(
        'new_source',
        `edit_mode=${mode} needs new_source`,
        'pass the cell source as new_source',
      );
    if (mode === 'insert' && args.cell_type === undefined)
      return invalidArgument(
        'cell_type',
        'edit_mode=insert needs cell_type',
        'pass cell_type code, markdown or raw',
      );
    if (mode !== 'insert' && args.cell_id === undefined && args.cell_number === undefined)
      return invalidArgument(
        'cell_number',
        `edit_mode=${mode} needs the cell: cell_number or cell_id`,
        'read the notebook with read_file to see the cell numbers and ids',
      );
    const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
    if (!target.ok) return errorResult(target.error);
    const { displayPath } = target.value;
    if (!isNotebookPath(target.value.path))
      return invalidArgument(
        'path',
        'notebook_edit edits .ipynb files only',
        'use edit_file for other files',
      );
    const { modify, applyEdits } = await loadJsonc();
    const outcome = await mutateTextFile<NotebookChange>(
      options,
      options.observationsFor(context),
      target.value,
      ({ decoded }) => {
        const text = decoded.text;
        const parsed = parseNotebook(text);
        if (!parsed.ok)
          return refused(notebookError(`${displayPath} is not an nbformat 4 notebook: ${parsed.problem}`));
        const notebook = parsed.value;
        const selected = selectCell(notebook, args, displayPath);
        if (!selected.ok) return refused(selected.error);
        const layout = notebookLayout(text);
        const formattingOptions: FormattingOptions | undefined = layout.indent
          ? { ...layout.indent, eol: layout.eol }
          : undefined;
        let current = text;
        const apply = (
          path: (string | number)[],
          value: unknown,
          extra: Partial<ModificationOptions> = {},
        ) => {
          current = applyEdits(
            current,
            modify(current, path, value, { ...(formattingOptions ? { formattingOptions } : {}), ...extra }),
          );
        };
        let change: NotebookChange;
        if (mode === 'delete') {
          const index = selected.index as number;
          const cell = notebook.cells[index] as JsonObject;
          apply(['cells', index], undefined);
          change = {
            mode,
            index,
            cellType: cell.cell_type as NotebookCellType,
            id: typeof cell.id === 'string' ? cell.id : undefined,
            clearedOutputs: 0,
          };
        } else if (mode === 'insert') {
          const index = selected.index === undefined ? notebook.cells.length : selected.index + 1;
          const type = args.cell_type as NotebookCellType;
          const taken = new Set(notebook.cells.map((cell) => String(cell.id)));
          const id = notebookHasCellIds(notebook) ? newCellId(taken) : undefined;
          // Keys in sorted order, as Jupyter writes them.
          const cell: JsonObject = {
            cell_type: type,
            ...(type === 'code' ? { execution_count: null } : {}),
            ...(id ? { id } : {}),
            metadata: {},
            ...(type === 'code' ? { outputs: [] } : {}),
            source: sourceValue(args.new_source as string, notebook, undefined),
          };
          apply(['cells', index], cell, { isArrayInsertion: true });
          change = { mode, index, cellType: type, id, clearedOutputs: 0 };
        } else {
          const index = selected.index as number;
          const cell = notebook.cells[index] as JsonObject;
          const from = cell.cell_type as NotebookCellType;
          const to = args.cell_type ?? from;
          const outputs = Array.isArray(cell.outputs) ? cell.outputs.length : 0;
          const at = (key: string) => ['cells', index, key];
          apply(at('source'), sourceValue(args.new_source as string, notebook, cell));
          if (to !== from) apply(at('cell_type'), to);
          if (to === 'code') {
            apply(at('execution_count'), null, { getInsertionIndex: insertionIndexFor('execution_count') });
            apply(at('outputs'), [], { getInsertionIndex: insertionIndexFor('outputs') });
            // nbformat's code cells have no attachments.
            if (from !== 'code' && 'attachments' in cell) apply(at('attachments'), undefined);
          } else if (from === 'code') {
            apply(at('outputs'), undefined);
            apply(at('execution_count'), undefined);
          }
          change = {
            mode,
            index,
            cellType: to,
            id: typeof cell.id === 'string' ? cell.id : undefined,
            clearedOutputs: from === 'code' ? outputs : 0,
          };
        }
        // The edit must leave a notebook: checked again on the text that will be written.
        const check = parseNotebook(current);
        if (!check.ok)
          return refused(
            new ToolhostError({
              code: 'EXECUTION_ERROR',
              message: `the edited notebook would not be valid (${check.problem}); nothing was written`,
              recovery: 'report it; edit the notebook another way meanwhile',
            }),
          );
        let prefixLength = 0;
        const shorter = Math.min(text.length, current.length);
        while (prefixLength < shorter && text.charCodeAt(prefixLength) === current.charCodeAt(prefixLength))
          prefixLength++;
        let suffixLength = 0;
        while (
          suffixLength < shorter - prefixLength &&
          text.charCodeAt(text.length - 1 - suffixLength) ===
            current.charCodeAt(current.length - 1 - suffixLength)
        )
          suffixLength++;
        return { ok: true, text: current, report: change, span: { prefixLength, suffixLength } };
      },
    );
    if (!outcome.ok) return outcome.result;
    const change = outcome.report;
    const id = change.id ? ` (id ${change.id})` : '';
    const what =
      change.mode === 'delete'
        ? `deleted ${change.cellType} cell ${change.index}${id}`
        : change.mode === 'insert'
          ? `inserted ${change.cellType} cell ${change.index}${id}`
          : `replaced the source of cell ${change.index}${id}, now ${change.cellType}${change.clearedOutputs > 0 ? `; cleared its ${change.clearedOutputs} output${change.clearedOutputs === 1 ? '' : 's'} and execution count` : ''}`;
    return textResult(
      `${what} in ${displayPath}${outcome.changed ? '' : ' (the file already had this content)'}`,
      {
        path: displayPath,
        mode: change.mode,
        cellNumber: change.index,
        cellType: change.cellType,
        ...(change.id ? { cellId: change.id } : {}),
        clearedOutputs: change.clearedOutputs,
      },
    );
  };
}
