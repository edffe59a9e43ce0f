// The file-reading and matching half of grep's JS engine. It runs in a worker thread so that the
// host's event loop never waits on a regular expression: JavaScript regexes backtrack, and a
// pattern such as `(a+)+$` can take minutes on one line. In a worker, the call's abort signal (the
// host's timeout or a cancel) terminates the thread whatever it is doing; the walk, the path policy
// and the output stay on the main thread. As a side effect, reading and matching run beside the walk.
//
// The worker's code is the function below, turned into source with `Function.prototype.toString`,
// so it must be self-contained: no imports, no references to anything outside it (types are fine,
// they are erased). tsx and bundlers may rewrite it with esbuild's `__name` and `__require`
// helpers; the source defines both.

/** How the worker searches; sent once, before the first files. */
export interface FallbackWorkerConfig {
  readonly type: 'configure';
  /** JavaScript regex source and flags (see compileGrepRegex). */
  readonly source: string;
  readonly flags: string;
  readonly multiline: boolean;
  readonly mode: 'content' | 'files_with_matches' | 'count';
  readonly context: number;
  /** Most match events worth reporting for one file (the search's limit + 1). */
  readonly perFileCap: number;
  /** Files larger than this are skipped. */
  readonly maxFileBytes: number;
}

/** A batch of files to search, in walk order. */
export interface FallbackWorkerRequest {
  readonly type: 'search';
  readonly id: number;
  readonly files: ReadonlyArray<{ readonly path: string; readonly explicit: boolean }>;
}

/** The outcomes of one batch, in the order of its files. */
export interface FallbackWorkerReply {
  readonly id: number;
  readonly outcomes: readonly FileOutcome[];
}

/** A match event (one or more lines; several in multiline mode) or a context line. */
export type SearchEvent =
  | { readonly kind: 'match'; readonly line: number; readonly texts: readonly string[] }
  | { readonly kind: 'context'; readonly line: number; readonly text: string };

/** What searching one file gave. */
export type FileOutcome =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'unreadable' }
  | {
      readonly kind: 'searched';
      readonly path: string;
      readonly events: readonly SearchEvent[];
      readonly count: number;
    };

/** The worker's source, for `new Worker(source, { eval: true })`. */
export function fallbackWorkerSource(): string {
  return [
    'var __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });',
    // An ESM bundle turns `require(...)` into esbuild's `__require(...)`; the worker has `require`.
    'var __require = require;',
    `(${fallbackWorkerMain.toString()})();`,
  ].join('\n');
}

function fallbackWorkerMain(): void {
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const fs = require('node:fs') as typeof import('node:fs');
  // ripgrep decides whether a file is binary from its first 64 KiB buffer.
  const SNIFF_BYTES = 64 * 1024;
  // First-block buffers are reused: a fresh 64 KiB buffer per file was a large share of the
  // garbage collector's work on a full scan.
  const spareHeads: Buffer[] = [];
  let config: FallbackWorkerConfig | undefined;
  let regex = /$^/u;

  const hasUtf16Bom = (bytes: Buffer): boolean =>
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));

  // Reads a regular file; undefined when it is skipped (too large, or binary by its first block when
  // `sniff`, which then is all that was read). Callback `fs` calls rather than `readFile` or a
  // FileHandle: on this repository's node_modules (8 700 files) that halves a full scan, because
  // most files fit in the first read and binaries are never read past it.
  const readForSearch = (path: string, sniff: boolean, maxBytes: number): Promise<Buffer | undefined> =>
    new Promise((resolve, reject) => {
      fs.open(path, 'r', (openError, fd) => {
        if (openError) {
          reject(openError);
          return;
        }
        const finish = (error: NodeJS.ErrnoException | null, value?: Buffer) =>
          fs.close(fd, () => (error ? reject(error) : resolve(value)));
        const head = spareHeads.pop() ?? Buffer.allocUnsafe(SNIFF_BYTES);
        const release = () => {
          if (spareHeads.length < 32) spareHeads.push(head);
        };
        fs.read(fd, head, 0, SNIFF_BYTES, 0, (headError, headBytes) => {
          if (headError) {
            release();
            finish(headError);
            return;
          }
          const first = head.subarray(0, headBytes);
          if (sniff && first.includes(0) && !hasUtf16Bom(first)) {
            release();
            finish(null, undefined);
            return;
          }
          // A regular file reads short only at its end.
          if (headBytes < SNIFF_BYTES) {
            const whole = Buffer.from(first);
            release();
            finish(null, whole);
            return;
          }
          fs.fstat(fd, (statError, stats) => {
            if (statError || stats.size > maxBytes) {
              release();
              finish(statError, undefined);
              return;
            }
            // One byte past the size: a file that grew is read on until its end.
            let buffer = Buffer.allocUnsafe(Math.max(stats.size, headBytes) + 1);
            first.copy(buffer);
            release();
            let filled = headBytes;
            const step = () => {
              if (filled === buffer.length) {
                if (buffer.length > maxBytes) {
                  finish(null, undefined);
                  return;
                }
                const grown = Buffer.allocUnsafe(buffer.length * 2);
                buffer.copy(grown);
                buffer = grown;
              }
              fs.read(fd, buffer, filled, buffer.length - filled, filled, (readError, bytesRead) => {
                if (readError) {
                  finish(readError);
                  return;
                }
                if (bytesRead === 0) {
                  finish(null, buffer.subarray(0, filled));
                  return;
                }
                filled += bytesRead;
                step();
              });
            };
            step();
          });
        });
      });
    });

  // Decodes file bytes as ripgrep does; undefined for binary data (a NUL byte, no UTF-16 BOM).
  const decode = (buffer: Buffer): string | undefined => {
    if (buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) {
      return buffer.includes(0) ? undefined : buffer.toString('utf8', 3);
    }
    if (buffer.length >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.toString('utf16le', 2);
    if (buffer.length >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) {
      const swapped = Buffer.from(buffer.subarray(2, buffer.length - (buffer.length % 2)));
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    return buffer.includes(0) ? undefined : buffer.toString('utf8');
  };

  // Lines without their `\n`; a final line break does not start another line.
  const splitLines = (text: string): string[] => {
    const lines = text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  };

  const lineStarts = (text: string): number[] => {
    const starts = [0];
    for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1))
      starts.push(index + 1);
    return starts;
  };

  const lineIndexOf = (starts: readonly number[], offset: number): number => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  };

  // Match events (0-based inclusive line spans) with their context lines, in line order.
  const withContext = (
    current: FallbackWorkerConfig,
    lines: readonly string[],
    spans: ReadonlyArray<readonly [number, number]>,
  ): SearchEvent[] => {
    if (current.mode !== 'content') return [];
    const context = current.context;
    const events: SearchEvent[] = [];
    let emittedThrough = -1;
    let afterUntil = -1;
    const emitContext = (from: number, to: number) => {
      for (let index = Math.max(from, emittedThrough + 1); index <= to; index += 1) {
        events.push({ kind: 'context', line: index + 1, text: lines[index]! });
        emittedThrough = index;
      }
    };
    for (const [first, last] of spans) {
      emitContext(emittedThrough + 1, Math.min(afterUntil, first - 1));
      emitContext(first - context, first - 1);
      events.push({ kind: 'match', line: first + 1, texts: lines.slice(first, last + 1) });
      emittedThrough = Math.max(emittedThrough, last);
      afterUntil = last + context;
    }
    emitContext(emittedThrough + 1, Math.min(afterUntil, lines.length - 1));
    return events;
  };

  // Without multiline: matches never span lines. The whole text is tested first: a line match is a
  // match in the whole text too (with `m`, ^ and $ hold at every line break), so most files need no
  // line splitting.
  const searchLines = (current: FallbackWorkerConfig, text: string, explicit: boolean) => {
    if (!regex.test(text)) return { events: [] as SearchEvent[], count: 0 };
    const lines = splitLines(text);
    const matches: number[] = [];
    for (let index = 0; index < lines.length; index += 1) {
      let subject = lines[index]!;
      if (subject.endsWith('\r')) subject = subject.slice(0, -1);
      // A file named explicitly is searched with NULs as line breaks, as ripgrep does.
      const hit =
        explicit && subject.includes('\u0000')
          ? subject.split('\u0000').some((part) => regex.test(part))
          : regex.test(subject);
      if (!hit) continue;
      matches.push(index);
      if (current.mode === 'files_with_matches') break;
      if (current.mode === 'content' && matches.length >= current.perFileCap) break;
    }
    const spans = matches.map((index) => [index, index] as const);
    return { events: withContext(current, lines, spans), count: matches.length };
  };

  // With multiline: the regex runs over the whole text; matches that share a line form one event.
  const searchWhole = (current: FallbackWorkerConfig, text: string) => {
    regex.lastIndex = 0;
    const starts = lineStarts(text);
    // A final line break ends the last line; the empty rest after it is not a line.
    const lineCount = text.endsWith('\n') ? starts.length - 1 : starts.length;
    const spans: Array<[number, number]> = [];
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      if (end === start) regex.lastIndex = end + (text.codePointAt(end)! > 0xffff ? 2 : 1);
      const first = lineIndexOf(starts, start);
      if (first >= lineCount) break;
      // A match that ends with a line break does not reach into the next line.
      const last = end > start ? lineIndexOf(starts, end - 1) : first;
      const previous = spans[spans.length - 1];
      if (previous !== undefined && first <= previous[1]) {
        previous[1] = Math.max(previous[1], last);
      } else {
        if (current.mode === 'files_with_matches' && spans.length > 0) break;
        if (current.mode === 'content' && spans.length >= current.perFileCap) break;
        spans.push([first, last]);
      }
      if (regex.lastIndex > text.length) break;
    }
    if (spans.length === 0) return { events: [] as SearchEvent[], count: 0 };
    return { events: withContext(current, splitLines(text), spans), count: spans.length };
  };

  const searchFile = async (
    current: FallbackWorkerConfig,
    path: string,
    explicit: boolean,
  ): Promise<FileOutcome> => {
    let buffer: Buffer | undefined;
    try {
      buffer = await readForSearch(path, !explicit, current.maxFileBytes);
    } catch {
      return { kind: 'unreadable' };
    }
    if (buffer === undefined) return { kind: 'skipped' };
    let text = decode(buffer);
    if (text === undefined) {
      const nul = buffer.indexOf(0);
      if (!explicit) {
        // ripgrep's count printer reports nothing for a file it stopped at a NUL.
        if (current.mode === 'count') return { kind: 'skipped' };
        // ripgrep reads 64 KiB blocks and quits at the block holding the NUL, having searched the
        // whole lines before it (block edges drift a little with the lines carried over; this
        // takes them at multiples of 64 KiB).
        const blockStart = nul - (nul % SNIFF_BYTES);
        text = buffer.toString('utf8', 0, buffer.lastIndexOf(0x0a, blockStart - 1) + 1);
      } else {
        text = buffer.toString('utf8');
      }
    }
    const { events, count } = current.multiline
      ? searchWhole(current, text)
      : searchLines(current, text, explicit);
    if (count === 0) return { kind: 'skipped' };
    return { kind: 'searched', path, events, count };
  };

  parentPort!.on('message', (message: FallbackWorkerConfig | FallbackWorkerRequest) => {
    if (message.type === 'configure') {
      config = message;
      regex = new RegExp(message.source, message.flags);
      return;
    }
    const current = config!;
    // Files of a batch are read concurrently; matching runs one file at a time on this thread.
    Promise.all(message.files.map((file) => searchFile(current, file.path, file.explicit))).then(
      (outcomes) => parentPort!.postMessage({ id: message.id, outcomes } satisfies FallbackWorkerReply),
      (error: unknown) => {
        throw error;
      },
    );
  });
}
