import { createInterface } from 'node:readline';
import type { Session } from '@toolhost/boot';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';
import { openHost } from '../open-host.js';
import {
  batchResults,
  invalidResult,
  parseSessionLine,
  type SessionResult,
  sessionResult,
} from '../session-line.js';

function unexpected(id: SessionResult['id'], name: string | null, error: unknown): SessionResult {
  const message = `the host failed unexpectedly: ${error instanceof Error ? error.message : String(error)}; report it`;
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
    return { batch: batchResults(parsed.entries, batch), ...(batch.notice ? { notice: batch.notice } : {}) };
  } catch (error) {
    return {
      batch: parsed.entries.map((entry) =>
        entry.ok ? unexpected(entry.id, entry.call.name, error) : invalidResult(entry),
      ),
    };
  }
}

/**
 * `toolhost session [--session-id ID | --resume ID]`: JSON Lines through one session of one host.
 * Lines are answered one at a time, in input order, each with exactly one output line written at once
 * (so a driver can go step by step); stdout carries nothing else, and the session id goes to stderr.
 * `--resume ID` continues a session of this project (its observations and stored results); end of
 * input (or SIGINT/SIGTERM) closes the session and the host, which ends its jobs and servers and
 * keeps the session's snapshot. No one can be asked for approval here, so such calls fail closed.
 */
export const sessionCommand: CommandHandler = async ({ globals, values, io, signal }) => {
  const requested = values['session-id'] as string | undefined;
  const resume = values.resume as string | undefined;
  if (requested !== undefined && resume !== undefined) {
    throw usageError('--session-id starts a new session and --resume continues one; pass one of them');
  }
  const host = await openHost(globals, { io });
  let session: Session;
  try {
    session =
      resume !== undefined
        ? await host.resumeSession(resume)
        : await host.openSession(requested === undefined ? {} : { id: requested });
  } catch (error) {
    await host.close();
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'CONFIG_INVALID' || code === 'SESSION_NOT_FOUND' || code === 'SESSION_IN_USE') {
      throw usageError(error instanceof Error ? error.message : String(error), error);
    }
    throw error;
  }
  io.stderr.write(`toolhost: session ${session.id}${resume === undefined ? '' : ' (resumed)'}\n`);
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  const stop = () => lines.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of lines) {
      if (signal.aborted) break;
      const reply = await answer(session, line, signal);
      io.stdout.write(`${JSON.stringify(reply)}\n`);
    }
  } finally {
    signal.removeEventListener('abort', stop);
    lines.close();
    await host.close();
  }
  return signal.aborted ? EXIT_CODES.interrupted : EXIT_CODES.success;
};
