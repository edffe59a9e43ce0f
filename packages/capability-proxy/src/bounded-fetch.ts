/** The fetch signature the MCP SDK's HTTP transports accept. */
export type BoundedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` for the SDK's HTTP transports that bounds what one message from a remote server may
 * cost: a JSON body larger than `maxBytes`, or a server-sent event (the bytes between two blank
 * lines) larger than `maxBytes`, errors the response stream and calls `onOverflow` with a
 * value-free reason. Without it the SDK reads `application/json` bodies whole (`response.json()`)
 * and buffers a server-sent event until its blank line, so a server streaming one endless event
 * would grow the host's memory without limit. Counting is per chunk (no copies); long-lived event
 * streams are fine, only a single message is bounded. Non-2xx responses pass through untouched.
 */
export function createBoundedFetch(maxBytes: number, onOverflow: (reason: string) => void): BoundedFetch {
  const reason = `the server sent a message larger than ${maxBytes} bytes`;
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!response.ok || !response.body) return response;
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    const eventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    if (!eventStream && Number.isFinite(declared) && declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      onOverflow(reason);
      throw new Error(reason);
    }
    let pending = 0;
    let endedWithNewline = false;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (eventStream) {
            const boundary = lastEventBoundary(chunk, endedWithNewline);
            pending = boundary === -1 ? pending + chunk.length : chunk.length - boundary;
            const last = chunk[chunk.length - 1];
            endedWithNewline = last === 10 || (last === 13 && endedWithNewline);
          } else {
            pending += chunk.length;
          }
          if (pending > maxBytes) {
            onOverflow(reason);
            controller.error(new Error(reason));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The index just after the last blank line (`\n\n` or `\n\r\n`) in `chunk`, or -1. A chunk that
 * starts with a newline after a chunk that ended with one also counts.
 */
function lastEventBoundary(chunk: Uint8Array, previousEndedWithNewline: boolean): number {
  let index = chunk.lastIndexOf(10);
  while (index !== -1) {
    let before = index - 1;
    if (before >= 0 && chunk[before] === 13) before--;
    if (before >= 0 ? chunk[before] === 10 : previousEndedWithNewline) return index + 1;
    index = index > 0 ? chunk.lastIndexOf(10, index - 1) : -1;
  }
  return -1;
}

/**
 * Wraps a transport's `fetch` so the headers of a server's configuration (`headers`, an API key
 * for that server) go only to the server's own origin: the SDK's OAuth requests (discovery,
 * registration, token) reuse the transport's request options, and the authorization server the
 * server's metadata names may be anyone's.
 */
export function configuredHeadersOnlyTo(
  fetch: BoundedFetch,
  origin: string,
  names: readonly string[],
): BoundedFetch {
  if (names.length === 0) return fetch;
  return (url, init) => {
    const target = new URL(typeof url === 'string' ? url : url.href);
    if (target.origin === origin || init?.headers === undefined) return fetch(url, init);
    const headers = new Headers(init.headers);
    for (const name of names) headers.delete(name);
    return fetch(url, { ...init, headers });
  };
}
