import { closeSync, createReadStream, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** The current size of a log file in bytes (0 when it is missing). */
export function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Reads bytes `[start, end)` of a file (clamped to its size). Synchronous: callers read at most a
 * bounded window (64 KiB by default), which is faster than a stream's set-up.
 */
export function readLogBytes(file: string, start: number, end: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, Math.min(start, size));
    const to = Math.max(from, Math.min(end, size));
    const buffer = Buffer.allocUnsafe(to - from);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, from + filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * What decides which lines a filtered read keeps: anything with `test(line)`. A `RegExp` is one
 * (its `g` and `y` flags are dropped, so `test` keeps no state between lines); a caller that takes
 * patterns from a model should pass a linear-time matcher instead, since this runs on the caller's
 * thread.
 */
export interface LineFilter {
  test(line: string): boolean;
}

/** Options of {@link scanLogLines}. */
export interface ScanLogLinesOptions {
  readonly start: number;
  readonly end: number;
  readonly filter: LineFilter;
  /** Keep at most this many bytes of matching lines (the most recent ones). */
  readonly maxBytes: number;
  /** Longer lines are matched on their first `maxLineBytes` bytes only. Default 64 KiB. */
  readonly maxLineBytes?: number;
}

/** What {@link scanLogLines} found. */
export interface ScanLogLinesResult {
  /** The kept matching lines, each ending in `\n`. */
  readonly text: string;
  readonly matchedLines: number;
  /** Matching lines dropped because the kept text would exceed `maxBytes` (the oldest go first). */
  readonly droppedLines: number;
}

/**
 * Streams bytes `[start, end)` of a log and keeps the lines that match `filter`, with memory bounded
 * by `maxBytes + maxLineBytes` whatever the log's size (a 1 GB line without a newline included).
 */
export async function scanLogLines(file: string, options: ScanLogLinesOptions): Promise<ScanLogLinesResult> {
  const maxLineBytes = options.maxLineBytes ?? 64 * 1024;
  const kept: string[] = [];
  let keptBytes = 0;
  let matchedLines = 0;
  let droppedLines = 0;
  let line: Buffer[] = [];
  let lineBytes = 0;
  const filter =
    options.filter instanceof RegExp
      ? new RegExp(options.filter.source, options.filter.flags.replace(/[gy]/g, ''))
      : options.filter;
  const flush = () => {
    const text = Buffer.concat(line).toString('utf8');
    line = [];
    lineBytes = 0;
    if (!filter.test(text)) return;
    matchedLines += 1;
    const entry = `${text}\n`;
    kept.push(entry);
    keptBytes += Buffer.byteLength(entry);
    while (keptBytes > options.maxBytes && kept.length > 0) {
      keptBytes -= Buffer.byteLength(kept.shift()!);
      droppedLines += 1;
    }
  };
  if (options.end > options.start) {
    const stream = createReadStream(file, {
      start: options.start,
      end: options.end - 1,
      highWaterMark: 256 * 1024,
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (;;) {
        const newline = chunk.indexOf(10, from);
        const piece = chunk.subarray(from, newline < 0 ? chunk.length : newline);
        if (lineBytes < maxLineBytes) {
          const room = piece.subarray(0, maxLineBytes - lineBytes);
          line.push(Buffer.from(room));
          lineBytes += room.length;
        }
        if (newline < 0) break;
        flush();
        from = newline + 1;
      }
    }
    if (lineBytes > 0) flush();
  }
  return { text: kept.join(''), matchedLines, droppedLines };
}
