// UTF-8 boundary cuts, written once (STYLE.md "Where the codebase should move"): contracts re-exports
// the prefix and boundary helpers, jobs' log cursor and read-evidence's encoding sniff use the tail and
// head counts, capability-proxy and boot cut model-visible text with them.

/** Whether a byte is a UTF-8 continuation byte (10xxxxxx): a cut before it is inside a character. */
export function isUtf8Continuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * The nearest character boundary at or before `index` in UTF-8 `bytes` (`index` clamped to
 * `0..bytes.length`): a cut there never splits a character.
 */
export function utf8BoundaryBefore(bytes: Uint8Array, index: number): number {
  let at = Math.min(Math.max(index, 0), bytes.length);
  while (at > 0 && at < bytes.length && isUtf8Continuation(bytes[at])) at--;
  return at;
}

/**
 * The nearest character boundary at or after `index` in UTF-8 `bytes` (`index` clamped to
 * `0..bytes.length`): a tail that starts there never begins inside a character.
 */
export function utf8BoundaryAfter(bytes: Uint8Array, index: number): number {
  let at = Math.min(Math.max(index, 0), bytes.length);
  while (at < bytes.length && isUtf8Continuation(bytes[at])) at++;
  return at;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding is at most `maxBytes` bytes, never splitting a
 * character (a cut that would land inside one backs off to its start). `maxBytes` below 1 gives ''.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (maxBytes < 1) return '';
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  return bytes.subarray(0, utf8BoundaryBefore(bytes, Math.floor(maxBytes))).toString('utf8');
}

/**
 * How many bytes at the end of `bytes` form an incomplete UTF-8 character (0 when it ends on a
 * character boundary). A reader stops before them so the next read gets the whole character.
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  let index = bytes.length - 1;
  let continuation = 0;
  while (index >= 0 && continuation < 3 && isUtf8Continuation(bytes[index])) {
    index -= 1;
    continuation += 1;
  }
  if (index < 0) return 0;
  const lead = bytes[index]!;
  const expected = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return expected > continuation ? continuation + 1 : 0;
}

/** How many leading bytes of `bytes` (at most 3) are continuation bytes: the cut end of a character. */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let index = 0;
  while (index < bytes.length && index < 3 && isUtf8Continuation(bytes[index])) index += 1;
  return index;
}
