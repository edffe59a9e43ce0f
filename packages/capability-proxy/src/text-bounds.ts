import { firstLine, utf8BoundaryBefore } from '@toolhost/contracts';

/** The first line of a text, trimmed: contracts' `firstLine` of the trimmed text. */
export function trimmedFirstLine(text: string): string {
  return firstLine(text.trim()).trim();
}

/** A text of at most `maxBytes` UTF-8 bytes, cut on a character boundary with a `[truncated]` line. */
export function cutBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const end = utf8BoundaryBefore(bytes, maxBytes - Buffer.byteLength('\n[truncated]'));
  return `${bytes.subarray(0, end).toString('utf8')}\n[truncated]`;
}

/** A URL for a person's prompt: no user info, query or fragment (they may carry credentials). */
export function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, '');
  }
}
