import { errorMessage } from '@toolhost/contracts';
import type {
  BatchResult,
  ConversationPort,
  Deliverable,
  DispatchResult,
  GoalRound,
  Host,
  Session,
  SessionGoal,
  ToolCall,
  TurnOrigin,
} from '@toolhost/boot';
import type {
  AssistantMessage,
  CompiledTools,
  Dialect,
  Message,
  ModelResponse,
  StopReason,
  ToolMessage,
  ToolResultContentPart,
  Usage,
} from '@toolhost/provider-dialects';
import { createLoopConversation, type LoopConversation, summaryPrompt } from './loop-conversation.js';
import type { ProviderSettings } from './provider-config.js';
import { openModelStream, ProviderRequestError, readServerSentEvents } from './provider-transport.js';
import { type AgentRole, environmentContext, systemPrompt } from './system-prompt.js';

/** One call as recorded: the neutral name and the decoded arguments the host received. */
export interface RecordedCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

/** One result as recorded: what the model saw, and the outcome. */
export interface RecordedResult {
  readonly id: string;
  readonly name: string;
  readonly toolName: string | null;
  readonly status: 'ok' | 'error';
  readonly output: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly resultRef: string | null;
  readonly durationMs: number;
}

/** How a run ended. */
export type RunStatus = 'succeeded' | 'failed' | 'cancelled';

/** The session's goal as a run reports it at the end: its record, rounds run and stop reason. */
export interface RunGoal {
  readonly id: string;
  readonly revision: number;
  readonly status: string;
  readonly objective: string;
  readonly maxGoalRounds: number | null;
  readonly blockedReason: string | null;
  /** Automatic rounds this run drove. */
  readonly roundsRun: number;
  readonly stopReason: string | null;
}

/** What the loop reports, in order. Everything but `text-delta`, `model-started` and `tools-started` is transcript material. */
export type AgentEvent =
  | {
      readonly type: 'run-started';
      readonly task: string;
      readonly provider: string;
      readonly dialect: string;
      readonly model: string;
      readonly root: string;
      readonly sandbox: string;
      readonly approval: string;
      readonly surface: string;
      readonly surfaceFingerprint: string;
      /** Fingerprint of the compiled wire tools (what the provider caches). */
      readonly toolsFingerprint: string;
      readonly maxRounds: number;
      /** Set for a subagent or planner run (absent for the main agent). */
      readonly role?: AgentRole;
      /** The session the run's calls went to, when it is not the host's default one. */
      readonly sessionId?: string;
    }
  | { readonly type: 'message'; readonly round: number; readonly message: Message }
  | { readonly type: 'model-started'; readonly round: number }
  | { readonly type: 'text-delta'; readonly round: number; readonly text: string }
  | {
      readonly type: 'retry';
      readonly round: number;
      readonly attempt: number;
      readonly status: number | null;
      readonly delayMs: number;
      readonly reason: string;
    }
  | {
      readonly type: 'model-finished';
      readonly round: number;
      readonly stopReason: StopReason;
      readonly usage: Usage | null;
    }
  | { readonly type: 'tools-started'; readonly round: number; readonly calls: readonly RecordedCall[] }
  | {
      readonly type: 'tool-batch';
      readonly round: number;
      readonly calls: readonly RecordedCall[];
      readonly results: readonly RecordedResult[];
      readonly notice: string | null;
      /** Whether a person stopped the batch with Ctrl-C. */
      readonly interrupted: boolean;
      /** Present when the batch belongs to an automatic goal round. */
      readonly turn?: TurnOrigin;
    }
  | {
      /** A subagent started (its own transcript holds its steps). */
      readonly type: 'subagent-started';
      readonly reference: string;
      readonly description: string;
      readonly readOnly: boolean;
      readonly sessionId: string;
      readonly transcript: string;
    }
  | {
      readonly type: 'subagent-finished';
      readonly reference: string;
      readonly status: 'completed' | 'partial' | 'failed' | 'cancelled';
      readonly rounds: number;
      readonly transcript: string;
    }
  | {
      /** `run --planner`: the planning session ended; its answer is the plan handed to the executor. */
      readonly type: 'plan-finished';
      readonly status: RunStatus;
      readonly sessionId: string;
      readonly transcript: string;
      readonly plan: string | null;
    }
  | {
      /** The loop continues an active goal with an automatic round. */
      readonly type: 'goal-round';
      readonly round: number;
      readonly goalId: string;
      readonly revision: number;
      readonly goalRound: number;
      readonly maxGoalRounds: number | null;
    }
  | {
      /** `compress` replaced a range of the provider-visible conversation by a summary. */
      readonly type: 'conversation-compressed';
      readonly round: number;
      readonly direction: 'before' | 'after';
      readonly replacedMessages: number;
      /** The summary message that replaced them (the originals stay in the transcript above). */
      readonly summary: Message;
      readonly usage: Usage | null;
    }
  | {
      readonly type: 'run-finished';
      readonly status: RunStatus;
      readonly rounds: number;
      readonly answer: string | null;
      readonly error: { readonly code: string; readonly message: string } | null;
      readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
      /** The session's goal at the end, or `null`. */
      readonly goal: RunGoal | null;
      /** The files `present` declared as deliverables (paths and descriptions only). */
      readonly deliverables: readonly Deliverable[];
    };

/** Options of {@link createAgentLoop}. */
export interface AgentLoopOptions {
  readonly host: Host;
  readonly dialect: Dialect;
  readonly provider: ProviderSettings;
  readonly task: string;
  /** Stop (failed) after this many model rounds. */
  readonly maxRounds: number;
  /** Aborts the run (the model request, or the tools and then the run). */
  readonly signal: AbortSignal;
  readonly onEvent: (event: AgentEvent) => void;
  /**
   * The session the calls go to (a subagent's or the planner's child session, owned by the caller);
   * default a session the run opens with a conversation port (compress) and closes at its end.
   */
  readonly session?: Session;
  /** The main agent (default), a subagent or the planner: the system prompt says which. */
  readonly role?: AgentRole;
  /** Whether the subagent tools are registered (the main agent's system prompt then mentions them). */
  readonly subagents?: boolean;
  /**
   * An earlier conversation to continue (a subagent resumed with `continue_from`): no new system
   * prompt, and `task` is sent as the next user message as it is.
   */
  readonly history?: readonly Message[];
  /** Retries when opening a stream; default 3. */
  readonly maxRetries?: number;
  readonly fetch?: typeof fetch;
}

/** The end of a run. */
export interface AgentOutcome {
  readonly status: RunStatus;
  readonly rounds: number;
  readonly answer: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** The session's goal at the end, or `null` (absent before the session was opened). */
  readonly goal?: RunGoal | null;
  readonly deliverables?: readonly Deliverable[];
  /** The last text the model showed (the answer, or what it said before it was stopped), or `null`. */
  readonly lastText?: string | null;
  /** The provider-visible conversation, to continue it later (never written to the transcript as such). */
  readonly messages?: readonly Message[];
}

/** A run in progress. */
export interface AgentLoop {
  /** Runs to the end; never rejects (failures are an outcome). */
  run(): Promise<AgentOutcome>;
  /**
   * Stops the tools of the running batch (they report `ABORTED` to the model and the run goes on).
   * Returns false when no tools are running, so the caller can stop the run instead.
   */
  interruptTools(): boolean;
}

class RunFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function toolMessage(call: RecordedCall, result: DispatchResult): ToolMessage {
  const content: ToolResultContentPart[] = [];
  if (result.output !== '') content.push({ type: 'text', text: result.output });
  for (const block of result.content) {
    if (block.type === 'image') content.push({ type: 'image', mimeType: block.mimeType, data: block.data });
  }
  // Some providers refuse an empty tool result; say so in words instead.
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  return {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    isError: result.status === 'error',
    content,
  };
}

function recordedResult(result: DispatchResult): RecordedResult {
  return {
    id: result.id,
    name: result.name,
    toolName: result.toolName,
    status: result.status,
    output: result.output,
    error: result.error ? { code: result.error.code, message: result.error.message } : null,
    resultRef: result.resultRef,
    durationMs: result.durationMs,
  };
}

function answerText(message: AssistantMessage): string {
  return message.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('')
    .trim();
}

/** What the loop says to the model when it continues an active goal with an automatic round. */
export function goalRoundPrompt(round: GoalRound): string {
  const of = round.maxGoalRounds === null ? '' : ` of at most ${round.maxGoalRounds}`;
  return [
    `[toolhost] Automatic goal round ${round.round}${of} for goal ${round.goalId} (revision ${round.revision}).`,
    `Objective: ${round.objective}`,
    'Go on working toward it. When the goal is achieved, call update_goal with action "complete"; when it cannot go on, action "blocked" with a blocked_reason. Answer without tool calls to end this round.',
  ].join('\n');
}

function runGoal(goal: SessionGoal | null, roundsRun: number): RunGoal | null {
  if (!goal) return null;
  return {
    id: goal.goal.id,
    revision: goal.goal.revision,
    status: goal.goal.status,
    objective: goal.goal.objective,
    maxGoalRounds: goal.goal.maxGoalRounds,
    blockedReason: goal.goal.blockedReason,
    roundsRun,
    stopReason: goal.stopReason,
  };
}

/**
 * The reference agent loop (over a session of the host instead of a tool
 * table): one system prompt with the environment context, the task, then rounds of streamed model
 * turns. Each turn's tool calls are decoded with the dialect (names and argument encodings mapped
 * back) and run as one `dispatchBatch`, so the host's policy, evidence, parallelism and storm
 * breaker apply; the results go back as tool messages, and the breaker's notice as a note. A turn
 * without tool calls is the answer (an empty one fails) — unless the session's goal is active with
 * rounds left: then the loop goes on with an automatic goal round (a `[toolhost]` prompt; its calls
 * carry `turn: { origin: 'goal_round', goalId }`) until the model completes or blocks the goal or the
 * rounds run out. The loop owns the provider-visible conversation and gives its session a
 * conversation port, so `compress` can replace a range of it by a model-written summary (the
 * transcript keeps every message). Provider failures while opening a stream are retried by the
 * transport; a failure after the stream started fails the run. There is no repeated-call cap here:
 * the host's storm breaker warns the model instead. `maxRounds` bounds the model rounds.
 */
export function createAgentLoop(options: AgentLoopOptions): AgentLoop {
  const { host, dialect, provider, signal, onEvent } = options;
  let toolController: AbortController | undefined;
  let toolsInterrupted = false;
  const usage = { inputTokens: 0, outputTokens: 0 };
  let rounds = 0;
  const conversation: LoopConversation = createLoopConversation();

  function addUsage(response: ModelResponse): void {
    if (!response.usage) return;
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
  }

  /**
   * One streamed model request. `tools` absent: a request without tools (the summary of compress),
   * whose text is not shown as the model's answer.
   */
  async function streamTurn(
    round: number,
    messages: readonly Message[],
    compiled: CompiledTools | undefined,
    requestSignal: AbortSignal = signal,
  ): Promise<ModelResponse> {
    const display = compiled !== undefined;
    const request = dialect.buildRequest({
      model: provider.model,
      messages,
      ...(compiled ? { tools: compiled, parallelToolCalls: true } : {}),
      stream: true,
    });
    if (display) onEvent({ type: 'model-started', round });
    const response = await openModelStream({
      url: `${provider.baseUrl}${request.path}`,
      headers: provider.headers,
      body: request.body,
      signal: requestSignal,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      onRetry: (notice) =>
        onEvent({
          type: 'retry',
          round,
          attempt: notice.attempt,
          status: notice.status ?? null,
          delayMs: notice.delayMs,
          reason: notice.reason,
        }),
    });
    const parseOptions = { ...(compiled ? { tools: compiled } : {}), toolCallIds: request.toolCallIds };
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.includes('text/event-stream')) {
      // A server that ignored `stream: true` and answered with one JSON body.
      const parsed = dialect.parseResponse(await response.json().catch(() => null), parseOptions);
      if (!parsed.ok) throw new RunFailure('PROVIDER_ERROR', parsed.error.message);
      const text = answerText(parsed.value.message);
      if (text && display) onEvent({ type: 'text-delta', round, text });
      return parsed.value;
    }
    const parser = dialect.createStreamParser(parseOptions);
    let finished: ModelResponse | undefined;
    const take = (events: ReturnType<typeof parser.push>) => {
      for (const event of events) {
        if (event.type === 'text-delta') {
          if (display) onEvent({ type: 'text-delta', round, text: event.text });
        } else if (event.type === 'finish') finished = event.response;
        else if (event.type === 'error') throw new RunFailure('PROVIDER_ERROR', event.error.message);
      }
    };
    for await (const event of readServerSentEvents(response, requestSignal)) take(parser.push(event));
    take(parser.end());
    if (!finished) throw new RunFailure('PROVIDER_ERROR', 'the stream ended without a complete response');
    return finished;
  }

  /**
   * The session's view of the conversation: the real user messages, and compress, which summarises
   * the chosen range with the model (a request without tools) and replaces it in the provider-visible
   * conversation only.
   */
  const conversationPort: ConversationPort = {
    userMessages: () => conversation.userMessages(),
    async compress(request) {
      const range = conversation.range(request.messageId, request.direction);
      if (!range.ok) return range;
      const round = rounds;
      let response: ModelResponse;
      try {
        response = await streamTurn(
          round,
          [
            { role: 'system', content: summaryPrompt(request.instructions) },
            { role: 'user', content: conversation.render(range) },
          ],
          undefined,
          AbortSignal.any([signal, request.signal]),
        );
      } catch (error) {
        return {
          ok: false,
          reason: 'failed',
          message: error instanceof Error ? error.message : 'the summary request failed',
        };
      }
      addUsage(response);
      const summary = answerText(response.message);
      if (!summary) return { ok: false, reason: 'failed', message: 'the model returned an empty summary' };
      // The tool is still running in this turn: nothing else reads or changes the messages meanwhile.
      const again = conversation.range(request.messageId, request.direction);
      if (!again.ok || again.start !== range.start || again.end !== range.end) {
        return { ok: false, reason: 'failed', message: 'the conversation changed while it was summarised' };
      }
      const message = conversation.replace(range, summary);
      onEvent({
        type: 'conversation-compressed',
        round,
        direction: request.direction,
        replacedMessages: range.end - range.start,
        summary: message,
        usage: response.usage ?? null,
      });
      return { ok: true, replacedMessages: range.end - range.start, summaryChars: summary.length };
    },
  };

  async function runTools(
    session: Session,
    round: number,
    calls: readonly RecordedCall[],
    turn: TurnOrigin | undefined,
  ): Promise<BatchResult> {
    onEvent({ type: 'tools-started', round, calls });
    toolController = new AbortController();
    toolsInterrupted = false;
    const stop = () => toolController?.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      const toolCalls: ToolCall[] = calls.map((call) => ({
        id: call.id,
        name: call.name,
        arguments: call.arguments,
      }));
      return await session.dispatchBatch(toolCalls, {
        signal: toolController.signal,
        ...(turn ? { turn } : {}),
      });
    } finally {
      signal.removeEventListener('abort', stop);
      toolController = undefined;
    }
  }

  async function run(): Promise<AgentOutcome> {
    let session: Session | undefined;
    let goalRounds = 0;
    let lastText: string | null = null;
    const ownsSession = options.session === undefined;
    const finish = (outcome: AgentOutcome): AgentOutcome => {
      const goal = session ? runGoal(session.goal(), goalRounds) : null;
      const deliverables = session ? [...session.deliverables()] : [];
      const { status, rounds: used, answer, error } = outcome;
      onEvent({
        type: 'run-finished',
        status,
        rounds: used,
        answer,
        error,
        usage: { ...usage },
        goal,
        deliverables,
      });
      return { ...outcome, goal, deliverables, lastText, messages: [...conversation.messages] };
    };
    try {
      // The run's own session (it holds the conversation port for compress and the goal the loop
      // drives), or the caller's child session of a subagent or the planner.
      session = options.session ?? (await host.openSession({ conversation: conversationPort }));
      const current = session;
      const compiled = current.providerTools(dialect.name);
      onEvent({
        type: 'run-started',
        task: options.task,
        provider: provider.provider,
        dialect: dialect.name,
        model: provider.model,
        root: host.root,
        sandbox: current.policy.sandbox,
        approval: current.policy.approval,
        surface: current.policy.surface,
        surfaceFingerprint: current.surfaceFingerprint(),
        toolsFingerprint: compiled.fingerprint,
        maxRounds: options.maxRounds,
        ...(options.role && options.role !== 'agent' ? { role: options.role } : {}),
        ...(options.session ? { sessionId: options.session.id } : {}),
      });
      const commit = (round: number, message: Message, real = false) => {
        conversation.push(message, real);
        onEvent({ type: 'message', round, message });
      };
      if (options.history && options.history.length > 0) {
        // A continued subagent: its earlier conversation, then the new task as the next user message.
        for (const message of options.history) conversation.push(message, message.role === 'user');
        commit(0, { role: 'user', content: options.task }, true);
      } else {
        commit(0, {
          role: 'system',
          content: `${systemPrompt({
            surfaceNames: current.surfaceNames(),
            sandbox: current.policy.sandbox,
            approval: current.policy.approval,
            ...(options.role ? { role: options.role } : {}),
            ...(options.subagents ? { subagents: true } : {}),
          })}\n\n${await environmentContext(host.root)}`,
        });
        commit(0, { role: 'user', content: `Task: ${options.task}` }, true);
      }
      // A person's direct turn until the loop starts an automatic goal round.
      let turn: TurnOrigin | undefined;
      for (;;) {
        if (rounds >= options.maxRounds) {
          throw new RunFailure(
            'ROUND_LIMIT',
            `the round limit (${options.maxRounds}) was reached before the model answered; raise --max-rounds`,
          );
        }
        rounds += 1;
        const response = await streamTurn(rounds, conversation.messages, compiled);
        addUsage(response);
        onEvent({
          type: 'model-finished',
          round: rounds,
          stopReason: response.stopReason,
          usage: response.usage ?? null,
        });
        commit(rounds, response.message);
        lastText = answerText(response.message) || lastText;
        const calls: RecordedCall[] = response.message.content.flatMap((part) => {
          if (part.type !== 'tool-call') return [];
          const decoded = dialect.decodeToolCall(part, compiled);
          return [{ id: decoded.id, name: decoded.name, arguments: decoded.arguments }];
        });
        if (calls.length === 0) {
          const answer = answerText(response.message);
          if (!answer) throw new RunFailure('PROVIDER_ERROR', 'the model returned an empty answer');
          // An active goal with rounds left goes on in an automatic round; otherwise this is the answer.
          const goalRound = current.startGoalRound();
          if (!goalRound) return finish({ status: 'succeeded', rounds, answer, error: null });
          goalRounds += 1;
          onEvent({
            type: 'goal-round',
            round: rounds,
            goalId: goalRound.goalId,
            revision: goalRound.revision,
            goalRound: goalRound.round,
            maxGoalRounds: goalRound.maxGoalRounds,
          });
          commit(rounds, { role: 'user', content: goalRoundPrompt(goalRound) });
          turn = { origin: 'goal_round', goalId: goalRound.goalId };
          continue;
        }
        const batch = await runTools(current, rounds, calls, turn);
        if (signal.aborted) throw signal.reason;
        onEvent({
          type: 'tool-batch',
          round: rounds,
          calls,
          results: batch.results.map(recordedResult),
          notice: batch.notice ?? null,
          interrupted: toolsInterrupted,
          ...(turn ? { turn } : {}),
        });
        calls.forEach((call, index) => {
          const result = batch.results[index];
          if (result) commit(rounds, toolMessage(call, result));
        });
        // A hook (`continue: false`) or an extension asked to stop: the run ends, its reason is the person's.
        if (batch.stop) {
          throw new RunFailure('HOOK_BLOCKED', `${batch.stop.by} stopped the run: ${batch.stop.reason}`);
        }
        // Between turns: the storm breaker's guidance, a person's interruption, and what background
        // jobs did since the last turn, as one note after the tool results.
        const notes: string[] = [];
        if (batch.notice) notes.push(batch.notice);
        if (toolsInterrupted)
          notes.push('The person stopped these tool calls with Ctrl-C; do not simply repeat them.');
        const jobNotes = current.drainNotes();
        if (jobNotes) notes.push(jobNotes);
        if (notes.length > 0) commit(rounds, { role: 'user', content: `[toolhost] ${notes.join('\n\n')}` });
      }
    } catch (error) {
      if (signal.aborted) {
        return finish({
          status: 'cancelled',
          rounds,
          answer: null,
          error: { code: 'ABORTED', message: 'the run was cancelled with Ctrl-C' },
        });
      }
      if (error instanceof RunFailure)
        return finish({
          status: 'failed',
          rounds,
          answer: null,
          error: { code: error.code, message: error.message },
        });
      if (error instanceof ProviderRequestError) {
        return finish({
          status: 'failed',
          rounds,
          answer: null,
          error: { code: 'PROVIDER_ERROR', message: error.message },
        });
      }
      const message = errorMessage(error);
      return finish({ status: 'failed', rounds, answer: null, error: { code: 'EXECUTION_ERROR', message } });
    } finally {
      if (ownsSession) await session?.close();
    }
  }

  return {
    run,
    interruptTools() {
      if (!toolController || toolController.signal.aborted) return false;
      toolsInterrupted = true;
      toolController.abort(new Error('stopped with Ctrl-C'));
      return true;
    },
  };
}
