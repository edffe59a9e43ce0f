import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TurnOrigin } from '@toolhost/boot';
import { isObject } from '@toolhost/contracts';
import type { AgentEvent, RecordedCall, RecordedResult } from './agent-loop.js';

/** The transcript format version written in every row. */
export const TRANSCRIPT_VERSION = 1;

/** Events that are progress display only and never written. */
const NOT_RECORDED = new Set<AgentEvent['type']>(['text-delta', 'model-started', 'tools-started']);

/** A transcript file being written. */
export interface TranscriptWriter {
  readonly path: string;
  /** Appends the event as one JSON line (display-only events are skipped). */
  write(event: AgentEvent): void;
  close(): void;
}

/**
 * The default transcript path: `<stateDir>/runs/<UTC timestamp>-<random>.jsonl`, or
 * `...-<random>-<label>.jsonl` with a label (`planner`, a subagent's reference).
 */
export function defaultTranscriptPath(stateDir: string, now: Date = new Date(), label?: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..+$/, '').replace('T', '-');
  const suffix = label ? `-${label.replace(/[^A-Za-z0-9_-]/g, '')}` : '';
  return join(stateDir, 'runs', `${stamp}-${randomBytes(3).toString('hex')}${suffix}.jsonl`);
}

/**
 * Opens a JSONL transcript: one row per recorded event, `{ "v": 1, "time": ISO, "type", ...event }`,
 * written synchronously so a run that is killed keeps every row up to that point. The directory is
 * created (mode 0700: transcripts hold file contents the model read); an existing file is refused
 * rather than appended to.
 */
export function openTranscript(path: string): TranscriptWriter {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'wx', 0o600);
  let open = true;
  return {
    path,
    write(event) {
      if (!open || NOT_RECORDED.has(event.type)) return;
      writeSync(
        fd,
        `${JSON.stringify({ v: TRANSCRIPT_VERSION, time: new Date().toISOString(), ...event })}\n`,
      );
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** One recorded batch of a transcript, as `replay` re-runs it. */
export interface TranscriptBatch {
  readonly round: number;
  readonly calls: readonly RecordedCall[];
  readonly results: readonly RecordedResult[];
  /** The batch's turn origin when it belonged to an automatic goal round. */
  readonly turn?: TurnOrigin;
}

/** What `replay` needs from a transcript. */
export interface ParsedTranscript {
  /** The `run-started` row, when present (the recorded policy). */
  readonly started: Extract<AgentEvent, { type: 'run-started' }> | undefined;
  readonly batches: readonly TranscriptBatch[];
}

/** A transcript that cannot be replayed, with the line number of the first problem. */
export class TranscriptError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'TranscriptError';
  }
}

function checkCall(value: unknown): value is RecordedCall {
  return isObject(value) && typeof value.id === 'string' && typeof value.name === 'string';
}

function checkResult(value: unknown): value is RecordedResult {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    (value.status === 'ok' || value.status === 'error') &&
    typeof value.output === 'string' &&
    (value.error === null || (isObject(value.error) && typeof value.error.code === 'string'))
  );
}

/**
 * Reads a transcript written by `toolhost run`: the `run-started` row and every `tool-batch` row
 * (calls with their recorded results), in order. Other row types are skipped, so later versions
 * may add rows. Throws {@link TranscriptError} for a line that is not JSON, a row of an unknown
 * version, or a batch whose calls and results do not pair up.
 */
export function readTranscript(path: string): ParsedTranscript {
  const text = readFileSync(path, 'utf8');
  let started: ParsedTranscript['started'];
  const batches: TranscriptBatch[] = [];
  text.split('\n').forEach((line, index) => {
    const number = index + 1;
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new TranscriptError('not JSON', number);
    }
    if (!isObject(row) || typeof row.type !== 'string')
      throw new TranscriptError('not a transcript row', number);
    if (row.v !== TRANSCRIPT_VERSION)
      throw new TranscriptError(`unknown transcript version ${String(row.v)}`, number);
    if (row.type === 'run-started') started = row as unknown as ParsedTranscript['started'];
    if (row.type !== 'tool-batch') return;
    const { calls, results } = row;
    if (!Array.isArray(calls) || !Array.isArray(results) || calls.length !== results.length) {
      throw new TranscriptError('a tool-batch row needs calls and results of equal length', number);
    }
    if (!calls.every(checkCall) || !results.every(checkResult)) {
      throw new TranscriptError('a tool-batch row has a malformed call or result', number);
    }
    const turn =
      isObject(row.turn) && row.turn.origin === 'goal_round' && typeof row.turn.goalId === 'string'
        ? { turn: { origin: 'goal_round' as const, goalId: row.turn.goalId } }
        : {};
    batches.push({ round: typeof row.round === 'number' ? row.round : 0, calls, results, ...turn });
  });
  return { started, batches };
}
