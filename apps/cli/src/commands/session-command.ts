import { errorMessage } from '@toolhost/contracts';
import type { Session } from '@toolhost/boot';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';
import type { JsonRpcId } from '../json-rpc-limits.js';
import { createLineQueue } from '../line-queue.js';
import { openHost } from '../open-host.js';
import {
  batchResults,
  invalidResult,
  parseSessionLine,
  type SessionResult,
  sessionResult,
} from '../session-line.js';

function unexpected(id: SessionResult['id'], name: string | null, error: unknown): SessionResult {
  const message = `the host failed unexpectedly: ${errorMessage(error)}; report it`;
  return {
    id,
    name,
    status: 'error',
    output: `EXECUTION_ERROR: ${message}`,
    error: { code: 'EXECUTION_ERROR', message },
    resultRef: null,
  };
}

async function answer(session: Session, line: string, signal: AbortSignal): Promise<unknown> {
  const parsed = parseSessionLine(line);
  const options = { signal, ...(parsed.turn ? { turn: parsed.turn } : {}) };
  if (parsed.kind === 'call') {
    const { entry } = parsed;
    if (!entry.ok) return invalidResult(entry);
    try {
      const result = await session.dispatch(entry.call, options);
      return sessionResult(result, entry.id, result.notice);
    } catch (error) {
      return unexpected(entry.id, entry.call.name, error);
    }
  }
  const calls = parsed.entries.flatMap((entry) => (entry.ok ? [entry.call] : []));
  try {
    const batch = await session.dispatchBatch(calls, options);
    return {
      batch: batchResults(parsed.entries, batch),
      ...(batch.notice ? { notice: batch.notice } : {}),
      ...(batch.stop ? { stop: batch.stop } : {}),
    };
  } catch (error) {
    return {
      batch: parsed.entries.map((entry) =>
        entry.ok ? unexpected(entry.id, entry.call.name, error) : invalidResult(entry),
      ),
    };
  }
}

/** The longest session input line read, in bytes (4 MiB, as `serve`); a longer one is answered `SESSION_LINE_INVALID`. */
export const MAX_SESSION_LINE_BYTES = 4 * 1024 * 1024;

/**
 * How long, by default, calls may still run after the end of input, in ms (`--drain-ms`). Lines
 * already read are all answered; what is still running (or not yet started) when this time is up
 * is cancelled and answered `ABORTED`, and the host closes. Ten seconds lets a piped script's quick
 * calls finish and ends a session whose last call hangs (an MCP tool that only sends progress)
 * promptly; a script with long calls passes a larger value.
 */
export const DEFAULT_SESSION_DRAIN_MS = 10_000;

function tooLongResult(id: JsonRpcId): SessionResult {
  return invalidResult({
    ok: false,
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    name: null,
    problem: `the line is larger than ${MAX_SESSION_LINE_BYTES} bytes, the limit of one session line; it was not read`,
  });
}

function parseDrainMs(value: unknown): number {
  if (value === undefined) return DEFAULT_SESSION_DRAIN_MS;
  const text = String(value);
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms > 86_400_000) {
    throw usageError('--drain-ms takes a whole number of milliseconds from 0 to 86400000');
  }
  return ms;
}

/**
 * `toolhost session [--session-id ID | --resume ID] [--drain-ms MS]`: JSON Lines through one session
 * of one host. Lines are answered one at a time, in input order, each with exactly one output line
 * written at once (so a driver can go step by step); stdout carries nothing else, and the session id
 * goes to stderr. `--resume ID` continues a session of this project (its observations and stored
 * results). Input is read ahead, bounded: a line over {@link MAX_SESSION_LINE_BYTES} is never held
 * and is answered `SESSION_LINE_INVALID` (with its id when found). End of input ends the session:
 * every line already read is still answered, but calls get at most `--drain-ms` (default
 * {@link DEFAULT_SESSION_DRAIN_MS}) more; then whatever still runs is cancelled (`ABORTED`) and the
 * host closes, which ends its jobs and MCP servers and keeps the session's snapshot. SIGINT/SIGTERM
 * stop at once (exit 130). No one can be asked for approval here, so such calls fail closed.
 */
export const sessionCommand: CommandHandler = async ({ globals, values, io, signal }) => {
  const drainMs = parseDrainMs(values['drain-ms']);
  const requested = values['session-id'] as string | undefined;
  const resume = values.resume as string | undefined;
  if (requested !== undefined && resume !== undefined) {
    throw usageError('--session-id starts a new session and --resume continues one; pass one of them');
  }
  const plan = values.plan === true;
  const host = await openHost(globals, { io, network: values.network === true });
  let session: Session;
  try {
    session =
      resume !== undefined
        ? await host.resumeSession(resume, plan ? { plan } : {})
        : await host.openSession({
            ...(requested === undefined ? {} : { id: requested }),
            ...(plan ? { plan } : {}),
          });
  } catch (error) {
    await host.close();
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'CONFIG_INVALID' || code === 'SESSION_NOT_FOUND' || code === 'SESSION_IN_USE') {
      throw usageError(errorMessage(error), error);
    }
    throw error;
  }
  io.stderr.write(`toolhost: session ${session.id}${resume === undefined ? '' : ' (resumed)'}\n`);
  const lines = createLineQueue(io.stdin, MAX_SESSION_LINE_BYTES);
  // Cancels the calls of this session: on SIGINT/SIGTERM at once, after end of input once the drain is over.
  const calls = new AbortController();
  const onSignal = () => {
    calls.abort(signal.reason);
    lines.close();
  };
  signal.addEventListener('abort', onSignal, { once: true });
  let drainTimer: NodeJS.Timeout | undefined;
  void lines.ended.then(() => {
    if (signal.aborted || calls.signal.aborted) return;
    drainTimer = setTimeout(
      () => calls.abort(new Error('the input ended and the drain time is over')),
      drainMs,
    );
  });
  try {
    for (;;) {
      const line = await lines.next();
      if (line === undefined || signal.aborted) break;
      const reply =
        line.kind === 'too-long' ? tooLongResult(line.id) : await answer(session, line.text, calls.signal);
      io.stdout.write(`${JSON.stringify(reply)}\n`);
    }
  } finally {
    clearTimeout(drainTimer);
    signal.removeEventListener('abort', onSignal);
    lines.close();
    await host.close();
  }
  return signal.aborted ? EXIT_CODES.interrupted : EXIT_CODES.success;
};
