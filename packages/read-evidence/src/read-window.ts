import { createHash } from 'node:crypto';
import { type EvidenceResult, evidenceFailure, fsErrorToEvidence } from './errors.js';
import {
  DEFAULT_CONTENT_LIMIT,
  DEFAULT_HASH_LIMIT,
  type FileVersion,
  fileVersionOf,
  sha256Of,
} from './file-version.js';
import { DEFAULT_SYNC_READ_LIMIT, readSmallFileSync } from './read-small-file.js';
import { confirmUnchangedWhileRead, openRegularFile } from './read-snapshot.js';
import {
  bomLength,
  detectTextEncoding,
  ENCODING_SAMPLE_BYTES,
  iconv,
  type TextEncoding,
} from './text-codec.js';
import { WindowScanner } from './window-scanner.js';

/** Default number of lines in a window (2000). */
export const DEFAULT_WINDOW_LINES = 2000;
/** Default limit for one line inside a window (1 MiB of its encoded bytes). */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
/** Default limit for the text of one window (8 MiB). */
export const DEFAULT_MAX_WINDOW_BYTES = 8 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;
/** The streaming path's read buffer: chunks of this size, fewer bytes only at the end of the file. */
const CHUNK_BUFFER_BYTES = Math.max(CHUNK_BYTES, ENCODING_SAMPLE_BYTES);

/** Options of {@link readTextWindow}. */
export interface ReadTextWindowOptions {
  /** Lines to skip before the window. Default 0. */
  readonly offset?: number;
  /** Most lines in the window. Default 2000. */
  readonly limit?: number;
  /** A line in the window longer than this (in bytes) ends the window before it, or fails as the first line. Default 1 MiB. */
  readonly maxLineBytes?: number;
  /** The window's text stops before the line that would make it longer than this (in bytes). Default 8 MiB. */
  readonly maxWindowBytes?: number;
  /** Files up to this size are read to the end and hashed, so the version has a content hash. Default 16 MiB. */
  readonly hashLimit?: number;
  /** Files up to this size return their whole bytes as `content` (for an observation store). Default 1 MiB. */
  readonly contentLimit?: number;
  /** Stops the read between chunks with `ABORTED` (only `aborted` is read: an AbortSignal, or anything with it). */
  readonly signal?: Pick<AbortSignal, 'aborted'>;
  /** How the file is named in messages. Default: the path. */
  readonly displayPath?: string;
  /**
   * Bytes this file was observed to hold and their SHA-256 (`ObservationStore.observedContent`). When
   * the file's bytes are exactly these, the version takes this hash instead of hashing them again,
   * and `content` is this very buffer: equal bytes have equal hashes, so nothing is assumed (no
   * timestamp is trusted). Any difference, or a file outside the hash limit, is hashed as usual.
   */
  readonly knownContent?: KnownContent;
  /**
   * Regular files up to this size on a local file system are read whole with a few synchronous calls
   * instead of thread-pool round trips, with the same guarantees and the same result. Default 256 KiB;
   * `0` turns it off.
   */
  readonly syncReadLimit?: number;
}

/** Bytes a file held and their hash (see {@link ReadTextWindowOptions.knownContent}). */
export interface KnownContent {
  readonly bytes: Buffer;
  /** Hex SHA-256 of `bytes`. */
  readonly sha256: string;
}

/** Why a window holds fewer lines than asked although more follow. */
export type WindowCut =
  | { readonly reason: 'window-bytes'; readonly nextOffset: number }
  | { readonly reason: 'long-line'; readonly nextOffset: number };

/** A window of a text file's lines, with the version the file had while it was read. */
export interface TextWindow {
  /** The window's lines, decoded, without line terminators. */
  readonly lines: readonly string[];
  /** Lines skipped before the window (the first line's 1-based number is `offset + 1`). */
  readonly offset: number;
  /** The file's exact line count when it was read to the end, else `undefined`. */
  readonly totalLines: number | undefined;
  /** Whether at least one line follows the window. */
  readonly hasMore: boolean;
  /** Set when the window stopped early because of a byte limit. */
  readonly cut: WindowCut | undefined;
  readonly encoding: TextEncoding;
  /** The version from the open handle before reading; `sha256` set when the file was within the hash limit. */
  readonly version: FileVersion;
  /** The whole file's bytes when it was within the content limit. */
  readonly content: Buffer | undefined;
  /**
   * The UTF-8 byte length of the lines' text (the sum over `lines`), when it is known without
   * counting: the window was valid UTF-8 (or UTF-16, transcoded). Otherwise `undefined`.
   */
  readonly textBytes?: number | undefined;
}

/**
 * Reads a window of lines from a text file in bounded memory, streaming it in 1 MiB chunks: only the
 * window's lines are kept, so a window near the end of a 1 GB file costs a few MiB. A line ends at
 * LF or CRLF (CR-only files end lines at CR); a final line without a terminator counts; an empty
 * file has no lines. Files within the hash limit are read to the end, hashed and counted exactly;
 * larger ones stop one line after the window (their version is metadata only).
 *
 * The version's metadata comes from the open handle before reading; after reading, the handle and
 * the path are stat-ed again and any change is `FS_STALE_VERSION` (the caller must record nothing).
 *
 * Small regular files on a local file system (`syncReadLimit`, default 256 KiB) are read whole with
 * a few synchronous calls under the same protocol instead of one thread-pool round trip per call
 * (see `readSmallFileSync`), then scanned exactly as a stream would be: the result is the same.
 *
 * Errors: `FS_NOT_FOUND`, `NOT_A_FILE`, `FS_ACCESS_DENIED`, `PATH_INVALID`, `FILE_BINARY`,
 * `FILE_UNSUPPORTED`, `FILE_TOO_LARGE` (the window's first line is over the line limit),
 * `FS_STALE_VERSION`, `ABORTED`, `EXECUTION_ERROR`.
 */
export async function readTextWindow(
  path: string,
  options: ReadTextWindowOptions = {},
): Promise<EvidenceResult<TextWindow>> {
  const displayPath = options.displayPath ?? path;
  const offset = options.offset ?? 0;
  const limit = options.limit ?? DEFAULT_WINDOW_LINES;
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(limit) || limit < 1)
    throw new RangeError('offset must be an integer >= 0 and limit an integer >= 1');
  const hashLimit = options.hashLimit ?? DEFAULT_HASH_LIMIT;
  const contentLimit = options.contentLimit ?? DEFAULT_CONTENT_LIMIT;
  const scan = (size: number, stableChunks: boolean): ScanSettings => ({
    offset,
    limit,
    maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    maxWindowBytes: options.maxWindowBytes ?? DEFAULT_MAX_WINDOW_BYTES,
    countToEnd: size <= hashLimit,
    stableChunks,
    signal: options.signal,
    displayPath,
  });

  const small = readSmallFileSync(path, {
    displayPath,
    limit: options.syncReadLimit ?? DEFAULT_SYNC_READ_LIMIT,
    signal: options.signal,
  });
  if (small !== undefined) {
    if (!small.ok) return small;
    const { bytes, stats } = small.value;
    // The whole file is in memory: hand the scanner views of it in the streaming path's chunk size,
    // so both paths decide encodings, lines and limits on the same chunks.
    let position = 0;
    const scanned = await scanChunks(
      () => {
        const chunk = bytes.subarray(position, position + CHUNK_BUFFER_BYTES);
        position += chunk.length;
        return chunk;
      },
      scan(bytes.length, true),
    );
    if (!scanned.ok) return scanned;
    const known = options.knownContent;
    // memcmp is an order of magnitude cheaper than SHA-256, and equal bytes have the known hash.
    const same = known !== undefined && known.bytes.length === bytes.length && known.bytes.equals(bytes);
    return {
      ok: true,
      value: {
        ...scanned.value,
        offset,
        version: fileVersionOf(
          stats,
          bytes.length > hashLimit ? null : same ? known.sha256 : sha256Of(bytes),
        ),
        content: bytes.length <= contentLimit ? (same ? known.bytes : bytes) : undefined,
      },
    };
  }

  const opened = await openRegularFile(path, displayPath);
  if (!opened.ok) return opened;
  const { handle, stats } = opened.value;
  try {
    const size = Number(stats.size);
    const hash = size <= hashLimit ? new ChunkHash(size, options.knownContent) : undefined;
    const contentParts: Buffer[] | undefined = size <= contentLimit ? [] : undefined;

    const buffer = Buffer.allocUnsafe(CHUNK_BUFFER_BYTES);
    let position = 0;
    const readChunk = async (): Promise<Buffer> => {
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, position);
        if (bytesRead === 0) break;
        length += bytesRead;
        position += bytesRead;
      }
      const chunk = buffer.subarray(0, length);
      hash?.update(chunk);
      if (contentParts) contentParts.push(Buffer.from(chunk));
      return chunk;
    };
    const scanned = await scanChunks(readChunk, scan(size, false));
    if (!scanned.ok) return scanned;
    const unchanged = await confirmUnchangedWhileRead(handle, path, stats, displayPath);
    if (!unchanged.ok) return unchanged;
    const reused = hash?.matchedKnown() === true ? options.knownContent : undefined;
    return {
      ok: true,
      value: {
        ...scanned.value,
        offset,
        version: fileVersionOf(stats, hash ? hash.digest() : null),
        content: contentParts ? (reused?.bytes ?? Buffer.concat(contentParts)) : undefined,
      },
    };
  } catch (error) {
    return { ok: false, error: fsErrorToEvidence(error, displayPath) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * The SHA-256 of a file read in chunks, taken from known bytes while the chunks equal them: each
 * chunk is compared with the known bytes at its position, and only on the first difference are the
 * bytes so far (equal to the known ones) and the rest hashed.
 */
class ChunkHash {
  readonly #known: KnownContent | undefined;
  #hash: ReturnType<typeof createHash> | undefined;
  #position = 0;

  constructor(size: number, known: KnownContent | undefined) {
    this.#known = known !== undefined && known.bytes.length === size ? known : undefined;
    if (this.#known === undefined) this.#hash = createHash('sha256');
  }

  update(chunk: Buffer): void {
    const known = this.#known;
    if (this.#hash === undefined && known !== undefined) {
      const end = this.#position + chunk.length;
      if (end <= known.bytes.length && known.bytes.subarray(this.#position, end).equals(chunk)) {
        this.#position = end;
        return;
      }
      this.#hash = createHash('sha256').update(known.bytes.subarray(0, this.#position));
    }
    this.#hash!.update(chunk);
    this.#position += chunk.length;
  }

  /** Every chunk equalled the known bytes, and all of them were read. */
  matchedKnown(): boolean {
    return (
      this.#hash === undefined && this.#known !== undefined && this.#position === this.#known.bytes.length
    );
  }

  digest(): string {
    if (this.matchedKnown()) return this.#known!.sha256;
    // Fewer bytes than known (the read stopped early): hash what was read.
    this.#hash ??= createHash('sha256').update(this.#known!.bytes.subarray(0, this.#position));
    return this.#hash.digest('hex');
  }
}

/** What {@link scanChunks} needs besides the chunks. */
interface ScanSettings {
  readonly offset: number;
  readonly limit: number;
  readonly maxLineBytes: number;
  readonly maxWindowBytes: number;
  /** Read and count to the end of the file (it is within the hash limit). */
  readonly countToEnd: boolean;
  /** Chunks stay valid after the next one is read (views of the whole file), so lines need no copy. */
  readonly stableChunks: boolean;
  readonly signal: Pick<AbortSignal, 'aborted'> | undefined;
  readonly displayPath: string;
}

/**
 * Detects the encoding from the first chunk, then splits chunks into lines until the window is done
 * (or, within the hash limit, to the end). `readChunk` returns `CHUNK_BUFFER_BYTES` bytes, fewer only
 * at the end of the file; it may answer synchronously (an in-memory file) or asynchronously (a stream).
 */
async function scanChunks(
  readChunk: () => Buffer | Promise<Buffer>,
  settings: ScanSettings,
): Promise<
  EvidenceResult<Pick<TextWindow, 'lines' | 'totalLines' | 'hasMore' | 'cut' | 'encoding' | 'textBytes'>>
> {
  const { displayPath, offset } = settings;
  let chunk = await readChunk();
  const detected = detectTextEncoding(chunk.subarray(0, ENCODING_SAMPLE_BYTES), {
    complete: chunk.length < CHUNK_BUFFER_BYTES,
  });
  if (!detected.ok) return detected;
  const encoding = detected.value;
  const transcoder = encoding.name.startsWith('utf-16') ? new TextDecoder(encoding.name) : undefined;
  const toScanBytes = (bytes: Buffer, end: boolean): Buffer =>
    transcoder ? Buffer.from(transcoder.decode(bytes, { stream: !end }), 'utf8') : bytes;
  const decode = (bytes: Buffer): string => {
    if (transcoder || encoding.name === 'utf-8') return bytes.toString('utf8');
    return iconv().decode(bytes, encoding.name, { stripBOM: false });
  };

  const first = toScanBytes(
    transcoder ? chunk : chunk.subarray(bomLength(encoding)),
    chunk.length < CHUNK_BUFFER_BYTES,
  );
  const scanner = new WindowScanner({
    offset,
    limit: settings.limit,
    maxLineBytes: settings.maxLineBytes,
    maxWindowBytes: settings.maxWindowBytes,
    terminator: lineTerminatorOf(first),
    decode,
    decodesUtf8: transcoder !== undefined || encoding.name === 'utf-8',
    countToEnd: settings.countToEnd,
    // Transcoded UTF-16 is a fresh buffer per chunk, so it is stable too.
    stableChunks: settings.stableChunks || transcoder !== undefined,
  });
  let state = scanner.push(first);
  while (state === 'continue' && chunk.length === CHUNK_BUFFER_BYTES) {
    if (settings.signal?.aborted)
      return evidenceFailure('ABORTED', `reading ${displayPath} was cancelled`, {
        recovery: 'retry if still needed',
      });
    chunk = await readChunk();
    state = scanner.push(toScanBytes(chunk, chunk.length < CHUNK_BUFFER_BYTES));
  }
  // 'continue' here means end of file; 'window-done' means a large file was left unread after the window.
  const atEnd = state === 'continue';
  if (atEnd) state = scanner.end();
  if (state === 'too-long')
    return evidenceFailure(
      'FILE_TOO_LARGE',
      `line ${offset + 1} of ${displayPath} is longer than the ${formatBytes(settings.maxLineBytes)} line limit`,
      {
        recovery: `skip it with offset=${offset + 1}, or inspect it with a command such as cut -c or head -c`,
      },
    );
  return { ok: true, value: { ...scanner.result(atEnd), encoding } };
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes}-byte`;
}

/** LF (with an optional CR before it) unless the first line break of the sample is a lone CR. */
function lineTerminatorOf(sample: Buffer): number {
  const lf = sample.indexOf(0x0a);
  const cr = sample.indexOf(0x0d);
  if (cr !== -1 && (lf === -1 || cr < lf) && sample[cr + 1] !== 0x0a && cr + 1 < sample.length) return 0x0d;
  return 0x0a;
}
