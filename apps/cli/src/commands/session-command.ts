import { createInterface } from 'node:readline';
import type { Host } from '@toolhost/boot';
import { EXIT_CODES } from '../cli-error.js';
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

async function answer(host: Host, line: string, signal: AbortSignal): Promise<unknown> {
  const parsed = parseSessionLine(line);
  if (parsed.kind === 'call') {
    const { entry } = parsed;
    if (!entry.ok) return invalidResult(entry);
    try {
      const result = await host.dispatch(entry.call, { signal });
      return sessionResult(result, entry.id, result.notice);
    } catch (error) {
      return unexpected(entry.id, entry.call.name, error);
    }
  }
  const calls = parsed.entries.flatMap((entry) => (entry.ok ? [entry.call] : []));
  try {
    const batch = await host.dispatchBatch(calls, { signal });
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
 * `toolhost session`: JSON Lines through one host. Lines are answered one at a time, in input order,
 * each with exactly one output line written at once (so a driver can go step by step); stdout carries
 * nothing else. End of input (or SIGINT/SIGTERM) closes the host, which ends its jobs and servers.
 * No one can be asked for approval here, so such calls fail closed.
 */
export const sessionCommand: CommandHandler = async ({ globals, io, signal }) => {
  const host = await openHost(globals, { io });
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  const stop = () => lines.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const line of lines) {
      if (signal.aborted) break;
      const reply = await answer(host, line, signal);
      io.stdout.write(`${JSON.stringify(reply)}\n`);
    }
  } finally {
    signal.removeEventListener('abort', stop);
    lines.close();
    await host.close();
  }
  return signal.aborted ? EXIT_CODES.interrupted : EXIT_CODES.success;
};
