/**
 * The longest prefix of `text` whose UTF-8 encoding is at most `maxBytes` bytes, never splitting a
 * character (a cut that would land inside one backs off to its start). `maxBytes` below 1 gives ''.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes < 1) return '';
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = Math.floor(maxBytes);
  // A continuation byte (10xxxxxx) at the cut means the cut is inside a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
