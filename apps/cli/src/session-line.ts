import type { BatchResult, DispatchResult, ToolCall, TurnOrigin } from '@toolhost/boot';
import { type ContentBlock, ERROR_CODES, isObject } from '@toolhost/contracts';

/** The most calls one `{"batch":[...]}` line may carry; a longer batch is refused as a whole. */
export const MAX_BATCH_CALLS = 128;

/** The recovery text of `SESSION_LINE_INVALID`, read from the contract's table (one source). */
const LINE_RECOVERY = ERROR_CODES.SESSION_LINE_INVALID.recovery;

/** A call id as the input gave it (echoed back unchanged), or `null` when there was none. */
export type SessionId = string | number | null;

/** One call of a session line, or why it is not one. */
export type SessionCallEntry =
  | { readonly ok: true; readonly id: SessionId; readonly call: ToolCall }
  | { readonly ok: false; readonly id: SessionId; readonly name: string | null; readonly problem: string };

/** A parsed session input line; `turn` is the line's turn origin (default a person's turn). */
export type SessionLine =
  | { readonly kind: 'call'; readonly entry: SessionCallEntry; readonly turn?: TurnOrigin }
  | { readonly kind: 'batch'; readonly entries: readonly SessionCallEntry[]; readonly turn?: TurnOrigin };

/**
 * The `"turn"` of a line: `{"origin": "human"}` or `{"origin": "goal_round", "goalId": "..."}`.
 * Anything else is a problem of the line.
 */
function turnOf(value: Record<string, unknown>): { turn?: TurnOrigin } | { problem: string } {
  if (value.turn === undefined) return {};
  const turn = value.turn;
  if (!isObject(turn) || (turn.origin !== 'human' && turn.origin !== 'goal_round')) {
    return { problem: '"turn" is not {"origin":"human"} or {"origin":"goal_round","goalId":"..."}' };
  }
  if (turn.goalId !== undefined && typeof turn.goalId !== 'string') {
    return { problem: '"turn.goalId" is not a string' };
  }
  return {
    turn: { origin: turn.origin, ...(typeof turn.goalId === 'string' ? { goalId: turn.goalId } : {}) },
  };
}

/** A content block of a result line: the model-visible text, then images and links as the tool returned them. */
export type SessionContentBlock = ContentBlock;

/** One output result: exactly the session protocol's fields. */
export interface SessionResult {
  readonly id: SessionId;
  readonly name: string | null;
  readonly status: 'ok' | 'error';
  readonly output: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly resultRef: string | null;
  readonly notice?: string;
  /**
   * Present when the result holds more than text (view_image's image): the text (`output`) first,
   * then the images and links, in the MCP content shape `serve` uses (`{type:"image", mimeType, data}`).
   */
  readonly content?: readonly SessionContentBlock[];
  /**
   * On a successful `present`: the session's deliverables it recorded (paths relative to the project
   * root, descriptions and sizes; never file contents).
   */
  readonly deliverables?: readonly SessionDeliverable[];
  /** A hook's or an extension's request that the driver stop (the reason is for the person). */
  readonly stop?: { readonly reason: string; readonly by: string };
}

/** A deliverable as a result line shows it. */
export interface SessionDeliverable {
  readonly path: string;
  readonly description?: string;
  readonly bytes: number;
}

function deliverablesOf(result: DispatchResult): SessionDeliverable[] | undefined {
  if (result.toolName !== 'present' || result.status !== 'ok') return undefined;
  const listed = result.details?.deliverables;
  if (!Array.isArray(listed)) return undefined;
  return listed.flatMap((entry: unknown) => {
    if (!isObject(entry) || typeof entry.path !== 'string' || typeof entry.bytes !== 'number') return [];
    return [
      {
        path: entry.path,
        ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
        bytes: entry.bytes,
      },
    ];
  });
}

function idOf(value: Record<string, unknown>): SessionId {
  const id = value.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function callEntry(value: unknown, where: string): SessionCallEntry {
  if (!isObject(value)) return { ok: false, id: null, name: null, problem: `${where} is not a JSON object` };
  const id = idOf(value);
  const name = typeof value.name === 'string' ? value.name : null;
  if (value.id !== undefined && value.id !== null && id === null) {
    return { ok: false, id: null, name, problem: `${where} has an "id" that is not a string or a number` };
  }
  if (name === null || name === '') {
    return { ok: false, id, name: null, problem: `${where} has no tool "name" (a non-empty string)` };
  }
  if ('batch' in value) {
    return { ok: false, id, name, problem: `${where} has both "name" and "batch"` };
  }
  // `arguments` may be an object, a JSON string, or absent/null (meaning {}); anything else goes to
  // the host, which answers ARGUMENT_VALIDATION, exactly as it would for a model.
  const call: ToolCall = {
    ...(id === null ? {} : { id: String(id) }),
    name,
    ...(value.arguments === undefined ? {} : { arguments: value.arguments }),
  };
  return { ok: true, id, call };
}

/**
 * Parses one `toolhost session` input line: `{"id","name","arguments"}` or `{"batch":[calls...]}`.
 * Never throws: a line that is not JSON, not an object, has no tool name or a malformed batch comes
 * back as an entry with `ok: false` and the reason (answered with `SESSION_LINE_INVALID`). In a
 * batch, each malformed call is reported in its place and the others still run; a batch of more
 * than {@link MAX_BATCH_CALLS} calls is refused whole, with one error line. A trailing `\r` is
 * ignored (CRLF input).
 */
export function parseSessionLine(line: string): SessionLine {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      kind: 'call',
      entry: {
        ok: false,
        id: null,
        name: null,
        problem: text.trim() === '' ? 'the line is empty' : 'the line is not JSON',
      },
    };
  }
  const turn = isObject(value) ? turnOf(value) : {};
  if ('problem' in turn) {
    return {
      kind: 'call',
      entry: { ok: false, id: isObject(value) ? idOf(value) : null, name: null, problem: turn.problem },
    };
  }
  if (isObject(value) && 'batch' in value && !('name' in value)) {
    if (!Array.isArray(value.batch)) {
      return {
        kind: 'call',
        entry: { ok: false, id: idOf(value), name: null, problem: '"batch" is not an array of calls' },
      };
    }
    if (value.batch.length > MAX_BATCH_CALLS) {
      return {
        kind: 'call',
        entry: {
          ok: false,
          id: idOf(value),
          name: null,
          problem: `"batch" has ${value.batch.length} calls, more than the ${MAX_BATCH_CALLS} one line may carry; nothing was run (split it into several lines)`,
        },
      };
    }
    return {
      kind: 'batch',
      entries: value.batch.map((call, index) => callEntry(call, `batch[${index}]`)),
      ...turn,
    };
  }
  return { kind: 'call', entry: callEntry(value, 'the line'), ...turn };
}

/** The result line of an entry that could not be dispatched. */
export function invalidResult(entry: Extract<SessionCallEntry, { ok: false }>): SessionResult {
  const message = `${entry.problem}; ${LINE_RECOVERY}`;
  return {
    id: entry.id,
    name: entry.name,
    status: 'error',
    output: `SESSION_LINE_INVALID: ${message}`,
    error: { code: 'SESSION_LINE_INVALID', message },
    resultRef: null,
  };
}

/** The protocol form of a host result, with the input's id echoed (a number stays a number). */
export function sessionResult(result: DispatchResult, id: SessionId, notice?: string): SessionResult {
  const deliverables = deliverablesOf(result);
  const extra: SessionContentBlock[] = [];
  for (const block of result.content) {
    if (block.type === 'image') extra.push({ type: 'image', mimeType: block.mimeType, data: block.data });
    else if (block.type === 'resource_link') extra.push({ ...block });
  }
  return {
    id: id ?? result.id,
    name: result.name,
    status: result.status,
    output: result.output,
    error: result.error ? { code: result.error.code, message: result.error.message } : null,
    resultRef: result.resultRef,
    ...(notice ? { notice } : {}),
    ...(extra.length > 0 ? { content: [{ type: 'text', text: result.output }, ...extra] } : {}),
    ...(deliverables ? { deliverables } : {}),
    ...(result.stop ? { stop: result.stop } : {}),
  };
}

/** Merges a batch's host results back into input order with the malformed entries' error results. */
export function batchResults(entries: readonly SessionCallEntry[], batch: BatchResult): SessionResult[] {
  let next = 0;
  return entries.map((entry) => {
    if (!entry.ok) return invalidResult(entry);
    const result = batch.results[next];
    next += 1;
    if (!result) throw new Error('the host returned fewer results than calls');
    return sessionResult(result, entry.id);
  });
}
