/**
 * `text` itself when it has at most `max` UTF-16 code units (default 128), else its first `max - 3`
 * and `...`: for names and causes quoted in messages and audit records.
 */
export function boundedText(text: string, max = 128): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** The text before the first line feed; all of it when it has none. */
export function firstLine(text: string): string {
  const index = text.indexOf('\n');
  return index === -1 ? text : text.slice(0, index);
}
