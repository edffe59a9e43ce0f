import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pageBody, type ToolResultPage } from '@toolhost/capability-proxy';
import { err, type JsonValue, ok, type Result, ToolhostError, utf8Prefix } from '@toolhost/contracts';
import { writeFileAtomicSync } from '@toolhost/internal';
import {
  MAX_SUBAGENT_ANSWER_BYTES,
  MAX_SUBAGENT_STATE_BYTES,
  type SubagentRecord,
  type SubagentStatus,
} from './subagent-types.js';

/** A `Subagent reference`: `sa_` + 24 lowercase hex characters (96 random bits). */
export const SUBAGENT_REFERENCE_PATTERN = /^sa_[0-9a-f]{24}$/;

const ANSWER_FILE_PATTERN = /^sa_[0-9a-f]{24}\.[0-9a-f]{16}\.answer\.txt$/;
const STATE_FILE_PATTERN = /^sa_[0-9a-f]{24}\.\d{1,6}\.state\.json$/;
const MAX_RECORD_BYTES = 1024 * 1024;
const STATUSES: ReadonlySet<string> = new Set(['completed', 'partial', 'failed', 'cancelled']);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** A new `Subagent reference`. */
export function newSubagentReference(): string {
  return `sa_${randomBytes(12).toString('hex')}`;
}

/** What {@link SubagentStore.write} stores: the record's own fields, the answer and the runner's state. */
export interface SubagentWrite {
  readonly reference: string;
  readonly parentSessionId: string;
  readonly description: string;
  readonly readOnly: boolean;
  readonly status: SubagentStatus;
  readonly retryable: boolean;
  readonly runs: number;
  readonly sessionIds: readonly string[];
  readonly transcripts: readonly string[];
  readonly error?: { readonly code: string; readonly message: string } | undefined;
  readonly createdAt: string;
  readonly answer: string;
  /** The runner's state; `'keep'` keeps the state file of the previous record. */
  readonly state: JsonValue | undefined | 'keep';
}

/** The subagent results of one session lineage, on disk. */
export interface SubagentStore {
  readonly dir: string;
  /**
   * Writes a result: the answer (cut to {@link MAX_SUBAGENT_ANSWER_BYTES}) and the state to their own
   * content-named files first, then the record by rename, so a reader sees the old result or the new
   * one, never a mix; files the new record no longer names are removed. A state larger than
   * {@link MAX_SUBAGENT_STATE_BYTES} is not kept and the record is then not retryable. Throws on I/O
   * failure (nothing half-written is left behind).
   */
  write(input: SubagentWrite): SubagentRecord;
  /**
   * The record of a reference of this lineage and project. `SUBAGENT_NOT_FOUND` (value-free) for a
   * malformed or unknown reference, one of another lineage or project root, or an unreadable record.
   */
  read(reference: string): Result<SubagentRecord, ToolhostError>;
  /** The whole answer of a record, or `undefined` when its file is gone or does not match. */
  readAnswer(record: SubagentRecord): string | undefined;
  /** The runner's state of a record, or `undefined` when none is kept (or it is unreadable). */
  readState(record: SubagentRecord): JsonValue | undefined;
  /** One page of a reference's answer, exactly as `session:tool_result` pages (`pageBody`). */
  page(
    reference: string,
    options: { readonly offset?: number; readonly limit?: number },
  ): Result<ToolResultPage, ToolhostError>;
  /** Removes a temporary store's directory (a lineage's own directory is kept). Idempotent. */
  close(): void;
}

/** Options of {@link createSubagentStore}. */
export interface SubagentStoreOptions {
  /** The lineage's directory (`<session dir>/subagents`); default a private temporary one removed by `close`. */
  readonly dir?: string;
  /** The root session of the lineage. */
  readonly lineageId: string;
  /** The real project root. */
  readonly root: string;
}

/**
 * Creates the store of one lineage. Files are mode 0600 in a 0700 directory; records are read with
 * `O_NOFOLLOW`, bounded in size and checked field by field, so a planted or damaged file is "not
 * found", never trusted.
 */
export function createSubagentStore(options: SubagentStoreOptions): SubagentStore {
  const temporary = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'toolhost-subagents-'));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let closed = false;

  const read = (reference: string): Result<SubagentRecord, ToolhostError> => {
    if (typeof reference !== 'string' || !SUBAGENT_REFERENCE_PATTERN.test(reference.trim())) {
      return err(notFound('this is not a Subagent reference (sa_ followed by 24 hex characters)', 'invalid'));
    }
    const ref = reference.trim();
    const text = readBounded(join(dir, `${ref}.json`), MAX_RECORD_BYTES);
    if (text === undefined) {
      return err(
        notFound(
          "no subagent result with this reference exists in this session's lineage (this session, its parent and its subagents) in this project",
          'unknown',
        ),
      );
    }
    const record = parseRecord(text, ref);
    if (!record) return err(notFound('the record of this subagent result is unreadable', 'unreadable'));
    if (record.root !== options.root) {
      return err(notFound('this subagent result belongs to another project root', 'other_root'));
    }
    if (record.lineageId !== options.lineageId) {
      return err(notFound("this subagent result belongs to another session's lineage", 'other_lineage'));
    }
    return ok(record);
  };

  const writeFile = (name: string, data: string | Buffer): void => {
    // Not flushed: a subagent record lost in a crash is a result the agent asks for again.
    writeFileAtomicSync(join(dir, name), data, { fsync: false });
  };

  return {
    dir,
    read,
    write(input) {
      if (closed) throw new Error('the subagent store is closed');
      const previous = read(input.reference);
      const cut = utf8Prefix(input.answer, MAX_SUBAGENT_ANSWER_BYTES);
      const bytes = Buffer.from(cut, 'utf8');
      const sha = createHash('sha256').update(bytes).digest('hex');
      const answerFile = `${input.reference}.${sha.slice(0, 16)}.answer.txt`;
      writeFile(answerFile, bytes);
      let stateFile: string | undefined;
      let retryable = input.retryable;
      if (input.state === 'keep') {
        stateFile = previous.ok ? previous.value.stateFile : undefined;
      } else if (input.state !== undefined) {
        const json = JSON.stringify(input.state);
        if (Buffer.byteLength(json, 'utf8') <= MAX_SUBAGENT_STATE_BYTES) {
          stateFile = `${input.reference}.${input.runs}.state.json`;
          writeFile(stateFile, json);
        } else {
          retryable = false;
        }
      }
      const record: SubagentRecord = {
        format: 'toolhost-subagent-v1',
        reference: input.reference,
        lineageId: options.lineageId,
        root: options.root,
        parentSessionId: input.parentSessionId,
        description: input.description,
        readOnly: input.readOnly,
        status: input.status,
        retryable,
        runs: input.runs,
        sessionIds: [...input.sessionIds],
        transcripts: [...input.transcripts],
        answerFile,
        answerBytes: bytes.length,
        answerSha256: sha,
        ...(cut.length < input.answer.length ? { answerTruncated: true as const } : {}),
        ...(stateFile ? { stateFile } : {}),
        ...(input.error ? { error: { code: input.error.code, message: input.error.message } } : {}),
        createdAt: input.createdAt,
        updatedAt: new Date().toISOString(),
      };
      writeFile(`${input.reference}.json`, JSON.stringify(record));
      if (previous.ok) {
        if (previous.value.answerFile !== answerFile)
          rmSync(join(dir, previous.value.answerFile), { force: true });
        if (previous.value.stateFile && previous.value.stateFile !== stateFile) {
          rmSync(join(dir, previous.value.stateFile), { force: true });
        }
      }
      return record;
    },
    readAnswer(record) {
      const text = readBounded(join(dir, record.answerFile), record.answerBytes);
      if (text === undefined || Buffer.byteLength(text, 'utf8') !== record.answerBytes) return undefined;
      return createHash('sha256').update(text, 'utf8').digest('hex') === record.answerSha256
        ? text
        : undefined;
    },
    readState(record) {
      if (!record.stateFile) return undefined;
      const text = readBounded(join(dir, record.stateFile), MAX_SUBAGENT_STATE_BYTES);
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as JsonValue;
      } catch {
        return undefined;
      }
    },
    page(reference, pageOptions) {
      const found = read(reference);
      if (!found.ok) return found;
      const record = found.value;
      const unavailable = () =>
        notFound(
          'the answer of this subagent result is no longer readable; run the task again',
          'answer_unavailable',
        );
      let fd: number;
      try {
        fd = openSync(join(dir, record.answerFile), constants.O_RDONLY | NO_FOLLOW);
      } catch {
        return err(unavailable());
      }
      try {
        const info = fstatSync(fd);
        if (!info.isFile() || info.size !== record.answerBytes) return err(unavailable());
        return pageBody(
          {
            ref: record.reference,
            totalBytes: record.answerBytes,
            sha256: record.answerSha256,
            read: (start, end) => readRange(fd, start, end),
            unavailable,
          },
          pageOptions,
        );
      } finally {
        closeSync(fd);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      if (temporary) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function notFound(message: string, reason: string): ToolhostError<'SUBAGENT_NOT_FOUND'> {
  return new ToolhostError({ code: 'SUBAGENT_NOT_FOUND', message, details: { reason } });
}

/** A regular file's text (not through a symbolic link), or `undefined` when it is missing, not a file or larger than `max`. */
function readBounded(path: string, max: number): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > max) return undefined;
    const buffer = readRange(fd, 0, info.size);
    return buffer?.toString('utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function readRange(fd: number, start: number, end: number): Buffer | undefined {
  const buffer = Buffer.alloc(end - start);
  let filled = 0;
  while (filled < buffer.length) {
    const count = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
    if (count === 0) return undefined;
    filled += count;
  }
  return buffer;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/** The record in `text` when every field is what the host writes, for this reference; else `undefined`. */
function parseRecord(text: string, reference: string): SubagentRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const strings = ['lineageId', 'root', 'parentSessionId', 'description', 'createdAt', 'updatedAt'];
  if (record.format !== 'toolhost-subagent-v1' || record.reference !== reference) return undefined;
  if (!strings.every((key) => typeof record[key] === 'string')) return undefined;
  if (typeof record.status !== 'string' || !STATUSES.has(record.status)) return undefined;
  if (typeof record.readOnly !== 'boolean' || typeof record.retryable !== 'boolean') return undefined;
  if (!Number.isSafeInteger(record.runs) || (record.runs as number) < 1) return undefined;
  if (!isStringArray(record.sessionIds) || !isStringArray(record.transcripts)) return undefined;
  if (typeof record.answerFile !== 'string' || !ANSWER_FILE_PATTERN.test(record.answerFile)) return undefined;
  if (!record.answerFile.startsWith(`${reference}.`)) return undefined;
  if (!Number.isSafeInteger(record.answerBytes) || (record.answerBytes as number) < 0) return undefined;
  if (typeof record.answerSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(record.answerSha256))
    return undefined;
  if (record.stateFile !== undefined) {
    if (typeof record.stateFile !== 'string' || !STATE_FILE_PATTERN.test(record.stateFile)) return undefined;
    if (!record.stateFile.startsWith(`${reference}.`)) return undefined;
  }
  if (record.error !== undefined) {
    const error = record.error as Record<string, unknown> | null;
    if (typeof error !== 'object' || error === null) return undefined;
    if (typeof error.code !== 'string' || typeof error.message !== 'string') return undefined;
  }
  return record as unknown as SubagentRecord;
}
