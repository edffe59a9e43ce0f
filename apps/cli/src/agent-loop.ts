import type { BatchResult, DispatchResult, Host, ToolCall } from '@toolhost/boot';
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
import type { ProviderSettings } from './provider-config.js';
import { openModelStream, ProviderRequestError, readServerSentEvents } from './provider-transport.js';
import { environmentContext, systemPrompt } from './system-prompt.js';

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
    }
  | {
      readonly type: 'run-finished';
      readonly status: RunStatus;
      readonly rounds: number;
      readonly answer: string | null;
      readonly error: { readonly code: string; readonly message: string } | null;
      readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
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

/**
 * The reference agent loop (inspectable-harness §9, over the host instead of a tool table): one
 * system prompt with the environment context, the task, then rounds of streamed model turns. Each
 * turn's tool calls are decoded with the dialect (names and argument encodings mapped back) and run
 * as one `dispatchBatch`, so the host's policy, evidence, parallelism and storm breaker apply; the
 * results go back as tool messages, and the breaker's notice as a note. A turn without tool calls
 * is the answer (an empty one fails). Provider failures while opening a stream are retried by the
 * transport; a failure after the stream started fails the run. There is no repeated-call cap here:
 * the host's storm breaker warns the model instead. `maxRounds` bounds the run.
 */
export function createAgentLoop(options: AgentLoopOptions): AgentLoop {
  const { host, dialect, provider, signal, onEvent } = options;
  let toolController: AbortController | undefined;
  let toolsInterrupted = false;
  const usage = { inputTokens: 0, outputTokens: 0 };
  let rounds = 0;

  async function streamTurn(
    round: number,
    messages: readonly Message[],
    compiled: CompiledTools,
  ): Promise<ModelResponse> {
    const request = dialect.buildRequest({
      model: provider.model,
      messages,
      tools: compiled,
      stream: true,
      parallelToolCalls: true,
    });
    onEvent({ type: 'model-started', round });
    const response = await openModelStream({
      url: `${provider.baseUrl}${request.path}`,
      headers: provider.headers,
      body: request.body,
      signal,
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
    const parseOptions = { tools: compiled, toolCallIds: request.toolCallIds };
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.includes('text/event-stream')) {
      // A server that ignored `stream: true` and answered with one JSON body.
      const parsed = dialect.parseResponse(await response.json().catch(() => null), parseOptions);
      if (!parsed.ok) throw new RunFailure('PROVIDER_ERROR', parsed.error.message);
      const text = answerText(parsed.value.message);
      if (text) onEvent({ type: 'text-delta', round, text });
      return parsed.value;
    }
    const parser = dialect.createStreamParser(parseOptions);
    let finished: ModelResponse | undefined;
    const take = (events: ReturnType<typeof parser.push>) => {
      for (const event of events) {
        if (event.type === 'text-delta') onEvent({ type: 'text-delta', round, text: event.text });
        else if (event.type === 'finish') finished = event.response;
        else if (event.type === 'error') throw new RunFailure('PROVIDER_ERROR', event.error.message);
      }
    };
    for await (const event of readServerSentEvents(response, signal)) take(parser.push(event));
    take(parser.end());
    if (!finished) throw new RunFailure('PROVIDER_ERROR', 'the stream ended without a complete response');
    return finished;
  }

  async function runTools(round: number, calls: readonly RecordedCall[]): Promise<BatchResult> {
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
      return await host.dispatchBatch(toolCalls, { signal: toolController.signal });
    } finally {
      signal.removeEventListener('abort', stop);
      toolController = undefined;
    }
  }

  async function run(): Promise<AgentOutcome> {
    const compiled = host.providerTools(dialect.name);
    onEvent({
      type: 'run-started',
      task: options.task,
      provider: provider.provider,
      dialect: dialect.name,
      model: provider.model,
      root: host.root,
      sandbox: host.sandbox,
      approval: host.approval,
      surface: host.surface,
      surfaceFingerprint: host.surfaceFingerprint(),
      toolsFingerprint: compiled.fingerprint,
      maxRounds: options.maxRounds,
    });
    const messages: Message[] = [];
    const commit = (round: number, message: Message) => {
      messages.push(message);
      onEvent({ type: 'message', round, message });
    };
    const finish = (outcome: AgentOutcome): AgentOutcome => {
      onEvent({ type: 'run-finished', ...outcome, usage: { ...usage } });
      return outcome;
    };
    try {
      commit(0, {
        role: 'system',
        content: `${systemPrompt({ surfaceNames: host.surfaceNames(), sandbox: host.sandbox, approval: host.approval })}\n\n${await environmentContext(host.root)}`,
      });
      commit(0, { role: 'user', content: `Task: ${options.task}` });
      for (;;) {
        if (rounds >= options.maxRounds) {
          throw new RunFailure(
            'ROUND_LIMIT',
            `the round limit (${options.maxRounds}) was reached before the model answered; raise --max-rounds`,
          );
        }
        rounds += 1;
        const response = await streamTurn(rounds, messages, compiled);
        if (response.usage) {
          usage.inputTokens += response.usage.inputTokens;
          usage.outputTokens += response.usage.outputTokens;
        }
        onEvent({
          type: 'model-finished',
          round: rounds,
          stopReason: response.stopReason,
          usage: response.usage ?? null,
        });
        commit(rounds, response.message);
        const calls: RecordedCall[] = response.message.content.flatMap((part) => {
          if (part.type !== 'tool-call') return [];
          const decoded = dialect.decodeToolCall(part, compiled);
          return [{ id: decoded.id, name: decoded.name, arguments: decoded.arguments }];
        });
        if (calls.length === 0) {
          const answer = answerText(response.message);
          if (!answer) throw new RunFailure('PROVIDER_ERROR', 'the model returned an empty answer');
          return finish({ status: 'succeeded', rounds, answer, error: null });
        }
        const batch = await runTools(rounds, calls);
        if (signal.aborted) throw signal.reason;
        onEvent({
          type: 'tool-batch',
          round: rounds,
          calls,
          results: batch.results.map(recordedResult),
          notice: batch.notice ?? null,
          interrupted: toolsInterrupted,
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
        const jobNotes = host.drainNotes();
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
      const message = error instanceof Error ? error.message : String(error);
      return finish({ status: 'failed', rounds, answer: null, error: { code: 'EXECUTION_ERROR', message } });
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
