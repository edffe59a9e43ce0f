import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, isUtf8Continuation, ok, type Result, ToolhostError } from '@toolhost/contracts';

/** Bytes in a page when `limit` is not given. */
export const TOOL_RESULT_PAGE_DEFAULT_BYTES = 16_384;
/** The largest `limit` a page may ask for. */
export const TOOL_RESULT_PAGE_MAX_BYTES = 24_576;

/**
 * The default disk budget of one store's bodies: 256 MiB. Past it the oldest stored results are
 * removed first (a later read says it was evicted), so a long session cannot fill the state
 * directory's file system with truncated outputs.
 */
export const DEFAULT_RESULT_DISK_BYTES = 256 * 1024 * 1024;

const DEFAULT_MAX_MEMORY_BYTES = 64 * 1024 * 1024;
// Evicted refs remembered (per store, and kept in the index across restarts) so a late read can
// say "evicted" rather than "unknown".
const MAX_TOMBSTONES = 4_096;
const DEFAULT_SPILL_BYTES = 1024 * 1024;
const INDEX_FILE = 'index.jsonl';
const RESULT_REF_PATTERN = /^tr-[0-9a-f]{24}$/;

/** Options of {@link createResultStore}. */
export interface ResultStoreOptions {
  /**
   * A directory that makes the store durable: every body is written there (mode 0600, directory
   * 0700) with an append-only index, and a store created later over the same directory finds every
   * result again (a resumed session). Without it, bodies live in memory and the ones that do not fit
   * spill to a private temporary directory that {@link ResultStore.close} removes.
   */
  readonly dir?: string;
  /** Bodies kept in memory, in bytes, before the oldest are dropped (durable) or spilled; default 64 MiB. */
  readonly maxMemoryBytes?: number;
  /** A body larger than this always goes to a file, never to memory; default 1 MiB. */
  readonly spillBytes?: number;
  /**
   * Bytes of bodies kept on disk (the durable `dir`, or the spill directory), default
   * {@link DEFAULT_RESULT_DISK_BYTES}. Storing past it removes the oldest results first; a body
   * larger than the whole budget is not stored (`DISK_FULL`).
   */
  readonly maxDiskBytes?: number;
}

/** What {@link ResultStore.put} stores: the full body of one tool result. */
export interface PutToolResultOptions {
  readonly callId: string;
  readonly toolName: string;
  /** The complete result text, before any truncation. */
  readonly body: string;
}

/** What {@link ResultStore.put} returns. */
export interface PutToolResultValue {
  /** `tr-` + the first 24 hex characters of SHA-256(callId + "\0" + body). */
  readonly resultRef: string;
  /** The body's length in UTF-8 bytes. */
  readonly totalBytes: number;
  /** SHA-256 (hex) of the body's UTF-8 bytes. */
  readonly sha256: string;
}

/** The metadata of one stored result. */
export interface StoredToolResult extends PutToolResultValue {
  readonly callId: string;
  readonly toolName: string;
  /** When it was stored (ISO 8601). */
  readonly storedAt: string;
}

/** Which stored result to read: the call id and, when one id has several results, the ref. */
export interface ToolResultLookup {
  readonly toolCallId: string;
  readonly resultRef?: string;
}

/** Options of {@link ResultStore.page}. */
export interface PageToolResultOptions extends ToolResultLookup {
  /** UTF-8 byte offset to start at; default 0. */
  readonly offset?: number;
  /** At most this many bytes; 1 to {@link TOOL_RESULT_PAGE_MAX_BYTES}, default {@link TOOL_RESULT_PAGE_DEFAULT_BYTES}. */
  readonly limit?: number;
}

/** The JSON header line of a page; keys in this order. */
export interface ToolResultPageHeader {
  readonly result_ref: string;
  readonly offset: number;
  readonly next_offset: number;
  readonly total_bytes: number;
  /** SHA-256 of the whole body, not of the page. */
  readonly sha256: string;
  readonly complete: boolean;
}

/** One page of a stored result. */
export interface ToolResultPage {
  readonly header: ToolResultPageHeader;
  /** The page's own text (whole characters only). */
  readonly page: string;
  /** What the model sees: the header as one JSON line, a newline, then the page. */
  readonly text: string;
}

/**
 * Full bodies of truncated tool results, paged by UTF-8 byte offset for `session:tool_result`.
 * The Host's result shaper calls {@link ResultStore.put} for every result it truncates.
 */
export interface ResultStore {
  /**
   * Stores a body and returns its content-derived ref (synchronously, so a result shaper can write
   * the marker at once). Storing the same call id and body again returns the same ref and keeps one
   * copy. Past the disk budget the oldest results are evicted first. Throws `ToolhostError`
   * `DISK_FULL` when the disk is full (ENOSPC, EDQUOT) or the body alone exceeds the budget; then
   * nothing is left behind (no partial file, no index line). Throws on misuse (a closed store) or
   * when the directory cannot be written for another reason.
   */
  put(options: PutToolResultOptions): PutToolResultValue;
  /**
   * The full body of one stored result. Errors: `RESULT_NOT_FOUND` (unknown id, a ref of another
   * call, an ambiguous id without ref, a `sa_` subagent reference, a body no longer readable, a
   * result evicted by the disk budget: `details.reason` `evicted`).
   */
  get(lookup: ToolResultLookup): Result<{ record: StoredToolResult; body: string }, ToolhostError>;
  /**
   * One page (CP-RES-2, CP-RES-4 in REQUIREMENTS.md): `offset` must be an integer on a character boundary
   * and at most `total_bytes`; `limit` an integer in 1..24576 (default 16384); the page backs off to
   * the previous character boundary so it never splits a character; `offset == total_bytes` is an
   * empty, complete page. Errors: those of {@link ResultStore.get} and `RESULT_RANGE_INVALID`.
   */
  page(options: PageToolResultOptions): Result<ToolResultPage, ToolhostError>;
  /** The metadata of every stored result still held, oldest first. */
  entries(): readonly StoredToolResult[];
  /** Bytes of bodies on disk now (what the disk budget counts). */
  readonly diskBytes: number;
  /** The durable directory, if any. */
  readonly dir: string | undefined;
  /** Drops memory and removes the private spill directory (a durable `dir` is kept). Idempotent. */
  close(): void;
}

interface Entry {
  readonly record: StoredToolResult;
  bytes: Buffer | undefined;
  file: string | undefined;
  /** Removed by the disk budget: only the record is kept, to say so. */
  evicted?: true;
}

/** The `result_ref` of a body: `tr-` + the first 24 hex characters of SHA-256(callId + "\0" + body). */
export function resultRefOf(callId: string, body: string): string {
  return `tr-${createHash('sha256').update(`${callId}\0${body}`, 'utf8').digest('hex').slice(0, 24)}`;
}

/**
 * The exact `use_capability` call that pages a stored result, for truncation markers, so the marker
 * and the proxy can never disagree on the wire form.
 */
export function toolResultRecipe(options: { readonly callId: string; readonly resultRef: string }): string {
  const args = JSON.stringify({ tool_call_id: options.callId, result_ref: options.resultRef });
  return `use_capability(action="call", capability_id="session:tool_result", arguments=${args})`;
}

/**
 * Creates a result store. With `dir` it is durable and resumes whatever the directory already holds
 * (unreadable index lines and missing body files are skipped).
 */
export function createResultStore(options: ResultStoreOptions = {}): ResultStore {
  const maxMemoryBytes = options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
  const spillBytes = Math.min(options.spillBytes ?? DEFAULT_SPILL_BYTES, maxMemoryBytes);
  const maxDiskBytes = options.maxDiskBytes ?? DEFAULT_RESULT_DISK_BYTES;
  if (!Number.isSafeInteger(maxDiskBytes) || maxDiskBytes < 1) {
    throw new TypeError('maxDiskBytes must be a positive integer');
  }
  const durableDir = options.dir;
  const entries: Entry[] = [];
  const byRef = new Map<string, Entry>();
  const byCallId = new Map<string, Entry[]>();
  // Memory-resident entries, least recently used first (a Map keeps insertion order).
  const resident = new Map<string, Entry>();
  let memoryBytes = 0;
  let diskBytes = 0;
  let tombstones = 0;
  let spillDir: string | undefined;
  let closed = false;

  if (durableDir) {
    mkdirSync(durableDir, { recursive: true, mode: 0o700 });
    const loaded = loadIndex(durableDir);
    for (const record of loaded.records) {
      if (byRef.has(record.resultRef)) continue;
      add({ record, bytes: undefined, file: join(durableDir, `${record.resultRef}.txt`) });
      diskBytes += record.totalBytes;
    }
    for (const record of loaded.evicted) {
      if (byRef.has(record.resultRef)) continue;
      add({ record, bytes: undefined, file: undefined, evicted: true });
      tombstones++;
    }
    // A budget lowered since the last run, or another process's results: back within it now.
    evictFor(0);
    if (loaded.lines > 2 * (entries.length + 16)) compactIndex();
  }

  /** Removes the oldest bodies on disk until `incoming` more bytes fit the budget. */
  function evictFor(incoming: number): void {
    for (const entry of entries) {
      if (diskBytes + incoming <= maxDiskBytes) break;
      if (entry.evicted || !entry.file) continue;
      evict(entry);
    }
    trimTombstones();
  }

  /** Old tombstones are forgotten (the oldest first), so the lists stay bounded. */
  function trimTombstones(): void {
    if (tombstones <= MAX_TOMBSTONES) return;
    const kept: Entry[] = [];
    for (const entry of entries) {
      if (entry.evicted && tombstones > MAX_TOMBSTONES) {
        forget(entry);
        tombstones--;
      } else kept.push(entry);
    }
    entries.splice(0, entries.length, ...kept);
  }

  function evict(entry: Entry): void {
    const file = entry.file;
    if (file) {
      rmSync(file, { force: true });
      diskBytes -= entry.record.totalBytes;
    }
    entry.file = undefined;
    if (entry.bytes) {
      resident.delete(entry.record.resultRef);
      memoryBytes -= entry.bytes.length;
      entry.bytes = undefined;
    }
    entry.evicted = true;
    tombstones++;
    if (durableDir) {
      try {
        appendFileSync(
          join(durableDir, INDEX_FILE),
          `${JSON.stringify({ evicted: entry.record.resultRef, ...entry.record })}\n`,
          { mode: 0o600 },
        );
      } catch {
        // The body is gone either way; a store resumed later only says "unknown" instead of "evicted".
      }
    }
  }

  function forget(entry: Entry): void {
    byRef.delete(entry.record.resultRef);
    const list = byCallId.get(entry.record.callId);
    if (!list) return;
    const remaining = list.filter((candidate) => candidate !== entry);
    if (remaining.length > 0) byCallId.set(entry.record.callId, remaining);
    else byCallId.delete(entry.record.callId);
  }

  /** Rewrites the index with what is held and the remembered evictions (temp file, rename). */
  function compactIndex(): void {
    if (!durableDir) return;
    const file = join(durableDir, INDEX_FILE);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const text = entries
      .map((entry) =>
        JSON.stringify(entry.evicted ? { evicted: entry.record.resultRef, ...entry.record } : entry.record),
      )
      .join('\n');
    try {
      writeFileSync(temporary, text ? `${text}\n` : '', { mode: 0o600, flag: 'wx' });
      renameSync(temporary, file);
    } catch {
      rmSync(temporary, { force: true });
    }
  }

  function add(entry: Entry): void {
    entries.push(entry);
    byRef.set(entry.record.resultRef, entry);
    const list = byCallId.get(entry.record.callId);
    if (list) list.push(entry);
    else byCallId.set(entry.record.callId, [entry]);
  }

  function bodyDir(): string {
    if (durableDir) return durableDir;
    spillDir ??= mkdtempSync(join(tmpdir(), 'toolhost-results-'));
    return spillDir;
  }

  function writeBody(ref: string, bytes: Buffer): string {
    if (bytes.length > maxDiskBytes) throw overBudget(bytes.length, maxDiskBytes);
    evictFor(bytes.length);
    const dir = bodyDir();
    const file = join(dir, `${ref}.txt`);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    // Temp file then rename: a reader never sees a half-written body, and a crash leaves none indexed.
    try {
      writeFileSync(temporary, bytes, { mode: 0o600, flag: 'wx' });
      renameSync(temporary, file);
    } catch (error) {
      // A full disk leaves no partial body behind.
      rmSync(temporary, { force: true });
      throw isDiskFull(error) ? diskFull(error) : error;
    }
    diskBytes += bytes.length;
    return file;
  }

  function makeResident(entry: Entry, bytes: Buffer): void {
    if (bytes.length > spillBytes) return;
    entry.bytes = bytes;
    resident.set(entry.record.resultRef, entry);
    memoryBytes += bytes.length;
    for (const [ref, victim] of resident) {
      if (memoryBytes <= maxMemoryBytes) break;
      if (victim === entry) continue;
      const victimBytes = victim.bytes;
      if (!victimBytes) continue;
      if (!victim.file) {
        try {
          victim.file = writeBody(ref, victimBytes);
        } catch {
          // The spill failed (a full disk): the oldest result is dropped instead, and says so later.
          evict(victim);
          continue;
        }
      }
      victim.bytes = undefined;
      resident.delete(ref);
      memoryBytes -= victimBytes.length;
    }
  }

  function put(options: PutToolResultOptions): PutToolResultValue {
    if (closed) throw new Error('the result store is closed');
    const resultRef = resultRefOf(options.callId, options.body);
    const existing = byRef.get(resultRef);
    if (existing && !existing.evicted) return putValueOf(existing.record);
    if (existing) {
      // Stored again after it was evicted: the tombstone makes way for the new copy.
      forget(existing);
      entries.splice(entries.indexOf(existing), 1);
      tombstones--;
    }
    const bytes = Buffer.from(options.body, 'utf8');
    const record: StoredToolResult = {
      resultRef,
      callId: options.callId,
      toolName: options.toolName,
      totalBytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      storedAt: new Date().toISOString(),
    };
    const entry: Entry = { record, bytes: undefined, file: undefined };
    if (durableDir || bytes.length > spillBytes) entry.file = writeBody(resultRef, bytes);
    if (durableDir) {
      try {
        appendFileSync(join(durableDir, INDEX_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
      } catch (error) {
        // Without its index line the body could never be found again: remove it, report the cause.
        if (entry.file) {
          rmSync(entry.file, { force: true });
          diskBytes -= bytes.length;
        }
        throw isDiskFull(error) ? diskFull(error) : error;
      }
    }
    add(entry);
    makeResident(entry, bytes);
    return putValueOf(record);
  }

  function lookup(options: ToolResultLookup): Result<Entry, ToolhostError> {
    const callId = typeof options.toolCallId === 'string' ? options.toolCallId.trim() : '';
    if (!callId) return err(notFound('tool_call_id is required', {}));
    if (callId.startsWith('sa_')) {
      return err(
        notFound(
          'this id is a subagent result reference (sa_...), not a tool call id; session:tool_result pages tool outputs only',
          { reason: 'subagent_reference' },
          'page a subagent\'s answer with read_subagent_result (use_capability(action="call", capability_id="tool:read_subagent_result", arguments={"reference": "sa_..."})), or use a tool_call_id from a truncation marker',
        ),
      );
    }
    const candidates = byCallId.get(callId) ?? [];
    const refs = candidates.map((entry) => entry.record.resultRef);
    if (options.resultRef !== undefined) {
      const entry = byRef.get(options.resultRef);
      if (entry && entry.record.callId === callId) return ok(entry);
      if (refs.length > 0) {
        return err(
          notFound(
            `result_ref does not belong to this tool_call_id; use one of result_ref=${refs.join(', ')}`,
            { reason: 'ref_mismatch', candidates: refs },
            null,
          ),
        );
      }
      return err(notFound('no stored result has this tool_call_id and result_ref', { reason: 'unknown' }));
    }
    if (candidates.length === 0) {
      return err(
        notFound(
          'no stored result has this tool_call_id (only truncated results are stored, and only in this session)',
          { reason: 'unknown' },
        ),
      );
    }
    if (candidates.length > 1) {
      return err(
        notFound(
          `tool_call_id is ambiguous (${candidates.length} stored results); retry with one of result_ref=${refs.join(', ')}`,
          { reason: 'ambiguous', candidates: refs },
          null,
        ),
      );
    }
    return ok(candidates[0]!);
  }

  function readRange(entry: Entry, start: number, end: number): Buffer | undefined {
    if (entry.bytes) {
      // Refresh recency.
      resident.delete(entry.record.resultRef);
      resident.set(entry.record.resultRef, entry);
      return entry.bytes.subarray(start, end);
    }
    if (!entry.file) return undefined;
    try {
      const fd = openSync(entry.file, 'r');
      try {
        const buffer = Buffer.alloc(end - start);
        let filled = 0;
        while (filled < buffer.length) {
          const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
          if (bytesRead === 0) return undefined;
          filled += bytesRead;
        }
        return buffer;
      } finally {
        closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  function unavailable(entry: Entry): ToolhostError {
    if (entry.evicted) {
      return notFound(
        `the full result of this call was evicted: the host keeps at most ${maxDiskBytes} bytes of stored results and removes the oldest first; re-run ${entry.record.toolName} with narrower arguments`,
        { reason: 'evicted', resultRef: entry.record.resultRef, maxDiskBytes },
        null,
      );
    }
    return notFound(
      `the full result of this call is no longer available; re-run ${entry.record.toolName} with narrower arguments`,
      { reason: 'body_unavailable', resultRef: entry.record.resultRef },
      null,
    );
  }

  return {
    put,
    get(options) {
      const found = lookup(options);
      if (!found.ok) return found;
      const entry = found.value;
      const bytes = readRange(entry, 0, entry.record.totalBytes);
      if (!bytes) return err(unavailable(entry));
      return ok({ record: entry.record, body: bytes.toString('utf8') });
    },
    page(options) {
      const found = lookup(options);
      if (!found.ok) return found;
      const entry = found.value;
      return pageBody(
        {
          ref: entry.record.resultRef,
          totalBytes: entry.record.totalBytes,
          sha256: entry.record.sha256,
          read: (start, end) => readRange(entry, start, end),
          unavailable: () => unavailable(entry),
        },
        options,
      );
    },
    entries() {
      return entries.filter((entry) => !entry.evicted).map((entry) => entry.record);
    },
    get diskBytes() {
      return diskBytes;
    },
    get dir() {
      return durableDir;
    },
    close() {
      if (closed) return;
      closed = true;
      resident.clear();
      for (const entry of entries) entry.bytes = undefined;
      memoryBytes = 0;
      if (spillDir) {
        const dir = spillDir;
        spillDir = undefined;
        for (const entry of entries) if (entry.file?.startsWith(dir)) entry.file = undefined;
        rmSync(dir, { recursive: true, force: true });
        diskBytes = 0;
      }
    },
  };
}

/** A stored body {@link pageBody} pages: its identity, size and hash, and a reader of byte ranges. */
export interface PageableBody {
  /** What the header's `result_ref` says (a `tr-` ref, or a subagent's `sa_` reference). */
  readonly ref: string;
  /** The body's length in UTF-8 bytes. */
  readonly totalBytes: number;
  /** SHA-256 (hex) of the whole body. */
  readonly sha256: string;
  /** Bytes `[start, end)` of the body, or `undefined` when it can no longer be read. */
  read(start: number, end: number): Buffer | undefined;
  /** The error for a body that can no longer be read. */
  unavailable(): ToolhostError;
}

/**
 * One page of a stored body by UTF-8 byte offset, with the header `session:tool_result` answers
 * with (CP-RES-2, CP-RES-4): `offset` must be an integer on a character boundary and at most
 * `total_bytes`; `limit` an integer in 1..24576 (default 16384); the page backs off to the previous
 * character boundary so it never splits a character; `offset == total_bytes` is an empty, complete
 * page. The one paging implementation: {@link ResultStore.page} and `read_subagent_result` use it.
 * Errors: `RESULT_RANGE_INVALID`, and the body's own `unavailable()` error.
 */
export function pageBody(
  body: PageableBody,
  options: { readonly offset?: number; readonly limit?: number },
): Result<ToolResultPage, ToolhostError> {
  const total = body.totalBytes;
  const offset = options.offset ?? 0;
  const limit = options.limit ?? TOOL_RESULT_PAGE_DEFAULT_BYTES;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    return err(rangeInvalid('offset must be an integer of at least 0', { offset: 'invalid' }));
  }
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > TOOL_RESULT_PAGE_MAX_BYTES) {
    return err(
      rangeInvalid(`limit must be an integer from 1 to ${TOOL_RESULT_PAGE_MAX_BYTES}`, {
        limit: 'invalid',
      }),
    );
  }
  if (offset > total) {
    return err(rangeInvalid(`offset is beyond total_bytes ${total}`, { totalBytes: total }));
  }
  const header = (nextOffset: number): ToolResultPageHeader => ({
    result_ref: body.ref,
    offset,
    next_offset: nextOffset,
    total_bytes: total,
    sha256: body.sha256,
    complete: nextOffset === total,
  });
  if (offset === total) return ok(pageOf(header(total), ''));
  let end = Math.min(offset + limit, total);
  // One byte past the window tells whether the window ends inside a character.
  const bytes = body.read(offset, Math.min(end + 1, total));
  if (!bytes) return err(body.unavailable());
  if (isUtf8Continuation(bytes[0]!)) {
    return err(
      rangeInvalid('offset is inside a UTF-8 character; use the next_offset of the previous page', {
        reason: 'offset_not_on_boundary',
      }),
    );
  }
  if (end < total) while (end > offset && isUtf8Continuation(bytes[end - offset]!)) end--;
  if (end === offset) {
    return err(
      rangeInvalid(`limit ${limit} ends inside the next UTF-8 character; increase limit`, {
        reason: 'limit_inside_character',
      }),
    );
  }
  return ok(pageOf(header(end), bytes.subarray(0, end - offset).toString('utf8')));
}

function pageOf(header: ToolResultPageHeader, page: string): ToolResultPage {
  return { header, page, text: `${JSON.stringify(header)}\n${page}` };
}

function putValueOf(record: StoredToolResult): PutToolResultValue {
  return { resultRef: record.resultRef, totalBytes: record.totalBytes, sha256: record.sha256 };
}

function notFound(
  message: string,
  details: Record<string, unknown>,
  recovery?: string | null,
): ToolhostError<'RESULT_NOT_FOUND'> {
  return new ToolhostError({
    code: 'RESULT_NOT_FOUND',
    message,
    details,
    ...(recovery === undefined ? {} : { recovery }),
  });
}

function rangeInvalid(
  message: string,
  details: Record<string, unknown>,
): ToolhostError<'RESULT_RANGE_INVALID'> {
  return new ToolhostError({ code: 'RESULT_RANGE_INVALID', message, details });
}

function loadIndex(dir: string): {
  readonly records: StoredToolResult[];
  readonly evicted: StoredToolResult[];
  readonly lines: number;
} {
  let text: string;
  try {
    text = readFileSync(join(dir, INDEX_FILE), 'utf8');
  } catch {
    return { records: [], evicted: [], lines: 0 };
  }
  const records: StoredToolResult[] = [];
  const evictedRefs = new Map<string, StoredToolResult>();
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A torn last line after a crash, or damage: skip it, keep the rest.
      continue;
    }
    const record = asRecord(value);
    if (!record) continue;
    if (typeof (value as { evicted?: unknown }).evicted === 'string') {
      evictedRefs.set(record.resultRef, record);
      continue;
    }
    try {
      const info = statSync(join(dir, `${record.resultRef}.txt`));
      if (info.isFile() && info.size === record.totalBytes) records.push(record);
    } catch {
      // The body is gone: the entry is not resumable.
    }
  }
  const live = records.filter((record) => !evictedRefs.has(record.resultRef));
  return { records: live, evicted: [...evictedRefs.values()].slice(-MAX_TOMBSTONES), lines };
}

function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

function diskFull(cause: unknown): ToolhostError<'DISK_FULL'> {
  return new ToolhostError({
    code: 'DISK_FULL',
    message: 'the file system holding the stored tool results is full, so this full result could not be kept',
    details: { reason: 'no_space', errno: (cause as NodeJS.ErrnoException | undefined)?.code },
    cause,
  });
}

function overBudget(bytes: number, budget: number): ToolhostError<'DISK_FULL'> {
  return new ToolhostError({
    code: 'DISK_FULL',
    message: `this result (${bytes} bytes) is larger than the host's whole budget for stored results (${budget} bytes), so it could not be kept`,
    details: { reason: 'over_budget', bytes, maxDiskBytes: budget },
  });
}

function asRecord(value: unknown): StoredToolResult | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const { resultRef, callId, toolName, totalBytes, sha256, storedAt } = record;
  if (typeof resultRef !== 'string' || !RESULT_REF_PATTERN.test(resultRef)) return undefined;
  if (typeof callId !== 'string' || typeof toolName !== 'string' || typeof storedAt !== 'string')
    return undefined;
  if (typeof totalBytes !== 'number' || !Number.isSafeInteger(totalBytes) || totalBytes < 0) return undefined;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  return { resultRef, callId, toolName, totalBytes, sha256, storedAt };
}
