// Requirements cited: RE-17 (bounded windows: the line and window limits, decided on bytes), RE-15
// (line endings). The scanner is internal; read-window.test.ts covers it through readTextWindow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { WindowScanner, type WindowScannerOptions } from '../src/window-scanner.js';

interface Settings {
  readonly offset: number;
  readonly limit: number;
  readonly maxLineBytes: number;
  readonly maxWindowBytes: number;
  readonly terminator: number;
  readonly countToEnd: boolean;
}

type Outcome =
  | 'too-long'
  | {
      lines: readonly string[];
      totalLines: number | undefined;
      hasMore: boolean;
      cut: unknown;
    };

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed by its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The rules of a window, line by line and decoded one line at a time: what the scanner must equal. */
function reference(bytes: Buffer, settings: Settings, decode: (bytes: Buffer) => string): Outcome {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let index = bytes.indexOf(settings.terminator); index !== -1; ) {
    pieces.push(bytes.subarray(start, index));
    start = index + 1;
    index = bytes.indexOf(settings.terminator, start);
  }
  if (start < bytes.length) pieces.push(bytes.subarray(start));
  const contents = pieces.map((piece) =>
    settings.terminator === 0x0a && piece.length > 0 && piece[piece.length - 1] === 0x0d
      ? piece.subarray(0, -1)
      : piece,
  );
  const lines: string[] = [];
  let windowBytes = 0;
  let cut: unknown;
  for (
    let index = settings.offset;
    index < contents.length && index < settings.offset + settings.limit;
    index++
  ) {
    const content = contents[index]!;
    if (content.length > settings.maxLineBytes) {
      if (lines.length === 0) return 'too-long';
      cut = { reason: 'long-line', nextOffset: index };
      break;
    }
    if (lines.length > 0 && windowBytes + content.length > settings.maxWindowBytes) {
      cut = { reason: 'window-bytes', nextOffset: index };
      break;
    }
    windowBytes += content.length;
    lines.push(decode(content));
  }
  const shownEnd = settings.offset + lines.length;
  return {
    lines,
    totalLines: settings.countToEnd ? contents.length : undefined,
    hasMore: cut !== undefined || contents.length > shownEnd,
    cut,
  };
}

/**
 * Scans `bytes` pushed in chunks of random sizes. `stable` false hands the scanner one reused buffer
 * (as the streaming read does), overwritten before each push, so kept bytes must have been copied.
 */
function scan(
  bytes: Buffer,
  settings: Settings,
  options: { decode: (bytes: Buffer) => string; stable: boolean; next: () => number; maxChunk: number },
): Outcome {
  const scannerOptions: WindowScannerOptions = {
    ...settings,
    decode: options.decode,
    stableChunks: options.stable,
  };
  const scanner = new WindowScanner(scannerOptions);
  const scratch = Buffer.alloc(options.maxChunk);
  let position = 0;
  let state: ReturnType<WindowScanner['push']> = 'continue';
  while (position < bytes.length && state === 'continue') {
    const size = 1 + Math.floor(options.next() * options.maxChunk);
    const view = bytes.subarray(position, position + size);
    position += view.length;
    if (options.stable) state = scanner.push(view);
    else {
      scratch.fill(0x41);
      view.copy(scratch);
      state = scanner.push(scratch.subarray(0, view.length));
    }
  }
  const complete = state === 'continue';
  if (complete) state = scanner.end();
  if (state === 'too-long') return 'too-long';
  const result = scanner.result(complete);
  return {
    lines: result.lines,
    totalLines: result.totalLines,
    hasMore: result.hasMore,
    cut: result.cut,
  };
}

/** Random text bytes: short lines of ASCII, multi-byte UTF-8, stray invalid bytes, CR, LF and CRLF. */
function randomText(next: () => number): Buffer {
  const alphabet = [
    Buffer.from('a'),
    Buffer.from('Z '),
    Buffer.from('é'),
    Buffer.from('字'),
    Buffer.from('😀'),
    Buffer.from([0xe5, 0xad]), // a character cut short
    Buffer.from([0xff]),
    Buffer.from([0x80]),
    Buffer.from('\r'),
    Buffer.from('\n'),
    Buffer.from('\r\n'),
    Buffer.from('\n\n'),
  ];
  const parts: Buffer[] = [];
  const length = Math.floor(next() * 400);
  for (let index = 0; index < length; index++) parts.push(alphabet[Math.floor(next() * alphabet.length)]!);
  return Buffer.concat(parts);
}

describe('WindowScanner', () => {
  it('decodes a window once, not once per line', () => {
    let calls = 0;
    const scanner = new WindowScanner({
      offset: 10,
      limit: 200,
      maxLineBytes: 1024,
      maxWindowBytes: 1024 * 1024,
      terminator: 0x0a,
      countToEnd: true,
      stableChunks: true,
      decode: (bytes) => {
        calls++;
        return bytes.toString('utf8');
      },
    });
    const text = Array.from({ length: 300 }, (_, index) => `line ${index + 1}\r`).join('\n');
    assert.equal(scanner.push(Buffer.from(text)), 'continue');
    assert.equal(scanner.end(), 'continue');
    const result = scanner.result(true);
    assert.equal(calls, 1);
    assert.equal(result.lines.length, 200);
    assert.equal(result.lines[0], 'line 11');
    assert.equal(result.lines[199], 'line 210');
    assert.equal(result.totalLines, 300);
  });

  it('finds the same lines, counts, cuts and limits as a line-by-line reference, in any chunking (RE-17)', () => {
    for (let seed = 1; seed <= 600; seed++) {
      const next = random(seed);
      const bytes = randomText(next);
      const settings: Settings = {
        offset: Math.floor(next() * 6),
        limit: 1 + Math.floor(next() * 30),
        maxLineBytes: 1 + Math.floor(next() * 40),
        maxWindowBytes: Math.floor(next() * 200),
        terminator: next() < 0.2 ? 0x0d : 0x0a,
        countToEnd: next() < 0.7,
      };
      const decode = (part: Buffer) => part.toString('utf8');
      const expected = reference(bytes, settings, decode);
      for (const stable of [true, false]) {
        const actual = scan(bytes, settings, { decode, stable, next, maxChunk: 1 + Math.floor(next() * 64) });
        if (settings.countToEnd || expected === 'too-long' || actual === 'too-long')
          assert.deepEqual(actual, expected, `seed ${seed}, stable ${stable}`);
        else {
          // Stopped one line after the window: the lines, the cut and hasMore, without a total.
          assert.deepEqual(
            { ...actual, totalLines: undefined },
            { ...expected, totalLines: undefined },
            `seed ${seed}, stable ${stable}`,
          );
        }
      }
    }
  });

  it('decodes a legacy encoding once per window with the lines a per-line decode gives (RE-15)', () => {
    const text = Array.from({ length: 50 }, (_, index) => `第${index}行：中文文本\r\n`).join('');
    const bytes = iconv.encode(text, 'gb18030');
    const decode = (part: Buffer) => iconv.decode(part, 'gb18030', { stripBOM: false });
    const settings: Settings = {
      offset: 3,
      limit: 20,
      maxLineBytes: 1000,
      maxWindowBytes: 100_000,
      terminator: 0x0a,
      countToEnd: true,
    };
    const next = random(7);
    assert.deepEqual(
      scan(bytes, settings, { decode, stable: false, next, maxChunk: 17 }),
      reference(bytes, settings, decode),
    );
  });

  it('falls back to one decode per line when the window text does not split into its lines', () => {
    // A decoder that swallows terminators: the one text has a single line, so each line is decoded alone.
    const decode = (part: Buffer) => part.toString('utf8').replaceAll('\n', '');
    const bytes = Buffer.from('alpha\nbeta\r\ngamma\n');
    const settings: Settings = {
      offset: 0,
      limit: 10,
      maxLineBytes: 100,
      maxWindowBytes: 1000,
      terminator: 0x0a,
      countToEnd: true,
    };
    const outcome = scan(bytes, settings, { decode, stable: true, next: random(3), maxChunk: 4 });
    assert.notEqual(outcome, 'too-long');
    assert.deepEqual(outcome !== 'too-long' && outcome.lines, ['alpha', 'beta', 'gamma']);
  });
});
