import type { Host, SubagentRunner, SubagentRunOutcome, SubagentRunRequest } from '@toolhost/boot';
import type { Dialect, Message } from '@toolhost/provider-dialects';
import { type AgentEvent, type AgentOutcome, createAgentLoop } from './agent-loop.js';
import type { ProviderSettings } from './provider-config.js';
import { defaultTranscriptPath, openTranscript } from './transcript.js';

/** The state `continue_from` hands back: the subagent's whole conversation. */
interface ConversationState {
  readonly format: 'toolhost-conversation-v1';
  readonly messages: readonly Message[];
}

/** Options of {@link createSubagentRunner}. */
export interface SubagentRunnerOptions {
  /** The host the subagents' sessions belong to (set once it exists; subagents run only after that). */
  readonly host: () => Host;
  /** The provider (with `--subagent-model`'s model when given). */
  readonly provider: ProviderSettings;
  readonly dialect: Dialect;
  /** A subagent's step limit: past it the run is `partial` (and retryable). */
  readonly maxRounds: number;
  /** The parent run's events: `subagent-started` and `subagent-finished` go to its transcript and printer. */
  readonly onEvent: (event: AgentEvent) => void;
  /** Each subagent's own events, for a live display (its transcript gets them anyway). */
  readonly onSubagentEvent?: (reference: string, event: AgentEvent) => void;
  readonly fetch?: typeof fetch;
}

/** A runner for `toolhost run`, which also says whether subagents are running (Ctrl-C stops them first). */
export interface CliSubagentRunner extends SubagentRunner {
  /** How many subagents are running now. */
  readonly running: number;
}

function conversationOf(state: unknown): readonly Message[] | undefined {
  if (typeof state !== 'object' || state === null) return undefined;
  const value = state as Partial<ConversationState>;
  if (value.format !== 'toolhost-conversation-v1' || !Array.isArray(value.messages)) return undefined;
  return value.messages;
}

/**
 * The subagent runner of `toolhost run`: each subagent is the same agent loop, with the same
 * provider (or `--subagent-model`), in the child session the host opened for it, with its own
 * transcript (`<state dir>/runs/<stamp>-<random>-<reference>.jsonl`). The loop's outcome maps to the
 * host's statuses: an answer is `completed`, the step limit `partial` (its last visible text is the
 * answer), a cancelled run `cancelled`, anything else `failed`; the conversation is the state that
 * `continue_from` hands back, so a continued subagent goes on where it stopped.
 */
export function createSubagentRunner(options: SubagentRunnerOptions): CliSubagentRunner {
  let running = 0;
  return {
    get running() {
      return running;
    },
    async run(request: SubagentRunRequest): Promise<SubagentRunOutcome> {
      const host = options.host();
      const path = defaultTranscriptPath(host.stateDir, new Date(), request.reference);
      const transcript = openTranscript(path);
      running++;
      options.onEvent({
        type: 'subagent-started',
        reference: request.reference,
        description: request.description,
        readOnly: request.readOnly,
        sessionId: request.session.id,
        transcript: path,
      });
      const history = request.resume ? conversationOf(request.resume.state) : undefined;
      const task = history
        ? `[toolhost] Your previous run on this task ended ${request.resume?.status}. Continue it: ${request.prompt}`
        : request.prompt;
      let outcome: AgentOutcome | undefined;
      try {
        const loop = createAgentLoop({
          host,
          session: request.session,
          role: 'subagent',
          dialect: options.dialect,
          provider: options.provider,
          task,
          maxRounds: options.maxRounds,
          signal: request.signal,
          ...(history ? { history } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
          onEvent: (event) => {
            transcript.write(event);
            options.onSubagentEvent?.(request.reference, event);
          },
        });
        outcome = await loop.run();
      } finally {
        transcript.close();
        running--;
      }
      const status: SubagentRunOutcome['status'] =
        outcome.status === 'succeeded'
          ? 'completed'
          : outcome.status === 'cancelled' || request.signal.aborted
            ? 'cancelled'
            : outcome.error?.code === 'ROUND_LIMIT'
              ? 'partial'
              : 'failed';
      options.onEvent({
        type: 'subagent-finished',
        reference: request.reference,
        status,
        rounds: outcome.rounds,
        transcript: path,
      });
      const state: ConversationState = {
        format: 'toolhost-conversation-v1',
        messages: outcome.messages ?? [],
      };
      return {
        status,
        answer: outcome.answer ?? outcome.lastText ?? '',
        ...((status === 'failed' || status === 'partial') && outcome.error ? { error: outcome.error } : {}),
        // The conversation is JSON (the neutral message IR): it is what a continuation needs.
        state: JSON.parse(JSON.stringify(state)),
        transcript: path,
      };
    },
  };
}
