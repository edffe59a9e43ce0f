import { isUtf8 } from 'node:buffer';
import { incompleteUtf8Tail, lazyRequire } from '@toolhost/internal';
import type chardetModule from 'chardet';
import type iconvModule from 'iconv-lite';
import { type EvidenceResult, evidenceFailure } from './errors.js';

// chardet and iconv-lite are needed only for text that is not UTF-8, so they are loaded on first
// use (issue 25: cold start; every toolhost process parsed them at start-up). Both are CommonJS: a
// synchronous require keeps detection and decoding synchronous.
const chardet = lazyRequire<typeof chardetModule>(import.meta.url, 'chardet');

/** iconv-lite, loaded on first use (the decoders of non-UTF-8 text). */
export const iconv = lazyRequire<typeof iconvModule>(import.meta.url, 'iconv-lite');

/** Binary sniffing looks at this many leading bytes (8 KiB) for a NUL byte. */
export const BINARY_SNIFF_BYTES = 8 * 1024;

/** Legacy-encoding detection looks at this many leading bytes (256 KiB). */
export const ENCODING_SAMPLE_BYTES = 256 * 1024;

/**
 * A text file's encoding. `name` is `utf-8`, `utf-16le`, `utf-16be`, or a legacy encoding that
 * iconv-lite reads and writes (lower case, for example `gb18030`, `shift_jis`, `euc-jp`, `windows-1252`).
 * `bom` says whether the file starts with a byte-order mark, which is kept on write-back.
 */
export interface TextEncoding {
  readonly name: string;
  readonly bom: boolean;
}

/** A line-ending style. */
export type LineEnding = 'lf' | 'crlf' | 'cr';

/** The characters of each {@link LineEnding}. */
export const LINE_ENDING_TEXT: Readonly<Record<LineEnding, string>> = { lf: '\n', crlf: '\r\n', cr: '\r' };

/** How a text's lines end. */
export interface LineLayout {
  /** The dominant line ending (`lf` when the text has no line break). */
  readonly lineEnding: LineEnding;
  /** Whether more than one line-ending style occurs. */
  readonly mixed: boolean;
  /** Whether the text ends with a line break. */
  readonly finalNewline: boolean;
}

/** A decoded text file: the text without its BOM and with its line endings exactly as found. */
export interface DecodedText extends LineLayout {
  readonly text: string;
  readonly encoding: TextEncoding;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

/** The length in bytes of the byte-order mark an encoding writes (0 without one). */
export function bomLength(encoding: TextEncoding): number {
  if (!encoding.bom) return 0;
  return encoding.name === 'utf-8' ? 3 : 2;
}

/**
 * Detects the encoding of a file from its leading bytes.
 *
 * Order: a byte-order mark (UTF-8, UTF-16 LE/BE; UTF-32 is refused); a NUL byte in the first 8 KiB
 * means UTF-16 without BOM when the NULs sit in alternating positions, a whole file has an even
 * length, there is enough evidence (at least 8 such NULs, or every code unit ASCII) and the sample
 * decodes cleanly, and binary otherwise (`FILE_BINARY`); valid UTF-8; else a legacy encoding detected by
 * chardet that iconv-lite supports (GB18030 covers GBK, Shift_JIS, EUC-JP, Big5, EUC-KR, the ISO-8859
 * and Windows code pages). `complete` says whether `sample` is the whole file (otherwise a multi-byte
 * sequence cut at the end of the sample is not an error).
 *
 * Errors: `FILE_BINARY`, `FILE_UNSUPPORTED` (UTF-32, or an encoding iconv-lite cannot write back).
 */
export function detectTextEncoding(
  sample: Uint8Array,
  options: { readonly complete: boolean },
): EvidenceResult<TextEncoding> {
  if (startsWith(sample, [0xff, 0xfe, 0x00, 0x00]) || startsWith(sample, [0x00, 0x00, 0xfe, 0xff]))
    return evidenceFailure('FILE_UNSUPPORTED', 'the file is UTF-32 text, which the file tools do not edit', {
      recovery: 'convert it to UTF-8 with a command first',
    });
  if (startsWith(sample, UTF8_BOM)) return { ok: true, value: { name: 'utf-8', bom: true } };
  if (startsWith(sample, [0xff, 0xfe])) return { ok: true, value: { name: 'utf-16le', bom: true } };
  if (startsWith(sample, [0xfe, 0xff])) return { ok: true, value: { name: 'utf-16be', bom: true } };

  const sniff = sample.subarray(0, BINARY_SNIFF_BYTES);
  if (sniff.includes(0)) {
    const utf16 = detectUtf16WithoutBom(sample, options.complete);
    if (utf16) return { ok: true, value: { name: utf16, bom: false } };
    return evidenceFailure('FILE_BINARY', 'the file is binary (a NUL byte in its first 8 KiB)', {
      recovery: 'inspect it with a binary-aware command instead',
    });
  }
  if (isValidUtf8(sample, options.complete) || isMostlyUtf8(sample))
    return { ok: true, value: { name: 'utf-8', bom: false } };

  const detected = chardet().detect(sample)?.toLowerCase();
  if (detected === 'utf-16le' || detected === 'utf-16be')
    return { ok: true, value: { name: detected, bom: false } };
  if (detected && detected !== 'utf-8' && !detected.startsWith('utf-32') && iconv().encodingExists(detected))
    return { ok: true, value: { name: detected, bom: false } };
  if (detected === 'utf-8') return { ok: true, value: { name: 'utf-8', bom: false } };
  return evidenceFailure(
    'FILE_UNSUPPORTED',
    `the file is not valid UTF-8 and its encoding${detected ? ` (${detected})` : ''} is not supported`,
    { recovery: 'convert it to UTF-8 with a command first' },
  );
}

function isValidUtf8(bytes: Uint8Array, complete: boolean): boolean {
  // node:buffer's isUtf8 (simdutf) validates at memory speed; a partial sample may end inside a
  // multi-byte character, so leave that incomplete character out first.
  const end = complete ? bytes.length : bytes.length - incompleteUtf8Tail(bytes);
  return isUtf8(bytes.subarray(0, end));
}

/**
 * UTF-8 with a few stray invalid bytes (a corrupted or concatenated file) is still UTF-8: reading it
 * shows U+FFFD for the bad bytes, and rewriting it is refused because it would not round-trip.
 * Text in a legacy encoding read as UTF-8 yields almost only invalid sequences instead.
 */
function isMostlyUtf8(sample: Uint8Array): boolean {
  const decoded = new TextDecoder('utf-8').decode(sample);
  let replacements = 0;
  let nonAscii = 0;
  for (const character of decoded) {
    if (character === '\ufffd') replacements++;
    else if (character.charCodeAt(0) > 0x7f) nonAscii++;
  }
  return nonAscii > 0 && replacements <= Math.max(1, nonAscii / 20);
}

/** Below this many NUL bytes in code-unit position, a BOM-less UTF-16 guess needs every unit to be ASCII. */
const UTF16_EVIDENCE_UNITS = 8;

function detectUtf16WithoutBom(sample: Uint8Array, complete: boolean): 'utf-16le' | 'utf-16be' | undefined {
  // A whole file of UTF-16 code units has an even length.
  if (complete && sample.length % 2 !== 0) return undefined;
  const pairs = Math.floor(sample.length / 2);
  if (pairs === 0) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let index = 0; index < pairs * 2; index += 2) {
    if (sample[index] === 0) evenZeros++;
    if (sample[index + 1] === 0) oddZeros++;
  }
  // Mostly-ASCII UTF-16 has a NUL in one byte of most code units and almost never in the other.
  let candidate: 'utf-16le' | 'utf-16be' | undefined;
  if (oddZeros >= pairs * 0.2 && evenZeros <= pairs * 0.01) candidate = 'utf-16le';
  else if (evenZeros >= pairs * 0.2 && oddZeros <= pairs * 0.01) candidate = 'utf-16be';
  if (!candidate) return undefined;
  // A few NULs are no evidence: `ab\0cd` has one NUL in an even position and would pass the ratios.
  // With little evidence, only text that is ASCII in every code unit counts as UTF-16.
  const zeros = candidate === 'utf-16le' ? oddZeros : evenZeros;
  if (zeros < UTF16_EVIDENCE_UNITS && zeros < pairs) return undefined;
  try {
    const decoded = new TextDecoder(candidate, { fatal: true }).decode(sample.subarray(0, pairs * 2), {
      stream: !complete,
    });
    // Control characters other than tab/newline/CR mean this is not text after all.
    if (/[\u0000-\u0008\u000e-\u001f]/.test(decoded)) return undefined;
    return candidate;
  } catch {
    return undefined;
  }
}

/** Decodes bytes in `encoding` after its BOM (when it has one); never throws. */
export function decodeWithEncoding(bytes: Uint8Array, encoding: TextEncoding): string {
  const body = bytes.subarray(bomLength(encoding));
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  switch (encoding.name) {
    case 'utf-8':
      return buffer.toString('utf8');
    case 'utf-16le':
    case 'utf-16be':
      return new TextDecoder(encoding.name, { ignoreBOM: true }).decode(body);
    default:
      return iconv().decode(buffer, encoding.name, { stripBOM: false });
  }
}

/** Whether decoding is known to be reversible without re-encoding: valid UTF-8, or UTF-16 without unpaired surrogates. */
function isLosslessUnicode(bytes: Uint8Array, encoding: TextEncoding): boolean {
  const body = bytes.subarray(bomLength(encoding));
  if (encoding.name === 'utf-8') return isUtf8(body);
  if (encoding.name === 'utf-16le' || encoding.name === 'utf-16be') {
    try {
      new TextDecoder(encoding.name, { fatal: true, ignoreBOM: true }).decode(body);
      return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Decodes a whole text file: detects its encoding, strips the BOM (remembered in `encoding`) and
 * reports its line layout. Line endings stay in `text` exactly as found.
 *
 * Errors: `FILE_BINARY`, `FILE_UNSUPPORTED`.
 */
export function decodeText(bytes: Uint8Array): EvidenceResult<DecodedText> {
  const complete = bytes.length <= ENCODING_SAMPLE_BYTES;
  let detected = detectTextEncoding(bytes.subarray(0, ENCODING_SAMPLE_BYTES), { complete });
  if (!detected.ok) return detected;
  // The sample can be plain ASCII while a legacy encoding starts later: look at the whole file then.
  if (!complete && detected.value.name === 'utf-8' && !detected.value.bom && !isValidUtf8(bytes, true)) {
    detected = detectTextEncoding(bytes, { complete: true });
    if (!detected.ok) return detected;
  }
  const text = decodeWithEncoding(bytes, detected.value);
  return { ok: true, value: { text, encoding: detected.value, ...lineLayoutOf(text) } };
}

/**
 * Decodes a text file for rewriting: like {@link decodeText}, and also checks that encoding the
 * decoded text again gives back exactly the original bytes, so the parts of the file an edit does not
 * touch stay byte-identical.
 *
 * Errors: `FILE_BINARY`, `FILE_UNSUPPORTED` (the file cannot be written back losslessly, for example
 * invalid UTF-8 detected as UTF-8).
 */
export function decodeTextForRewrite(bytes: Uint8Array): EvidenceResult<DecodedText> {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  // Valid UTF-8 and UTF-16 round-trip by definition; legacy encodings are checked by re-encoding.
  if (isLosslessUnicode(bytes, decoded.value.encoding)) return decoded;
  const encoded = encodeText(decoded.value.text, decoded.value.encoding);
  if (!encoded.ok || !Buffer.from(bytes).equals(encoded.value))
    return evidenceFailure(
      'FILE_UNSUPPORTED',
      `the file cannot be written back losslessly in its detected encoding (${decoded.value.encoding.name}); it may contain invalid byte sequences`,
      { recovery: 'fix or convert the file with a command first' },
    );
  return decoded;
}

/**
 * Encodes text in an encoding, writing its BOM when it has one.
 *
 * Errors: `FILE_UNSUPPORTED` when the text has an unpaired surrogate or a character the encoding
 * cannot represent (for example a Chinese character in a Shift_JIS file).
 */
export function encodeText(text: string, encoding: TextEncoding): EvidenceResult<Buffer> {
  // In a /u regular expression a surrogate class matches only unpaired surrogates.
  if (/\p{Surrogate}/u.test(text))
    return evidenceFailure('FILE_UNSUPPORTED', 'the text contains an unpaired UTF-16 surrogate', {
      recovery: 'remove the invalid character',
    });
  let body: Buffer;
  switch (encoding.name) {
    case 'utf-8':
      body = Buffer.from(text, 'utf8');
      return { ok: true, value: encoding.bom ? Buffer.concat([Buffer.from(UTF8_BOM), body]) : body };
    case 'utf-16le':
      body = Buffer.from(text, 'utf16le');
      return { ok: true, value: encoding.bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body };
    case 'utf-16be':
      body = Buffer.from(text, 'utf16le').swap16();
      return { ok: true, value: encoding.bom ? Buffer.concat([Buffer.from([0xfe, 0xff]), body]) : body };
    default: {
      if (!iconv().encodingExists(encoding.name))
        return evidenceFailure('FILE_UNSUPPORTED', `the encoding ${encoding.name} is not supported`);
      body = iconv().encode(text, encoding.name, { addBOM: false });
      if (iconv().decode(body, encoding.name, { stripBOM: false }) !== text)
        return evidenceFailure(
          'FILE_UNSUPPORTED',
          `the new text has characters that the file's encoding (${encoding.name}) cannot represent`,
          { recovery: 'use only characters the encoding supports, or convert the file to UTF-8 first' },
        );
      return { ok: true, value: body };
    }
  }
}

/** How an edited text relates to the text it came from: the lengths (in UTF-16 code units) of the shared prefix and suffix. */
export interface TextChangeSpan {
  readonly prefixLength: number;
  readonly suffixLength: number;
}

function splitsSurrogatePair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/**
 * Encodes an edited text by reusing the original bytes of the unchanged prefix and suffix and
 * encoding only the changed middle, so the bytes an edit did not touch are copied, not re-encoded,
 * and a one-line edit of a 50 MB file re-encodes one line. Returns the new content as parts (the
 * original's prefix, the encoded middle, the original's suffix) to be written in sequence; join them
 * with `Buffer.concat` where one buffer is needed. `span` must describe `text` against
 * `decoded.text`. Legacy encodings, and spans that split a surrogate pair, are encoded whole.
 *
 * Errors: those of {@link encodeText}.
 */
export function encodeEditedText(
  original: Uint8Array,
  decoded: DecodedText,
  text: string,
  span: TextChangeSpan,
): EvidenceResult<readonly Buffer[]> {
  const { encoding } = decoded;
  const { prefixLength, suffixLength } = span;
  const before = decoded.text;
  const whole = (): EvidenceResult<readonly Buffer[]> => {
    const encoded = encodeText(text, encoding);
    return encoded.ok ? { ok: true, value: [encoded.value] } : encoded;
  };
  const unicode = encoding.name === 'utf-8' || encoding.name === 'utf-16le' || encoding.name === 'utf-16be';
  if (
    !unicode ||
    prefixLength + suffixLength > Math.min(before.length, text.length) ||
    splitsSurrogatePair(before, prefixLength) ||
    splitsSurrogatePair(text, prefixLength) ||
    splitsSurrogatePair(before, before.length - suffixLength) ||
    splitsSurrogatePair(text, text.length - suffixLength)
  )
    return whole();
  const unit = (value: string) =>
    encoding.name === 'utf-8' ? Buffer.byteLength(value, 'utf8') : value.length * 2;
  const prefixBytes = bomLength(encoding) + unit(before.slice(0, prefixLength));
  const suffixBytes = unit(before.slice(before.length - suffixLength));
  if (prefixBytes + suffixBytes > original.length) return whole();
  const middle = encodeText(text.slice(prefixLength, text.length - suffixLength), {
    name: encoding.name,
    bom: false,
  });
  if (!middle.ok) return middle;
  const view = (start: number, end: number) =>
    Buffer.from(original.buffer, original.byteOffset + start, end - start);
  return {
    ok: true,
    value: [view(0, prefixBytes), middle.value, view(original.length - suffixBytes, original.length)],
  };
}

/** The line layout of a text: its dominant line ending, whether styles are mixed, and its final newline. */
export function lineLayoutOf(text: string): LineLayout {
  const last = text.charCodeAt(text.length - 1);
  const finalNewline = last === 10 || last === 13;
  // The common case, a file without CR, needs no counting.
  if (!text.includes('\r')) return { lineEnding: 'lf', mixed: false, finalNewline };
  let crlf = 0;
  let lf = 0;
  let cr = 0;
  for (let index = text.indexOf('\r'); index !== -1; index = text.indexOf('\r', index + 1)) {
    if (text.charCodeAt(index + 1) === 10) crlf++;
    else cr++;
  }
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lf++;
  lf -= crlf;
  const counts: Array<[LineEnding, number]> = [
    ['lf', lf],
    ['crlf', crlf],
    ['cr', cr],
  ];
  const present = counts.filter(([, count]) => count > 0);
  let lineEnding: LineEnding = 'lf';
  let best = 0;
  for (const [style, count] of counts)
    if (count > best) {
      best = count;
      lineEnding = style;
    }
  return { lineEnding, mixed: present.length > 1, finalNewline };
}

/** Rewrites every line break of `text` (LF, CRLF or CR) as `lineEnding`. */
export function convertLineEndings(text: string, lineEnding: LineEnding): string {
  return text.replace(/\r\n|\r|\n/g, LINE_ENDING_TEXT[lineEnding]);
}
