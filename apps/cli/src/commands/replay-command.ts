import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DispatchResult } from '@toolhost/boot';
import type { RecordedCall, RecordedResult } from '../agent-loop.js';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CommandHandler, CommandInput } from '../command-types.js';
import { openHost } from '../open-host.js';
import { createStyler } from '../terminal.js';
import { type ParsedTranscript, readTranscript } from '../transcript.js';

/** An outcome: `ok`, or the error code. */
function outcomeOf(result: { status: 'ok' | 'error'; error: { code: string } | null }): string {
  return result.status === 'ok' ? 'ok' : (result.error?.code ?? 'error');
}

/** One replayed call and how it compares with the recording. */
export interface ReplayedCall {
  readonly round: number;
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly recorded: string;
  readonly replayed: string;
  /** Whether the outcome (ok, or the error code) changed. */
  readonly changed: boolean;
  /** Whether the model-visible text differs (files change; this alone is not a changed outcome). */
  readonly outputDiffers: boolean;
}

function brief(value: unknown, limit = 72): string {
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\s+/g, ' ');
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function compare(
  round: number,
  call: RecordedCall,
  recorded: RecordedResult,
  replayed: DispatchResult,
): ReplayedCall {
  const before = outcomeOf(recorded);
  const after = outcomeOf(replayed);
  return {
    round,
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    recorded: before,
    replayed: after,
    changed: before !== after,
    outputDiffers: recorded.output !== replayed.output,
  };
}

/** The transcripts that ship with the package, by the name the READMEs use. */
const BUNDLED_EXAMPLES = new Set(['examples/explore.jsonl']);

/**
 * The installed `toolhost` package's directory: the nearest ancestor of this module with the
 * package's own manifest (this code runs from `dist/`, bundled into a chunk at any depth).
 */
function packageDirectory(): string | undefined {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
        name?: unknown;
      };
      if (manifest.name === 'toolhost') return directory;
    } catch {
      // no manifest here
    }
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/**
 * A bundled example named as the READMEs name it (`examples/explore.jsonl`), when no such file
 * exists where the user is: its path, and the directory it explored (the package itself).
 */
function bundledExample(given: string): { file: string; root: string } | undefined {
  const name = posix.normalize(given.replaceAll('\\', '/'));
  if (!BUNDLED_EXAMPLES.has(name)) return undefined;
  const root = packageDirectory();
  if (!root) return undefined;
  const file = join(root, name);
  return existsSync(file) ? { file, root } : undefined;
}

/**
 * `toolhost replay FILE`: re-runs a transcript's recorded tool calls through a fresh host under the
 * current policy (each recorded batch as one `dispatchBatch`, in order, so read-before-edit evidence
 * builds up as it did) and reports, per call, the recorded and the new outcome. Exit code 1 when
 * any outcome changed. Nobody is asked for approval: calls a person approved during the run fail
 * closed here, and show up as changed. Calls really run: replaying a transcript that wrote files
 * under a policy that allows writing writes them again.
 *
 * `examples/explore.jsonl`, when there is no such file in the working directory, is the example
 * that ships with the package (a read-only exploration of the package itself): it is replayed with
 * the package directory as the root (unless `--root` is given) and a temporary state directory, so
 * nothing is written into the installation.
 */
export const replayCommand: CommandHandler = async ({ globals, values, positionals, io, signal }) => {
  let file = resolve(io.cwd, positionals[0]!);
  let root = globals.root;
  let stateDir: string | undefined;
  const example = existsSync(file) ? undefined : bundledExample(positionals[0]!);
  if (example) {
    file = example.file;
    if (!globals.rootGiven) {
      root = example.root;
      stateDir = mkdtempSync(join(tmpdir(), 'toolhost-replay-'));
    }
    io.stderr.write(
      `toolhost: no ${positionals[0]} here; replaying the example that ships with toolhost (${file})${globals.rootGiven ? '' : `, with ${root} as the root`}\n`,
    );
  }
  let transcript: ParsedTranscript;
  try {
    transcript = readTranscript(file);
  } catch (error) {
    throw usageError(`cannot replay ${file}: ${(error as Error).message}`, error);
  }
  if (transcript.batches.length === 0) throw usageError(`${file} records no tool calls to replay`);
  try {
    return await replayTranscript(
      { ...globals, root },
      { file, transcript, values, positionals, io, signal, stateDir },
    );
  } finally {
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
};

async function replayTranscript(
  globals: CommandInput['globals'],
  {
    file,
    transcript,
    values,
    positionals,
    io,
    signal,
    stateDir,
  }: Pick<CommandInput, 'values' | 'positionals' | 'io' | 'signal'> & {
    file: string;
    transcript: ParsedTranscript;
    stateDir: string | undefined;
  },
): Promise<number> {
  const host = await openHost(globals, { io, ...(stateDir ? { stateDir } : {}) });
  const replayed: ReplayedCall[] = [];
  try {
    for (const batch of transcript.batches) {
      if (signal.aborted) break;
      const results = await host.dispatchBatch(
        batch.calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
        // A goal round's calls are replayed with its authority, not a person's.
        { signal, ...(batch.turn ? { turn: batch.turn } : {}) },
      );
      batch.calls.forEach((call, index) => {
        const recorded = batch.results[index]!;
        const result = results.results[index];
        if (result) replayed.push(compare(batch.round, call, recorded, result));
      });
    }
  } finally {
    await host.close();
  }
  if (signal.aborted) return EXIT_CODES.interrupted;
  const changed = replayed.filter((call) => call.changed).length;
  const differing = replayed.filter((call) => call.outputDiffers).length;
  const started = transcript.started;
  const summary = {
    file,
    calls: replayed.length,
    batches: transcript.batches.length,
    changed,
    outputsDiffer: differing,
    recordedPolicy: started
      ? { sandbox: started.sandbox, approval: started.approval, surface: started.surface }
      : null,
    currentPolicy: { sandbox: host.sandbox, approval: host.approval, surface: host.surface },
  };
  if (values.json === true) {
    for (const call of replayed) io.stdout.write(`${JSON.stringify({ type: 'call', ...call })}\n`);
    io.stdout.write(`${JSON.stringify({ type: 'summary', ...summary })}\n`);
  } else {
    const style = createStyler(io.stdout, io.env);
    const policy = (p: { sandbox: string; approval: string; surface: string }) =>
      `sandbox ${p.sandbox}, approval ${p.approval}, surface ${p.surface}`;
    const lines = [
      `replaying ${replayed.length} calls in ${transcript.batches.length} batches from ${positionals[0]}`,
      `  recorded under ${summary.recordedPolicy ? policy(summary.recordedPolicy) : 'an unknown policy'}`,
      `  replayed under ${policy(summary.currentPolicy)}`,
      '',
    ];
    for (const call of replayed) {
      const mark = call.changed ? style.red('changed') : style.green('same   ');
      const outcome = call.changed ? `${call.recorded} -> ${call.replayed}` : call.replayed;
      lines.push(
        `  ${mark}  round ${call.round}  ${style.bold(call.name)} ${brief(call.arguments)}  ${outcome}` +
          (call.outputDiffers && !call.changed ? style.dim('  (output differs)') : ''),
      );
    }
    lines.push(
      '',
      changed === 0
        ? style.green(`no outcome changed (${differing} of ${replayed.length} outputs differ in text)`)
        : style.red(`${changed} of ${replayed.length} outcomes changed under the current policy`),
    );
    io.stdout.write(`${lines.join('\n')}\n`);
  }
  return changed === 0 ? EXIT_CODES.success : EXIT_CODES.failure;
}
