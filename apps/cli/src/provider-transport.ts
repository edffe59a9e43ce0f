import { setTimeout as delay } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';

/** HTTP statuses worth retrying when opening a stream: timeout, conflict, rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A failure of the provider transport: an error status, a network failure or a malformed stream. */
export class ProviderRequestError extends Error {
  /** The HTTP status, when the provider answered. */
  readonly status: number | undefined;
  /** Whether a later identical request may succeed. */
  readonly retryable: boolean;

  constructor(message: string, options: { status?: number; retryable: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProviderRequestError';
    this.status = options.status;
    this.retryable = options.retryable;
  }
}

/** One retry about to happen. */
export interface RetryNotice {
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly status: number | undefined;
  readonly delayMs: number;
  readonly reason: string;
}

/** Options of {@link openModelStream}. */
export interface OpenModelStreamOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal: AbortSignal;
  /** Retries after the first attempt; default 3. */
  readonly maxRetries?: number;
  /** The first backoff, doubled per retry (with jitter), in ms; default 500. */
  readonly baseDelayMs?: number;
  /** The longest wait between attempts, in ms, whatever `retry-after` asks; default 30000. */
  readonly maxDelayMs?: number;
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/** How long the provider asked us to wait (`retry-after-ms`, then `retry-after` seconds or date). */
function requestedDelayMs(headers: Headers): number | undefined {
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0)
    return milliseconds;
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The provider's own error message from an error body (`{ error: { message } }` in all four APIs). */
export function providerErrorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    const root = Array.isArray(body) ? body[0] : body;
    const error = (root as { error?: unknown } | null)?.error;
    if (typeof error === 'string') return error;
    const message = (error as { message?: unknown } | null)?.message;
    if (typeof message === 'string' && message !== '') return message;
  } catch {
    // Not JSON: fall through to the text itself.
  }
  return text.trim().slice(0, 300) || 'no error body';
}

/**
 * POSTs a streaming request and returns the response once the provider accepted it. Retries with
 * exponential backoff (honouring `retry-after-ms` / `retry-after`) on 408, 409, 429 and 5xx, and on
 * network failures before any response, only here while opening the stream: once a stream has
 * started, a failure is the caller's (a retried stream could repeat text or tool calls). Other
 * statuses throw {@link ProviderRequestError} at once with the provider's message. Aborting
 * `signal` stops waiting and throws the signal's reason.
 */
export async function openModelStream(options: OpenModelStreamOptions): Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const doFetch = options.fetch ?? fetch;
  const body = JSON.stringify(options.body);
  for (let attempt = 0; ; attempt += 1) {
    let response: Response | undefined;
    let failure: ProviderRequestError;
    let requested: number | undefined;
    try {
      response = await doFetch(options.url, {
        method: 'POST',
        headers: options.headers,
        body,
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
      failure = new ProviderRequestError(`cannot reach the provider${code}`, {
        retryable: true,
        cause: error,
      });
    }
    if (response) {
      if (response.ok) return response;
      const text = await response.text().catch(() => '');
      failure = new ProviderRequestError(
        `the provider answered ${response.status}: ${providerErrorMessage(text)}`,
        {
          status: response.status,
          retryable: isRetryableStatus(response.status),
        },
      );
      requested = requestedDelayMs(response.headers);
    }
    if (!failure!.retryable || attempt >= maxRetries) throw failure!;
    const backoff = baseDelayMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
    const wait = Math.min(maxDelayMs, Math.round(requested ?? backoff));
    options.onRetry?.({
      attempt: attempt + 1,
      status: failure!.status,
      delayMs: wait,
      reason: failure!.message,
    });
    try {
      await delay(wait, undefined, { signal: options.signal });
    } catch {
      throw options.signal.reason;
    }
  }
}

/** One server-sent event (`event` is absent for unnamed events). */
export interface ServerSentEvent {
  readonly event?: string | undefined;
  readonly data: string;
}

/**
 * The server-sent events of a response body, parsed with `eventsource-parser` (comments and
 * `retry` fields are skipped). Ends when the body ends; a body that breaks off throws a retryable
 * {@link ProviderRequestError} (or the abort reason when `signal` fired).
 */
export async function* readServerSentEvents(
  response: Response,
  signal: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  if (!response.body) return;
  const queue: ServerSentEvent[] = [];
  const parser = createParser({
    onEvent: (event) => {
      queue.push(event.event === undefined ? { data: event.data } : { event: event.event, data: event.data });
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new ProviderRequestError('the response stream broke off', { retryable: true, cause: error });
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  while (queue.length > 0) yield queue.shift()!;
}
