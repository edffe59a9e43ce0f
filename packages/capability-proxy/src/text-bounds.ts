/** The first line of a text, trimmed. */
export function firstLine(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.indexOf('\n');
  return end === -1 ? trimmed : trimmed.slice(0, end).trim();
}

/** A text of at most `max` characters, cut with `...`. */
export function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A text of at most `maxBytes` UTF-8 bytes, cut on a character boundary with a `[truncated]` line. */
export function cutBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes - Buffer.byteLength('\n[truncated]');
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
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
