import {
  type AnyToolDefinition,
  defineTool,
  errorResult,
  textResult,
  textResultOfLength,
  type ToolCallContext,
  ToolhostError,
} from '@toolhost/contracts';
import { describeVersion, observeWindow, type TextWindow } from '@toolhost/read-evidence';
import type { ReadFileArguments } from './file-arguments.js';
import { evidenceError } from './file-errors.js';
import { pinCheck, pinFilePath, resolveFilePath } from './file-mutation.js';
import { isNotebookPath } from './notebook-path.js';
import { readFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';

const DESCRIPTION = [
  'Read a bounded window of a text file, with 1-based line numbers ("  12→text"). Reading any window, even one line, observes the file\'s current version, which write_file, edit_file, multi_edit, delete_range and move_file require before they modify it; you do not need to read the whole file.',
  'offset is the number of lines to skip (offset=10 starts at line 11); limit defaults to 2000 lines. When more lines follow, a PARTIAL trailer names the offset to continue from. Binary files are refused.',
  'A Jupyter notebook (.ipynb) is shown as its cells, with their numbers, ids, types and a summary of their outputs; edit it with notebook_edit.',
  'Issue independent reads in the same turn.',
].join('\n');

const CURSOR_FORM = /^\s*(?:offset\s*=\s*)?(\d+)\s*$/;

/**
 * `lines` numbered from `first`, right-aligned to `width`, joined by LF. The padding is one of a few
 * prepared strings picked by the number's digit count (which only grows, so it is tracked instead of
 * computed), and the number is appended as is: no `String()`, `padStart` or iterator per line, which
 * was about a third of a small read's formatting time.
 */
function numberLines(lines: readonly string[], first: number, width: number): string {
  const pads: string[] = [];
  for (let digits = 0; digits <= width; digits += 1) pads.push(' '.repeat(width - digits));
  let number = first;
  let digits = String(first).length;
  let nextPower = 10 ** digits;
  let body = '';
  for (let index = 0; index < lines.length; index += 1, number += 1) {
    if (number >= nextPower) {
      digits += 1;
      nextPower *= 10;
    }
    body += `${index === 0 ? '' : '\n'}${pads[digits]}${number}→${lines[index]}`;
  }
  return body;
}

/** The formatted model text of a window (numbers right-aligned to the widest shown, then "→"). */
export function formatReadWindow(
  window: TextWindow,
  displayPath: string,
  notes: readonly string[] = [],
): string {
  return formatWindow(window, displayPath, notes).text;
}

/**
 * What the read polls to stop: the host's `stopped` when it gives one (no AbortSignal is made for a
 * read that is never stopped: a few µs of every small read), else the signal.
 */
function stopCheck(context: ToolCallContext): Pick<AbortSignal, 'aborted'> {
  if (!('stopped' in context)) return context.signal;
  return {
    get aborted() {
      return context.stopped === true;
    },
  };
}

/** The UTF-8 bytes of "→", the separator after each line number. */
const ARROW_BYTES = 3;

/**
 * {@link formatReadWindow}, with the text's exact UTF-8 byte count when the window's is known
 * (`TextWindow.textBytes`): every numbered line adds its ASCII number padded to `width` and the
 * arrow, lines and parts are joined by one LF, and the notes and trailer are counted (they are short).
 */
function formatWindow(
  window: TextWindow,
  displayPath: string,
  notes: readonly string[],
): { readonly text: string; readonly bytes: number | undefined } {
  const { lines, offset } = window;
  const out: string[] = [...notes];
  if (lines.length === 0) {
    if (window.totalLines === 0 || (window.totalLines === undefined && !window.hasMore))
      out.push('(empty file)');
    else
      out.push(
        `(offset ${offset} is past EOF — ${displayPath} has ${window.totalLines ?? 'fewer'} line${window.totalLines === 1 ? '' : 's'})`,
      );
    return { text: out.join('\n'), bytes: undefined };
  }
  const last = offset + lines.length;
  const width = String(last).length;
  out.push(numberLines(lines, offset + 1, width));
  const numbered = out.length - 1;
  if (window.cut?.reason === 'window-bytes')
    out.push(
      `[read_file local safety page: the window reached its byte limit after line ${last}; pass offset=${window.cut.nextOffset} to continue.]`,
    );
  else if (window.cut?.reason === 'long-line')
    out.push(
      `[line ${window.cut.nextOffset + 1} is longer than the line limit, so the window stops before it; pass offset=${window.cut.nextOffset + 1} to skip it, or inspect it with a command.]`,
    );
  else if (window.hasMore) {
    const of = window.totalLines === undefined ? `at least ${last + 1}` : String(window.totalLines);
    out.push(
      `[PARTIAL view: showing lines ${offset + 1}-${last} of ${of}; pass offset=${last} to continue. A partial window may be sufficient for local work.]`,
    );
  }
  const text = out.join('\n');
  if (window.textBytes === undefined) return { text, bytes: undefined };
  let bytes = window.textBytes + lines.length * (width + ARROW_BYTES) + (lines.length - 1) + (out.length - 1);
  for (let index = 0; index < out.length; index += 1)
    if (index !== numbered) bytes += Buffer.byteLength(out[index] as string, 'utf8');
  return { text, bytes };
}

/**
 * Creates `read_file`: a bounded window of a text file that records the agent's observation of the
 * file's version (READ-1..READ-6 in REQUIREMENTS.md) through read-evidence's `observeWindow` (RE-24),
 * which reads, applies the limits and records. Read access through the path policy; a missing file
 * records "absent" and is `FS_NOT_FOUND`; a file that changes while it is read is `FS_STALE_VERSION`
 * and records nothing. Parallel and abortable.
 */
export function createReadFileTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  const { limits } = options;
  return defineTool({
    name: 'read_file',
    source: 'builtin',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: limits.readTimeoutMs, abortable: true },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    resultShape: 'read',
    modelTool: { name: 'read_file', description: DESCRIPTION, inputSchema: readFileArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'read' }],
      subject: (args) => args.path,
      preview: (args) => `read_file ${args.path}`,
    },
    async execute(args: ReadFileArguments, context) {
      const notes: string[] = [];
      let offset = args.offset;
      if (offset === undefined && args.cursor !== undefined) {
        const parsed = CURSOR_FORM.exec(args.cursor);
        if (parsed) offset = Number(parsed[1]);
        else notes.push('(cursor ignored: it is not a line offset; pass offset instead)');
      }
      if (args.intent === 'range' && offset === undefined && args.limit === undefined)
        return errorResult(
          new ToolhostError({
            code: 'ARGUMENT_VALIDATION',
            message: 'intent=range requires an explicit offset or limit',
            recovery: 'pass offset and/or limit, or omit intent to read from the top',
          }),
        );
      const target = resolveFilePath(options.pathPolicy, args.path, 'read', 'path', context.resolvedPaths);
      if (!target.ok) return errorResult(target.error);
      const { path, displayPath } = target.value;
      const store = options.observationsFor(context);
      // The directory is pinned: the read happens in it whatever is swapped meanwhile, and the pin is
      // confirmed after the read, before any byte is shown or recorded.
      const pinned = pinFilePath(options.pathPolicy, target.value, 'read', 'path');
      if (!pinned.ok) {
        if (pinned.error.code === 'FS_NOT_FOUND') store.recordAbsent(path);
        return errorResult(pinned.error);
      }
      const pin = pinned.value;
      let window: Awaited<ReturnType<typeof observeWindow>>;
      try {
        if (isNotebookPath(path)) {
          // A notebook is shown as its cells (numbers, ids, outputs summarised), not as JSON; the
          // rendering code loads on the first notebook read. It reads through the same pin.
          const { readNotebookWindow } = await import('./notebook-read.js');
          const notebook = await readNotebookWindow(options, store, target.value, {
            offset: offset ?? 0,
            limit: args.limit ?? limits.defaultReadLines,
            readPath: pin.path,
            confirm: pinCheck(pin),
          });
          if (notebook) return notebook;
        }
        // Read through the pin, confirmed after the read; recorded (or recorded absent) only then.
        window = await observeWindow(store, path, {
          readPath: pin.path,
          confirm: pinCheck(pin),
          offset: offset ?? 0,
          limit: args.limit ?? limits.defaultReadLines,
          maxLineBytes: limits.maxLineBytes,
          maxWindowBytes: limits.maxPageBytes,
          signal: stopCheck(context),
          displayPath: target.value.messageName,
        });
      } finally {
        pin.close();
      }
      if (!window.ok) return errorResult(evidenceError(window.error));
      const value = window.value;
      const shown = value.lines.length;
      const formatted = formatWindow(value, displayPath, notes);
      const details = {
        path: displayPath,
        offset: value.offset,
        lines: shown,
        startLine: shown > 0 ? value.offset + 1 : null,
        endLine: shown > 0 ? value.offset + shown : null,
        totalLines: value.totalLines ?? null,
        hasMore: value.hasMore,
        nextOffset: value.cut ? value.cut.nextOffset : value.hasMore ? value.offset + shown : null,
        encoding: value.encoding.name,
        bom: value.encoding.bom,
        version: describeVersion(value.version),
      };
      // The byte count comes with the text (read_file counted the bytes it read), so the host's
      // result shaper does not count a large window again.
      return formatted.bytes === undefined
        ? textResult(formatted.text, details)
        : textResultOfLength(formatted.text, formatted.bytes, details);
    },
  });
}
