import { resolve } from 'node:path';
import { type AgentEvent, createAgentLoop, type RecordedCall } from '../agent-loop.js';
import { canPrompt, createApprovalPrompt } from '../approval-prompt.js';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CliIo, CommandHandler } from '../command-types.js';
import { openHost } from '../open-host.js';
import { resolveProvider } from '../provider-config.js';
import { DEFAULT_TASK } from '../system-prompt.js';
import { createStyler } from '../terminal.js';
import { defaultTranscriptPath, openTranscript } from '../transcript.js';

const DEFAULT_MAX_ROUNDS = 40;

function parseRounds(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_ROUNDS;
  const rounds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10_000) {
    throw usageError('--max-rounds takes a whole number from 1 to 10000');
  }
  return rounds;
}

function brief(value: unknown, limit = 100): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

function callLine(call: RecordedCall): string {
  return `${call.name} ${brief(call.arguments)}`;
}

/**
 * Prints events for a person: the model's text on stdout, steps on stderr. Colour, and a one-line
 * progress status ("waiting for the model", "running 2 tools") that is erased as soon as anything
 * else is printed, appear only when stderr is a terminal.
 */
function createHumanPrinter(io: CliIo, transcriptPath: string): (event: AgentEvent) => void {
  const style = createStyler(io.stderr, io.env);
  const live = io.stderr.isTTY === true;
  let textOpen = false;
  let statusShown = false;
  const clearStatus = () => {
    if (!statusShown) return;
    io.stderr.write('\r\u001b[K');
    statusShown = false;
  };
  const status = (text: string) => {
    if (!live || textOpen) return;
    clearStatus();
    io.stderr.write(style.dim(text));
    statusShown = true;
  };
  const step = (line: string) => {
    clearStatus();
    if (textOpen) {
      io.stdout.write('\n');
      textOpen = false;
    }
    io.stderr.write(`${line}\n`);
  };
  return (event) => {
    switch (event.type) {
      case 'model-started':
        status(`round ${event.round}: waiting for the model…`);
        break;
      case 'run-started':
        step(
          style.dim(
            `toolhost run: ${event.provider} (${event.dialect}) ${event.model}; sandbox ${event.sandbox}, approval ` +
              `${event.approval}, surface ${event.surface} (${event.surfaceFingerprint}); transcript ${transcriptPath}`,
          ),
        );
        break;
      case 'text-delta':
        clearStatus();
        io.stdout.write(event.text);
        textOpen = !event.text.endsWith('\n');
        break;
      case 'retry':
        step(
          style.yellow(
            `retrying in ${(event.delayMs / 1000).toFixed(1)}s (attempt ${event.attempt}): ${event.reason}`,
          ),
        );
        break;
      case 'tools-started':
        for (const call of event.calls) step(`${style.cyan('→')} ${callLine(call)}`);
        status(`running ${event.calls.length} tool${event.calls.length === 1 ? '' : 's'}…`);
        break;
      case 'tool-batch':
        for (const result of event.results) {
          step(
            result.status === 'ok'
              ? `  ${style.green('✓')} ${result.name} ${style.dim(`${Math.round(result.durationMs)} ms`)}`
              : `  ${style.red('✗')} ${result.name} ${brief(result.output.split('\n')[0] ?? '', 140)}`,
          );
        }
        if (event.notice) step(style.yellow(`  notice: ${brief(event.notice, 200)}`));
        break;
      case 'run-finished': {
        if (textOpen) io.stdout.write('\n');
        textOpen = false;
        const tokens = `${event.usage.inputTokens} in / ${event.usage.outputTokens} out tokens`;
        if (event.status === 'succeeded') {
          step(style.dim(`done in ${event.rounds} round${event.rounds === 1 ? '' : 's'}, ${tokens}`));
        } else if (event.status === 'cancelled') {
          step(style.yellow(`cancelled after ${event.rounds} rounds`));
        } else {
          step(
            style.red(
              `run failed after ${event.rounds} rounds: ${event.error?.code}: ${event.error?.message}`,
            ),
          );
        }
        break;
      }
      default:
        break;
    }
  };
}

/**
 * `toolhost run [TASK]`: the reference agent loop against a provider. Provider gaps are usage errors
 * (exit 2) that say what to set, checked before anything starts. The first Ctrl-C stops the running
 * tools (the model hears they were stopped), a Ctrl-C with no tools running (or a second one) stops
 * the run (exit 130). Exit 0 when the model answered, 1 when the provider failed, the round limit
 * was reached or the answer was empty. The transcript is written as the run goes.
 */
export const runCommand: CommandHandler = async ({
  globals,
  values,
  positionals,
  io,
  signal,
  onInterrupt,
}) => {
  const provider = resolveProvider(
    {
      provider: values.provider as string | undefined,
      model: values.model as string | undefined,
      baseUrl: values['base-url'] as string | undefined,
      dialect: values.dialect as string | undefined,
    },
    io.env,
  );
  const maxRounds = parseRounds(values['max-rounds'] as string | undefined);
  const task = positionals[0]?.trim() || DEFAULT_TASK;
  const prompt = { input: io.stdin, output: io.stderr, env: io.env };
  const host = await openHost(globals, {
    io,
    ...(canPrompt(prompt) ? { approve: createApprovalPrompt(prompt) } : {}),
    ...(values.plan === true ? { plan: true } : {}),
  });
  try {
    const { getDialect } = await import('@toolhost/provider-dialects');
    const transcriptPath =
      typeof values.transcript === 'string'
        ? resolve(io.cwd, values.transcript)
        : defaultTranscriptPath(host.stateDir);
    let transcript: ReturnType<typeof openTranscript>;
    try {
      transcript = openTranscript(transcriptPath);
    } catch (error) {
      throw usageError(`cannot create the transcript ${transcriptPath}: ${(error as Error).message}`, error);
    }
    const print =
      values.json === true
        ? (event: AgentEvent) => io.stdout.write(`${JSON.stringify(event)}\n`)
        : createHumanPrinter(io, transcriptPath);
    const controller = new AbortController();
    const loop = createAgentLoop({
      host,
      dialect: getDialect(provider.dialect),
      provider,
      task,
      maxRounds,
      signal: controller.signal,
      onEvent: (event) => {
        transcript.write(event);
        print(event);
      },
    });
    // stdout's reader going away stops the run outright.
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    onInterrupt(() => {
      if (loop.interruptTools()) {
        io.stderr.write('\nstopping the running tools (Ctrl-C again stops the run)\n');
      } else if (!controller.signal.aborted) {
        io.stderr.write('\nstopping the run\n');
        controller.abort(new Error('interrupted'));
      }
    });
    try {
      const outcome = await loop.run();
      if (outcome.status === 'succeeded') return EXIT_CODES.success;
      return outcome.status === 'cancelled' ? EXIT_CODES.interrupted : EXIT_CODES.failure;
    } finally {
      transcript.close();
    }
  } finally {
    await host.close();
  }
};
