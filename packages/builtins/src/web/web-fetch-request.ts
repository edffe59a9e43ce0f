import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { CheckedHost } from './web-fetch-guard.js';

// One HTTP exchange of web_fetch, on node:http / node:https with a `lookup` that answers only the
// addresses the guard checked: the socket connects to one of them and nowhere else (no second DNS
// lookup, so no rebinding between check and connect). TLS still verifies the certificate against
// the host name. A fresh connection per hop (no agent), no proxy, no cookies, no credentials.

/** One hop's outcome. */
export type FetchHopResult =
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string | undefined }
  | {
      readonly kind: 'response';
      readonly status: number;
      /** The media type, lower case, without parameters ('' when absent). */
      readonly mediaType: string;
      readonly charset: string | undefined;
      /** The decoded (decompressed) body, at most `maxBytes`. */
      readonly body: Buffer;
      /** Whether the body was cut at `maxBytes`. */
      readonly truncated: boolean;
    }
  | { readonly kind: 'unsupported'; readonly status: number; readonly mediaType: string }
  | { readonly kind: 'failed'; readonly reason: string; readonly code?: string };

/** Options of {@link fetchHop}. */
export interface FetchHopOptions {
  readonly url: URL;
  readonly checked: CheckedHost;
  /** Stops the exchange (timeout or cancellation); the caller reports the reason. */
  readonly signal: AbortSignal;
  /** Most decoded body bytes kept. */
  readonly maxBytes: number;
  /** Whether a media type is one the caller can use; others are refused before the body is read. */
  readonly accepts: (mediaType: string) => boolean;
  readonly userAgent: string;
}

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** A lookup that answers the checked addresses only (both the single and the `all` form Node asks for). */
function pinnedLookup(checked: CheckedHost): LookupFunction {
  const addresses = checked.addresses;
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, addresses[0]?.address, addresses[0]?.family);
  }) as unknown as LookupFunction;
}

function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  if (!header) return { mediaType: '', charset: undefined };
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset' && value)
      charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

/**
 * Performs one GET and reads at most `maxBytes` of the decoded body (gzip, deflate and brotli are
 * decompressed as they stream, and the limit counts decompressed bytes, so a small compressed body
 * cannot expand past it). A redirect is returned, not followed. Never throws.
 */
export async function fetchHop(options: FetchHopOptions): Promise<FetchHopResult> {
  const { url, checked, signal } = options;
  const secure = url.protocol === 'https:';
  const transport = secure ? await import('node:https') : await import('node:http');
  const zlib = await import('node:zlib');
  const host = checked.host;
  return new Promise<FetchHopResult>((resolve) => {
    let settled = false;
    const finish = (result: FetchHopResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    let request: ReturnType<typeof transport.request>;
    try {
      request = transport.request({
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        agent: false,
        lookup: pinnedLookup(checked),
        signal,
        headers: {
          accept:
            'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': options.userAgent,
        },
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      finish({ kind: 'failed', reason: 'the request could not be made', ...(code ? { code } : {}) });
      return;
    }
    request.on('error', (error: NodeJS.ErrnoException) => {
      finish({
        kind: 'failed',
        reason: describeNetworkError(error),
        ...(error.code ? { code: error.code } : {}),
      });
    });
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        finish({ kind: 'redirect', status, location: response.headers.location });
        response.resume();
        request.destroy();
        return;
      }
      const { mediaType, charset } = parseContentType(response.headers['content-type']);
      if (status >= 200 && status < 300 && !options.accepts(mediaType)) {
        finish({ kind: 'unsupported', status, mediaType });
        request.destroy();
        return;
      }
      const encoding = String(response.headers['content-encoding'] ?? 'identity')
        .trim()
        .toLowerCase();
      let body: Readable = response;
      if (encoding === 'gzip' || encoding === 'x-gzip') body = response.pipe(zlib.createGunzip());
      else if (encoding === 'deflate') body = response.pipe(zlib.createInflate());
      else if (encoding === 'br') body = response.pipe(zlib.createBrotliDecompress());
      else if (encoding !== 'identity' && encoding !== '') {
        finish({ kind: 'failed', reason: 'the server used a content encoding web_fetch does not decode' });
        request.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = () =>
        finish({
          kind: 'response',
          status,
          mediaType,
          charset,
          body: Buffer.concat(chunks, size),
          truncated,
        });
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = options.maxBytes - size;
        if (chunk.length <= room) {
          chunks.push(chunk);
          size += chunk.length;
          return;
        }
        // More than the limit: keep what fits and stop reading (the connection is closed).
        chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        done();
        request.destroy();
        if (body !== response) body.destroy();
      });
      body.on('end', done);
      body.on('error', (error: NodeJS.ErrnoException) => {
        if (signal.aborted) finish({ kind: 'failed', reason: 'stopped', code: 'ABORT_ERR' });
        else
          finish({
            kind: 'failed',
            reason: 'the response body could not be read or decompressed',
            ...(error.code ? { code: error.code } : {}),
          });
      });
      response.on('aborted', () =>
        finish({ kind: 'failed', reason: 'the server closed the connection mid-response' }),
      );
    });
    request.end();
  });
}

function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ABORT_ERR':
      return 'stopped';
    case 'ECONNREFUSED':
      return 'the server refused the connection';
    case 'ECONNRESET':
      return 'the connection was reset';
    case 'ETIMEDOUT':
    case 'ENETUNREACH':
    case 'EHOSTUNREACH':
      return 'the server could not be reached';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'the TLS certificate could not be verified';
    default:
      return error.code?.startsWith('ERR_TLS') || error.code?.startsWith('ERR_SSL')
        ? 'the TLS handshake failed'
        : 'the connection failed';
  }
}
