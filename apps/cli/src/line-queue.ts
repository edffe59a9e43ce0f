import type { Readable } from 'node:stream';
import { createJsonRpcIdScanner, type JsonRpcId, type JsonRpcIdScanner } from './json-rpc-limits.js';

const MAX_QUEUED_LINES = 256;

function sizeOf(line: QueuedLine): number {
  return line.kind === 'line' ? line.text.length : 0;
}

/** One input line, or the marker of a line that was too long to read. */
export type QueuedLine =
  | { readonly kind: 'line'; readonly text: string }
  /** The line was longer than the limit and was skipped; `id` is its top-level `"id"` when found. */
  | { readonly kind: 'too-long'; readonly id: JsonRpcId };

/** Lines read ahead from a stream, bounded per line, taken one at a time. */
export interface LineQueue {
  /** The next line, or `undefined` once the input ended (or the queue was closed) and every line was taken. */
  next(): Promise<QueuedLine | undefined>;
  /** Resolves when the input has ended (or the queue was closed). */
  readonly ended: Promise<void>;
  /** Stops reading. Lines already read are still returned by `next`. */
  close(): void;
}

/**
 * Reads `stream` ahead into a queue of lines (LF, a trailing CR kept for the caller), so the caller
 * can see the end of input while it is still busy with an earlier line. A line longer than
 * `maxLineBytes` is never held: its bytes are scanned for a top-level `"id"` and dropped, and a
 * `too-long` marker takes its place. Lines are assembled from a chunk list (one copy per line); at
 * most 256 lines (or four times `maxLineBytes`) wait in the queue before the stream is paused, so
 * unlike `readline` memory stays bounded whatever the input.
 */
export function createLineQueue(stream: Readable, maxLineBytes: number): LineQueue {
  const lines: QueuedLine[] = [];
  let queuedBytes = 0;
  let paused = false;
  const waiting: ((line: QueuedLine | undefined) => void)[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping: JsonRpcIdScanner | undefined;
  let done = false;
  let markEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });

  function push(line: QueuedLine): void {
    const waiter = waiting.shift();
    if (waiter) {
      waiter(line);
      return;
    }
    lines.push(line);
    queuedBytes += sizeOf(line);
    // Backpressure: a driver far ahead of the host waits in its pipe, not in this process's memory.
    if (!paused && !done && (lines.length >= MAX_QUEUED_LINES || queuedBytes >= maxLineBytes * 4)) {
      paused = true;
      stream.pause();
    }
  }

  function take(): QueuedLine | undefined {
    const line = lines.shift();
    if (line === undefined) return undefined;
    queuedBytes -= sizeOf(line);
    if (paused && !done && lines.length < MAX_QUEUED_LINES / 2 && queuedBytes < maxLineBytes * 2) {
      paused = false;
      stream.resume();
    }
    return line;
  }

  function onData(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(10, start);
      const end = newline === -1 ? bytes.length : newline;
      const piece = bytes.subarray(start, end);
      if (skipping) skipping.feed(piece);
      else if (pendingBytes + piece.length > maxLineBytes) {
        skipping = createJsonRpcIdScanner();
        for (const part of pending) skipping.feed(part);
        skipping.feed(piece);
        pending = [];
        pendingBytes = 0;
      } else if (piece.length > 0) {
        pending.push(piece);
        pendingBytes += piece.length;
      }
      if (newline === -1) return;
      start = newline + 1;
      if (skipping) {
        push({ kind: 'too-long', id: skipping.id() });
        skipping = undefined;
        continue;
      }
      push({
        kind: 'line',
        text: (pending.length === 1 ? pending[0]! : Buffer.concat(pending)).toString('utf8'),
      });
      pending = [];
      pendingBytes = 0;
    }
  }

  function finish(): void {
    if (done) return;
    done = true;
    stream.off('data', onData);
    stream.off('end', finish);
    stream.off('close', finish);
    stream.off('error', finish);
    // A last line without a newline still counts.
    if (skipping) push({ kind: 'too-long', id: skipping.id() });
    else if (pendingBytes > 0) push({ kind: 'line', text: Buffer.concat(pending).toString('utf8') });
    skipping = undefined;
    pending = [];
    pendingBytes = 0;
    for (const waiter of waiting.splice(0)) waiter(undefined);
    markEnded();
  }

  stream.on('data', onData);
  stream.once('end', finish);
  stream.once('close', finish);
  stream.once('error', finish);

  return {
    next() {
      const line = take();
      if (line !== undefined) return Promise.resolve(line);
      if (done) return Promise.resolve(undefined);
      return new Promise((resolve) => waiting.push(resolve));
    },
    ended,
    close() {
      if (done) return;
      stream.pause();
      finish();
    },
  };
}
