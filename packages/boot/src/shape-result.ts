import {
  errorMessage,
  type ResultShape,
  ToolhostError,
  utf8BoundaryAfter,
  utf8BoundaryBefore,
} from '@toolhost/contracts';

/** The model sees at most this many UTF-8 bytes of one result's text. */
export const MAX_MODEL_RESULT_BYTES = 32 * 1024;

/** Where full bodies of truncated results are kept (the capability proxy's result store fits). */
export interface ResultStore {
  put(entry: {
    readonly callId: string;
    readonly toolName: string;
    readonly body: string;
  }): Promise<StoredResult> | StoredResult;
}

/** What the store answers for a kept body. */
export interface StoredResult {
  readonly resultRef: string;
  readonly totalBytes: number;
  readonly sha256: string;
}

/** Head and tail byte budgets per result shape (BT-SHAPE-2 in REQUIREMENTS.md). `read` keeps a prefix only. */
export const RESULT_BUDGETS: Readonly<Record<ResultShape, { readonly head: number; readonly tail: number }>> =
  {
    shell: { head: 8000, tail: 8000 },
    read: { head: 14000, tail: 0 },
    search: { head: 10000, tail: 1000 },
    default: { head: 12000, tail: 2000 },
  };

/** Options of {@link shapeResultText}. */
export interface ShapeResultOptions {
  readonly text: string;
  readonly shape: ResultShape;
  /** A failed call: the tail gets at least a third of the budget (a failure's cause is usually at the end). */
  readonly failed: boolean;
  readonly callId: string;
  readonly toolName: string;
  /** Keeps the full body; without one the marker says it could not be kept. */
  readonly store?: ResultStore | undefined;
  /** Default {@link MAX_MODEL_RESULT_BYTES}; only lower it in tests. */
  readonly maxBytes?: number;
  /**
   * The exact UTF-8 byte length of `text`, when the tool counted it (contracts' `knownTextBytes`);
   * it is then not counted again. Must equal `Buffer.byteLength(text, 'utf8')`.
   */
  readonly textBytes?: number | undefined;
}

/** A result's text as the model will see it. */
export interface ShapedResultText {
  readonly text: string;
  readonly truncated: boolean;
  /** Set when the full body was kept. */
  readonly resultRef: string | null;
  readonly originalBytes: number;
  /** Bytes of the original body the model sees (head plus tail, marker excluded). */
  readonly keptBytes: number;
  /** For `read`: the `offset` to pass to read_file to continue after the kept prefix. */
  readonly nextOffset?: number;
  /** Set when keeping the body failed; the marker then says so. */
  readonly storeError?: string;
}

const PAGE_LIMIT = 16384;

/**
 * Shapes one result for the model. A text of at most `maxBytes` (32 KiB) passes byte-identical;
 * a longer one is cut to a head and a tail by the shape's budget (shell 8000/8000, search
 * 10000/1000, default 12000/2000; `read` keeps a line-bounded prefix and reports `next_offset`), cut
 * on UTF-8 character boundaries and preferably at line ends, with a marker between them that names
 * the tool, call id, `result_ref`, original and kept byte counts and the exact
 * `use_capability(action="call", capability_id="session:tool_result", ...)` recipe. The whole body is
 * put in the store first, so nothing the tool produced is lost. The result never exceeds `maxBytes`.
 */
export async function shapeResultText(options: ShapeResultOptions): Promise<ShapedResultText> {
  return shapeFittingText(options) ?? shapeLongText(options);
}

/**
 * The synchronous part of {@link shapeResultText}: the shaped result of a text that fits (passed
 * as it is), or `undefined` for one that must be cut (kept in the store first, asynchronously).
 * Most results fit, and the pipeline takes them without a turn of the microtask queue.
 */
export function shapeFittingText(options: ShapeResultOptions): ShapedResultText | undefined {
  const maxBytes = options.maxBytes ?? MAX_MODEL_RESULT_BYTES;
  const { text } = options;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a text that short fits whatever it holds, and its
  // byte count (a scan of the whole text, a measurable part of a small call: issue 25) is taken
  // only if someone reads it (the audit, when it is on).
  if (options.textBytes === undefined && text.length * 3 <= maxBytes) return new UntouchedText(text);
  // Most results are small: count their bytes without copying them (unless the tool counted them).
  const size = options.textBytes ?? Buffer.byteLength(text, 'utf8');
  if (size <= maxBytes) {
    return { text, truncated: false, resultRef: null, originalBytes: size, keptBytes: size };
  }
  return undefined;
}

/** {@link shapeResultText} of a text {@link shapeFittingText} found too long: stored, then cut. */
export async function shapeLongText(options: ShapeResultOptions): Promise<ShapedResultText> {
  const maxBytes = options.maxBytes ?? MAX_MODEL_RESULT_BYTES;
  const bytes = Buffer.from(options.text, 'utf8');
  let stored: StoredResult | undefined;
  let storeError: string | undefined;
  let storeFailure: string | undefined;
  if (options.store) {
    try {
      stored = await options.store.put({
        callId: options.callId,
        toolName: options.toolName,
        body: options.text,
      });
    } catch (error) {
      storeError = errorMessage(error);
      // A toolhost error (DISK_FULL from a full disk or the stored-results budget) is named in the marker.
      storeFailure = ToolhostError.isInstance(error) ? error.toModelText() : undefined;
    }
  } else {
    storeError = 'no result store is configured';
  }
  const shaping = storeFailure === undefined ? options : { ...options, storeFailure };
  const shaped =
    options.shape === 'read'
      ? cutPrefix(bytes, shaping, stored, maxBytes)
      : cutHeadTail(bytes, shaping, stored, maxBytes);
  return storeError === undefined ? shaped : { ...shaped, storeError };
}

/**
 * A text that passes as it is, its byte count taken on first read (a class: an object literal with
 * getters is slow to create, and this is made on every small call).
 */
class UntouchedText implements ShapedResultText {
  readonly truncated = false;
  readonly resultRef = null;
  #size: number | undefined;

  constructor(readonly text: string) {}

  get originalBytes(): number {
    this.#size ??= Buffer.byteLength(this.text, 'utf8');
    return this.#size;
  }

  get keptBytes(): number {
    return this.originalBytes;
  }
}

function budgetsFor(shape: ResultShape, failed: boolean, maxBytes: number): { head: number; tail: number } {
  const base = RESULT_BUDGETS[shape];
  let { head, tail } = base;
  const total = head + tail;
  if (failed && tail < total / 3) {
    tail = Math.ceil(total / 3);
    head = total - tail;
  }
  // Leave room for the marker (at most ~1 KiB) under a lowered cap.
  const room = Math.max(256, maxBytes - 1200);
  if (head + tail > room) {
    const scale = room / (head + tail);
    head = Math.floor(head * scale);
    tail = Math.floor(tail * scale);
  }
  return { head, tail };
}

function cutHeadTail(
  bytes: Buffer,
  options: ShapeResultOptions,
  stored: StoredResult | undefined,
  maxBytes: number,
): ShapedResultText {
  let { head, tail } = budgetsFor(options.shape, options.failed, maxBytes);
  let text = '';
  let kept = 0;
  // The budgets leave room for the marker; the loop only matters for odd inputs (huge ids).
  for (let pass = 0; pass < 4; pass++) {
    const headEnd = preferLineEnd(bytes, utf8BoundaryBefore(bytes, head), 0.75);
    const tailFrom = utf8BoundaryAfter(bytes, bytes.length - tail);
    const tailStart = Math.max(headEnd, preferLineStart(bytes, tailFrom, bytes.length));
    kept = headEnd + (bytes.length - tailStart);
    const marker = truncationMarker({
      options,
      stored,
      originalBytes: bytes.length,
      keptBytes: kept,
      omittedFrom: headEnd,
      omittedTo: tailStart,
    });
    text = `${bytes.subarray(0, headEnd).toString('utf8')}${marker}${bytes.subarray(tailStart).toString('utf8')}`;
    const over = Buffer.byteLength(text) - maxBytes;
    if (over <= 0) break;
    head = Math.max(0, head - Math.ceil(over / 2) - 64);
    tail = Math.max(0, tail - Math.ceil(over / 2) - 64);
  }
  return {
    text,
    truncated: true,
    resultRef: stored?.resultRef ?? null,
    originalBytes: bytes.length,
    keptBytes: kept,
  };
}

function cutPrefix(
  bytes: Buffer,
  options: ShapeResultOptions,
  stored: StoredResult | undefined,
  maxBytes: number,
): ShapedResultText {
  let budget = budgetsFor('read', false, maxBytes).head;
  // The marker names the last kept line, so it is rebuilt until prefix + marker fit (at most 4 passes).
  let text = '';
  let end = 0;
  let nextOffset: number | undefined;
  for (let pass = 0; pass < 4; pass++) {
    end = lineEndBefore(bytes, budget);
    const prefix = bytes.subarray(0, end).toString('utf8');
    nextOffset = lastLineNumber(prefix);
    const marker = readMarker({ options, stored, originalBytes: bytes.length, keptBytes: end, nextOffset });
    text = prefix + marker;
    const size = Buffer.byteLength(text);
    if (size <= maxBytes) break;
    budget -= size - maxBytes + 64;
  }
  return {
    text,
    truncated: true,
    resultRef: stored?.resultRef ?? null,
    originalBytes: bytes.length,
    keptBytes: end,
    ...(nextOffset === undefined ? {} : { nextOffset }),
  };
}

interface MarkerInput {
  readonly options: ShapeResultOptions;
  readonly stored: StoredResult | undefined;
  readonly originalBytes: number;
  readonly keptBytes: number;
}

function recipe(
  callId: string,
  stored: StoredResult | undefined,
  offset: number,
  storeFailure?: string | undefined,
): string {
  if (!stored) {
    const why = storeFailure === undefined ? '' : ` (${boundedField(storeFailure, 300)})`;
    return `The full original could not be kept${why}; re-run the original tool with narrower arguments.`;
  }
  const args = JSON.stringify({
    tool_call_id: callId,
    result_ref: stored.resultRef,
    offset,
    limit: PAGE_LIMIT,
  });
  return `The full original is kept locally (sha256 ${stored.sha256}). Read it by UTF-8 byte offset with use_capability(action="call", capability_id="session:tool_result", arguments=${args}), following next_offset until complete is true. If use_capability is unavailable, re-run the original tool with narrower arguments.`;
}

function truncationMarker(
  input: MarkerInput & { readonly omittedFrom: number; readonly omittedTo: number },
): string {
  const { options, stored } = input;
  const callId = markerCallId(options.callId);
  return `\n\n[output truncated by the host: tool=${boundedField(options.toolName)} call_id=${callId.shown} result_ref=${stored?.resultRef ?? 'none'} original_bytes=${input.originalBytes} kept_bytes=${input.keptBytes}; bytes ${input.omittedFrom}..${input.omittedTo} are omitted here. ${recipe(callId.exact, stored, input.omittedFrom, (options as ShapingOptions).storeFailure)}]\n\n`;
}

function readMarker(input: MarkerInput & { readonly nextOffset: number | undefined }): string {
  const { options, stored } = input;
  const callId = markerCallId(options.callId);
  const resume =
    input.nextOffset === undefined
      ? 'Continue by calling read_file again with a larger offset.'
      : `Continue with read_file offset=${input.nextOffset} (next_offset=${input.nextOffset}).`;
  return `\n[INCOMPLETE READ: the host cut this window at a line boundary to fit the result limit: tool=${boundedField(options.toolName)} call_id=${callId.shown} result_ref=${stored?.resultRef ?? 'none'} original_bytes=${input.originalBytes} kept_bytes=${input.keptBytes}. Lines after the last one shown were not read into context. ${resume} ${recipe(callId.exact, stored, input.keptBytes, (options as ShapingOptions).storeFailure)}]`;
}

/** Fields in the marker are bounded to 128 bytes; a call id over 256 characters is replaced by a placeholder. */
function markerCallId(callId: string): { shown: string; exact: string } {
  if (Buffer.byteLength(callId) > 256)
    return { shown: '(call id too long to show)', exact: '(call id too long to show)' };
  return { shown: boundedField(callId), exact: callId };
}

function boundedField(text: string, maxBytes = 128): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  return `${bytes.subarray(0, utf8BoundaryBefore(bytes, maxBytes - 3)).toString('utf8')}...`;
}

/** The shaping options plus why the store refused the body (its model text), when it did. */
type ShapingOptions = ShapeResultOptions & { readonly storeFailure?: string };

/** Moves a head cut back to just after a newline when one is in the last quarter of the head. */
function preferLineEnd(bytes: Buffer, end: number, keep: number): number {
  const newline = bytes.lastIndexOf(0x0a, end - 1);
  return newline >= 0 && newline + 1 >= end * keep ? newline + 1 : end;
}

/** Moves a tail cut forward to just after a newline when one is near (within a quarter of the tail). */
function preferLineStart(bytes: Buffer, start: number, length: number): number {
  if (start > 0 && bytes[start - 1] === 0x0a) return start;
  const newline = bytes.indexOf(0x0a, start);
  return newline >= 0 && newline + 1 - start <= (length - start) / 4 ? newline + 1 : start;
}

/** The end of the last complete line within `budget` bytes (a too-long first line is cut on a character). */
function lineEndBefore(bytes: Buffer, budget: number): number {
  const limit = Math.min(Math.max(budget, 0), bytes.length);
  const newline = bytes.lastIndexOf(0x0a, limit - 1);
  return newline >= 0 ? newline + 1 : utf8BoundaryBefore(bytes, limit);
}

/** The line number of the last numbered line (`  12→text`, `12\ttext`, `12: text`, `12| text`). */
function lastLineNumber(prefix: string): number | undefined {
  const lines = prefix.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const match = /^\s*(\d+)(?:→|\t|: |\| )/.exec(lines[index] as string);
    if (match) return Number(match[1]);
  }
  return undefined;
}
