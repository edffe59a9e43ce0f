import { resolve } from 'node:path';
import type { Host } from '@toolhost/boot';
import {
  type AgentEvent,
  type AgentLoop,
  createAgentLoop,
  type RecordedCall,
  type RunGoal,
} from '../agent-loop.js';
import { canPrompt, createApprovalPrompt } from '../approval-prompt.js';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CliIo, CommandHandler } from '../command-types.js';
import { openHost } from '../open-host.js';
import { resolveProvider } from '../provider-config.js';
import { DEFAULT_TASK } from '../system-prompt.js';
import { createSubagentRunner } from '../subagent-runner.js';
import { createStyler } from '../terminal.js';
import { defaultTranscriptPath, openTranscript, type TranscriptWriter } from '../transcript.js';

const DEFAULT_MAX_ROUNDS = 40;

function parseRounds(text: string | undefined, flag = '--max-rounds', fallback = DEFAULT_MAX_ROUNDS): number {
  if (text === undefined) return fallback;
  const rounds = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10_000) {
    throw usageError(`${flag} takes a whole number from 1 to 10000`);
  }
  return rounds;
}

/** The planner's transcript next to the run's: `run.jsonl` → `run.planner.jsonl`. */
function plannerTranscriptPath(path: string): string {
  return path.endsWith('.jsonl')
    ? `${path.slice(0, -'.jsonl'.length)}.planner.jsonl`
    : `${path}.planner.jsonl`;
}

function brief(value: unknown, limit = 100): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

function callLine(call: RecordedCall): string {
  return `${call.name} ${brief(call.arguments)}`;
}

/** How the run left its goal, in one line. */
export function goalLine(goal: RunGoal): string {
  const rounds = `${goal.roundsRun} automatic round${goal.roundsRun === 1 ? '' : 's'}`;
  const head = `goal ${goal.id} (revision ${goal.revision})`;
  switch (goal.status) {
    case 'completed':
      return `${head}: completed after ${rounds}`;
    case 'blocked':
      return `${head}: blocked after ${rounds}: ${brief(goal.blockedReason ?? '', 160)}`;
    case 'paused':
      return `${head}: paused after ${rounds}`;
    default:
      return goal.stopReason === 'round_limit'
        ? `${head}: still active; stopped after ${rounds}, its limit (max_goal_rounds ${goal.maxGoalRounds})`
        : `${head}: still active after ${rounds}`;
  }
}

/**
 * Prints events for a person: the model's text on stdout, steps on stderr. Colour, and a one-line
 * progress status ("waiting for the model", "running 2 tools") that is erased as soon as anything
 * else is printed, appear only when stderr is a terminal. A subagent's events come with its
 * reference: only its tool steps are printed, indented under it (its text is in its transcript).
 */
function createHumanPrinter(
  io: CliIo,
  transcriptPath: string,
): (event: AgentEvent, subagent?: string) => void {
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
  return (event, subagent) => {
    if (subagent !== undefined) {
      const tag = style.dim(`[${subagent.slice(0, 11)}]`);
      if (event.type === 'tools-started') {
        for (const call of event.calls) step(`  ${tag} ${style.cyan('→')} ${callLine(call)}`);
      } else if (event.type === 'tool-batch') {
        for (const result of event.results) {
          step(
            result.status === 'ok'
              ? `  ${tag}   ${style.green('✓')} ${result.name}`
              : `  ${tag}   ${style.red('✗')} ${result.name} ${brief(result.output.split('\n')[0] ?? '', 120)}`,
          );
        }
      }
      return;
    }
    switch (event.type) {
      case 'model-started':
        status(`round ${event.round}: waiting for the model…`);
        break;
      case 'run-started':
        step(
          style.dim(
            `toolhost run${event.role ? ` (${event.role})` : ''}: ${event.provider} (${event.dialect}) ${event.model}; ` +
              `sandbox ${event.sandbox}, approval ${event.approval}, surface ${event.surface} (${event.surfaceFingerprint}); ` +
              `transcript ${event.role === 'planner' ? plannerTranscriptPath(transcriptPath) : transcriptPath}`,
          ),
        );
        break;
      case 'subagent-started':
        step(
          style.dim(
            `  subagent ${event.reference} started${event.readOnly ? ' (read-only)' : ''}: ${brief(event.description, 80)}; transcript ${event.transcript}`,
          ),
        );
        break;
      case 'subagent-finished':
        step(
          style.dim(
            `  subagent ${event.reference} ${event.status} after ${event.rounds} round${event.rounds === 1 ? '' : 's'}`,
          ),
        );
        break;
      case 'plan-finished':
        step(
          event.status === 'succeeded'
            ? style.dim('the plan goes to the executor session')
            : style.red(`the planner did not produce a plan (${event.status})`),
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
      case 'goal-round':
        step(
          style.cyan(
            `goal round ${event.goalRound}${event.maxGoalRounds === null ? '' : ` of ${event.maxGoalRounds}`} (${event.goalId})`,
          ),
        );
        break;
      case 'conversation-compressed':
        step(
          style.dim(
            `  conversation compressed: ${event.replacedMessages} message${event.replacedMessages === 1 ? '' : 's'} ${event.direction} the anchor replaced by a summary (the transcript keeps them)`,
          ),
        );
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
        if (event.goal) step(goalLine(event.goal));
        if (event.deliverables.length > 0) {
          step(`deliverables (${event.deliverables.length}):`);
          for (const entry of event.deliverables)
            step(`  ${entry.path}${entry.description ? ` — ${brief(entry.description, 160)}` : ''}`);
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
 * was reached or the answer was empty. A goal the model created on the person's request is driven in
 * automatic goal rounds while it is active and rounds remain; how it ended and the deliverables
 * `present` recorded are printed at the end. The run's session has a conversation port, so the model
 * may `compress` the provider-visible conversation when the person asks. The transcript is written
 * as the run goes and keeps every message.
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
  const subagentRounds = parseRounds(
    values['subagent-max-rounds'] as string | undefined,
    '--subagent-max-rounds',
    maxRounds,
  );
  const subagentModel = (values['subagent-model'] as string | undefined)?.trim();
  if (subagentModel === '') throw usageError('--subagent-model needs a model id');
  const planner = values.planner === true;
  const task = positionals[0]?.trim() || DEFAULT_TASK;
  const prompt = { input: io.stdin, output: io.stderr, env: io.env };
  const { getDialect } = await import('@toolhost/provider-dialects');
  const dialect = getDialect(provider.dialect);
  // Events of the subagents reach the run's transcript and printer once they exist (subagents only
  // run inside the loop, after both).
  let emit: (event: AgentEvent, subagent?: string) => void = () => undefined;
  let hostRef: Host | undefined;
  const subagents = createSubagentRunner({
    host: () => hostRef as Host,
    provider: subagentModel ? { ...provider, model: subagentModel } : provider,
    dialect,
    maxRounds: subagentRounds,
    onEvent: (event) => emit(event),
    onSubagentEvent: (reference, event) => emit(event, reference),
  });
  const host = await openHost(globals, {
    io,
    network: values.network === true,
    ...(canPrompt(prompt) ? { approve: createApprovalPrompt(prompt) } : {}),
    subagents,
    // The loop owns its conversation, so its session gets compress.
    conversationTools: true,
    ...(values.plan === true ? { plan: true } : {}),
  });
  hostRef = host;
  try {
    const transcriptPath =
      typeof values.transcript === 'string'
        ? resolve(io.cwd, values.transcript)
        : defaultTranscriptPath(host.stateDir);
    const open = (path: string): TranscriptWriter => {
      try {
        return openTranscript(path);
      } catch (error) {
        throw usageError(`cannot create the transcript ${path}: ${(error as Error).message}`, error);
      }
    };
    const transcript = open(transcriptPath);
    let plannerTranscript: TranscriptWriter | undefined;
    const printer =
      values.json === true
        ? (event: AgentEvent, subagent?: string) => {
            if (subagent === undefined) io.stdout.write(`${JSON.stringify(event)}\n`);
          }
        : createHumanPrinter(io, transcriptPath);
    emit = (event, subagent) => {
      if (subagent === undefined) transcript.write(event);
      printer(event, subagent);
    };
    const controller = new AbortController();
    let active: AgentLoop | undefined;
    // stdout's reader going away stops the run outright.
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    onInterrupt(() => {
      // The first Ctrl-C stops the running tools, and with them the subagents they run.
      if (active?.interruptTools()) {
        io.stderr.write(
          subagents.running > 0
            ? '\nstopping the running tools and subagents (Ctrl-C again stops the run)\n'
            : '\nstopping the running tools (Ctrl-C again stops the run)\n',
        );
      } else if (!controller.signal.aborted) {
        io.stderr.write('\nstopping the run\n');
        controller.abort(new Error('interrupted'));
      }
    });
    try {
      let executorTask = task;
      if (planner) {
        // A read-only child session with its own frontend, ledger and audit; the connections it
        // opens (MCP servers) are the host's, so the executor reaches them without starting them again.
        const executor = host.defaultSession();
        const planning = await executor.openChild({ sandbox: 'read_only' });
        const path = plannerTranscriptPath(transcriptPath);
        plannerTranscript = open(path);
        const plannerWriter = plannerTranscript;
        const planLoop = createAgentLoop({
          host,
          session: planning,
          role: 'planner',
          dialect,
          provider,
          task,
          maxRounds,
          signal: controller.signal,
          onEvent: (event) => {
            plannerWriter.write(event);
            printer(event);
          },
        });
        active = planLoop;
        const planned = await planLoop.run();
        active = undefined;
        await planning.close();
        plannerTranscript.close();
        emit({
          type: 'plan-finished',
          status: planned.status,
          sessionId: planning.id,
          transcript: path,
          plan: planned.answer,
        });
        if (planned.status !== 'succeeded' || !planned.answer) {
          return planned.status === 'cancelled' ? EXIT_CODES.interrupted : EXIT_CODES.failure;
        }
        executorTask =
          `${task}\n\nA read-only planning session investigated the project and made this plan; carry it out ` +
          `(adapt it where the project turns out different):\n\n${planned.answer}`;
      }
      const loop = createAgentLoop({
        host,
        dialect,
        provider,
        task: executorTask,
        maxRounds,
        signal: controller.signal,
        subagents: true,
        onEvent: emit,
      });
      active = loop;
      const outcome = await loop.run();
      if (outcome.status === 'succeeded') return EXIT_CODES.success;
      return outcome.status === 'cancelled' ? EXIT_CODES.interrupted : EXIT_CODES.failure;
    } finally {
      plannerTranscript?.close();
      transcript.close();
    }
  } finally {
    await host.close();
  }
};
