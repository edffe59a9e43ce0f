import { isUtf8 } from 'node:buffer';
import type { TextWindow, WindowCut } from './read-window.js';

/** Options of {@link WindowScanner}. */
export interface WindowScannerOptions {
  /** Lines to skip before the window. */
  readonly offset: number;
  /** Most lines in the window. */
  readonly limit: number;
  /** A window line longer than this (in bytes, without its terminator) ends the window, or fails as the first. */
  readonly maxLineBytes: number;
  /** The window's text stops before the line that would take it over this many bytes. */
  readonly maxWindowBytes: number;
  /** The line terminator byte: LF (`0x0a`, a CR before it is dropped) or a lone CR (`0x0d`). */
  readonly terminator: number;
  /**
   * Decodes bytes of the scanned stream to text. Called once for the whole window (its lines with
   * their terminators), and once per line only when that text does not split into exactly the
   * window's lines (a legacy decoder that swallowed a terminator byte).
   */
  readonly decode: (bytes: Buffer) => string;
  /**
   * `decode` is UTF-8 decoding (`Buffer#toString('utf8')`), so a window of valid UTF-8 decodes to a
   * text of exactly its byte length and the result can report {@link TextWindow.textBytes}.
   */
  readonly decodesUtf8?: boolean;
  /** Count every line to the end of the stream instead of stopping one line after the window. */
  readonly countToEnd: boolean;
  /** The pushed buffers are never reused, so window bytes can be kept as views instead of copies. */
  readonly stableChunks: boolean;
}

/** What {@link WindowScanner.push} and {@link WindowScanner.end} report. */
export type ScanState = 'continue' | 'window-done' | 'too-long';

/**
 * Splits a byte stream (UTF-8 or an ASCII-compatible legacy encoding, where LF and CR bytes never
 * occur inside a multi-byte character) into lines, keeping only the window's. Hand-written instead of
 * node:readline so lines outside the window are counted with Buffer#indexOf (memchr) and never
 * turned into strings, which is what makes a 1 GB scan fast and small.
 *
 * The window's bytes are kept as they are (views of stable chunks, merged when adjacent; copies of
 * reused ones) with the byte range of every line, and decoded once, as one text, when the result is
 * asked for; the text is then split at the terminator. Decoding line by line cost a `toString` (and
 * a slice and a concat) per line, most of a small read's time. The line limits are decided on bytes
 * while scanning, exactly as before.
 */
export class WindowScanner {
  readonly #options: WindowScannerOptions;
  readonly #windowEnd: number;
  /** The window's bytes so far: the accepted lines with their terminators, then the line in progress. */
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** With stable chunks: the memory of the bytes kept last, not yet a part (see #keep). */
  #open: ArrayBufferLike | undefined;
  #openStart = 0;
  #openEnd = 0;
  /** Per accepted line: where its text starts and ends in the window's bytes (CR of a CRLF excluded). */
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  /** Where the line being scanned starts in the window's bytes. */
  #lineStart = 0;
  /** The last byte of the line being scanned before its terminator (-1: none yet). */
  #lastByte = -1;
  /** 0-based index of the line being scanned. */
  #lineIndex = 0;
  /** Bytes of the line being scanned so far. */
  #pendingBytes = 0;
  #windowBytes = 0;
  #tooLong = false;
  #firstLineTooLong = false;
  /** The window is complete (full, or cut by a limit). */
  #done = false;
  #cut: WindowCut | undefined;
  /** A line after the window is known to exist. */
  #seenAfterWindow = false;

  constructor(options: WindowScannerOptions) {
    this.#options = options;
    this.#windowEnd = options.offset + options.limit;
  }

  #collecting(): boolean {
    return !this.#done && this.#lineIndex >= this.#options.offset;
  }

  /** Scans the next bytes of the stream. */
  push(data: Buffer): ScanState {
    let position = 0;
    const { terminator, maxLineBytes } = this.#options;
    while (position < data.length) {
      if (this.#done) {
        this.#seenAfterWindow = true;
        if (!this.#options.countToEnd) return 'window-done';
        this.#count(data.subarray(position));
        return 'continue';
      }
      const index = data.indexOf(terminator, position);
      const end = index === -1 ? data.length : index;
      if (this.#collecting() && !this.#tooLong) {
        const lineBytes = this.#pendingBytes + end - position;
        // One byte of slack for the CR of a CRLF; the exact length is checked when the line ends.
        if (lineBytes > maxLineBytes + 1) this.#rejectLongLine();
        else {
          if (end > position) this.#lastByte = data[end - 1]!;
          // The terminator goes with the line: the window is decoded as one text and split at it.
          const stop = index === -1 ? end : index + 1;
          if (stop > position) this.#keep(data, position, stop);
        }
        if (this.#firstLineTooLong) return 'too-long';
      }
      this.#pendingBytes += end - position;
      if (index === -1) break;
      this.#finishLine();
      if (this.#firstLineTooLong) return 'too-long';
      position = index + 1;
    }
    return this.#done && !this.#options.countToEnd && this.#seenAfterWindow ? 'window-done' : 'continue';
  }

  /** Called at end of stream: the last line may lack a terminator. */
  end(): ScanState {
    if (this.#pendingBytes > 0) {
      if (this.#done) this.#lineIndex++;
      else this.#finishLine();
    }
    return this.#firstLineTooLong ? 'too-long' : 'continue';
  }

  /** The window's lines (decoded now, once) and what is known about the rest of the stream. */
  result(complete: boolean): Pick<TextWindow, 'lines' | 'totalLines' | 'hasMore' | 'cut' | 'textBytes'> {
    this.#textBytes = undefined;
    const lines = this.#decodeLines();
    const shownEnd = this.#options.offset + lines.length;
    const totalLines = complete ? this.#lineIndex : undefined;
    const hasMore =
      this.#cut !== undefined || (totalLines !== undefined ? totalLines > shownEnd : this.#seenAfterWindow);
    return { lines, totalLines, hasMore, cut: this.#cut, textBytes: this.#textBytes };
  }

  /** Set by #decodeLines when the lines' UTF-8 byte count is known exactly. */
  #textBytes: number | undefined;

  #decodeLines(): string[] {
    const count = this.#starts.length;
    if (count === 0) {
      this.#textBytes = 0;
      return [];
    }
    const last = this.#ends[count - 1]!;
    this.#closeOpen();
    let bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#partsBytes);
    this.#parts = [bytes];
    // Up to the last line's own end: neither its CR nor its terminator.
    bytes = bytes.subarray(0, last);
    const lf = this.#options.terminator === 0x0a;
    const lines = this.#options.decode(bytes).split(lf ? '\n' : '\r');
    if (lines.length === count) {
      // The terminators between the lines are dropped, and each CR of a CRLF below.
      let dropped = count - 1;
      if (lf) {
        // A CRLF line's CR; the last line was already cut before it.
        for (let index = 0; index < count - 1; index += 1) {
          const line = lines[index]!;
          if (line.charCodeAt(line.length - 1) === 0x0d) {
            lines[index] = line.slice(0, -1);
            dropped += 1;
          }
        }
      }
      // Valid UTF-8 decodes to a text of exactly its bytes (anything else may gain U+FFFD bytes):
      // the lines' byte count comes free, and a reader's result need not be counted again.
      if (this.#options.decodesUtf8 && isUtf8(bytes)) this.#textBytes = bytes.length - dropped;
      return lines;
    }
    // The one text did not split into the window's lines: decode each line's bytes on its own.
    const whole = this.#parts[0]!;
    const decoded: string[] = new Array(count);
    for (let index = 0; index < count; index += 1)
      decoded[index] = this.#options.decode(whole.subarray(this.#starts[index]!, this.#ends[index]!));
    return decoded;
  }

  /** Adds `data[start, end)`, bytes of the line being scanned, to the window. */
  #keep(data: Buffer, start: number, end: number): void {
    this.#partsBytes += end - start;
    if (!this.#options.stableChunks) {
      this.#parts.push(Buffer.from(data.subarray(start, end)));
      return;
    }
    // Stable chunks (views of the whole small file) are kept as one open range of their memory,
    // grown while the bytes are adjacent: no view, no copy per line.
    const from = data.byteOffset + start;
    if (this.#open !== undefined && this.#open === data.buffer && this.#openEnd === from) {
      this.#openEnd += end - start;
      return;
    }
    this.#closeOpen();
    this.#open = data.buffer;
    this.#openStart = from;
    this.#openEnd = from + end - start;
  }

  /** Turns the open range into a part. */
  #closeOpen(): void {
    if (this.#open === undefined) return;
    this.#parts.push(Buffer.from(this.#open, this.#openStart, this.#openEnd - this.#openStart));
    this.#open = undefined;
  }

  /** Drops the bytes of the line being scanned from the window (it does not go in). */
  #dropLine(): void {
    this.#closeOpen();
    let excess = this.#partsBytes - this.#lineStart;
    while (excess > 0) {
      const last = this.#parts.at(-1)!;
      if (last.length <= excess) {
        this.#parts.pop();
        excess -= last.length;
      } else {
        this.#parts[this.#parts.length - 1] = last.subarray(0, last.length - excess);
        excess = 0;
      }
    }
    this.#partsBytes = this.#lineStart;
  }

  /** Counts the lines in bytes after the window without making strings. */
  #count(data: Buffer): void {
    const terminator = this.#options.terminator;
    let position = 0;
    for (let index = data.indexOf(terminator); index !== -1; ) {
      this.#lineIndex++;
      position = index + 1;
      index = data.indexOf(terminator, position);
    }
    this.#pendingBytes = position === 0 ? this.#pendingBytes + data.length : data.length - position;
  }

  #rejectLongLine(): void {
    this.#tooLong = true;
    this.#dropLine();
    if (this.#starts.length === 0) this.#firstLineTooLong = true;
    else this.#stopAt('long-line');
  }

  #stopAt(reason: WindowCut['reason']): void {
    this.#done = true;
    this.#cut = { reason, nextOffset: this.#lineIndex };
    this.#dropLine();
    // The line that did not fit exists, so a line follows the window.
    this.#seenAfterWindow = true;
  }

  #finishLine(): void {
    if (this.#collecting() && !this.#tooLong) {
      let length = this.#pendingBytes;
      if (this.#options.terminator === 0x0a && length > 0 && this.#lastByte === 0x0d) length -= 1;
      if (length > this.#options.maxLineBytes) this.#rejectLongLine();
      else if (this.#starts.length > 0 && this.#windowBytes + length > this.#options.maxWindowBytes)
        this.#stopAt('window-bytes');
      else {
        this.#windowBytes += length;
        this.#starts.push(this.#lineStart);
        this.#ends.push(this.#lineStart + length);
      }
    }
    this.#lineStart = this.#partsBytes;
    this.#lastByte = -1;
    this.#tooLong = false;
    this.#pendingBytes = 0;
    this.#lineIndex++;
    if (!this.#done && this.#lineIndex >= this.#windowEnd) this.#done = true;
  }
}
