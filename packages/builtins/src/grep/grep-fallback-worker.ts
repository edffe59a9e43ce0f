import { compareNames } from '../discovery/discovery-paths.js';
import { createBytePrefilter, type GrepPrefilter } from './grep-literals.js';
import { createWalkFilter, type WalkFilterSpec, type WireLevel } from './grep-walk-filter.js';
import { createProgramMatcher } from '@toolhost/path-policy';

// The walking, reading and matching half of grep's JS engine. It runs in a pool of worker threads
// (grep-fallback.ts), for two reasons:
// - the host's event loop never waits on a regular expression: JavaScript regexes backtrack, and a
//   pattern such as `(a+)+$` can take minutes on one line; the call's abort signal (the host's
//   timeout or a cancel) terminates the threads whatever they are doing;
// - the work spreads over the cores, as ripgrep's threads do. Inside a worker everything is
//   synchronous (readdirSync, openSync/readSync): on this repository's node_modules a callback or
//   promise per file system call cost several times the call itself (each is a hop to libuv's
//   thread pool and back), and a worker has nothing else to do while it waits.
//
// A job is a list of directories. The worker walks them depth-first, siblings in name order (the
// rules of grep-walk-filter.ts decide what is walked and searched), searches each selected file, and
// stops descending when the job's budget is spent: the directories it did not reach go back to the
// main thread's queue, which hands them to whichever worker is free. Results travel as chunks of a
// directory's entries in name order (only subdirectories and files with something to report), so
// the main thread can put them back in walk order; a chunk leaves as soon as a file has matches, so
// the limit is seen early even in a huge directory or before a file whose regex runs away. A
// directory holding ignore files is sent back unwalked with their texts: the main thread compiles
// them (discovery-ignore.ts) and queues the directory again with its level.
//
// Before a file is decoded, its raw bytes are tested for a literal every match must contain
// (grep-literals.ts): most files hold no match and are never turned into a string.
//
// The worker's code is `fallbackWorkerMain` plus the self-contained helpers it is given, turned into
// source with `Function.prototype.toString`, so none of them may refer to anything outside its own
// body (types are fine, they are erased). tsx and bundlers may rewrite them with esbuild's `__name`
// and `__require` helpers; the source defines both.

/** How the worker searches; sent once per search, before its first job. */
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
  /** The literal test of the raw bytes, or null to decode and match every file. */
  readonly prefilter: GrepPrefilter | null;
  readonly filter: WalkFilterSpec;
  /** One Int32 the main thread sets to non-zero to stop the search at the next file. */
  readonly stop: SharedArrayBuffer;
}

/** A directory to walk: `level` is the id of the ignore level its entries are matched against. */
export interface DirectoryTask {
  readonly path: string;
  readonly level: number;
  /** True when `level` already includes this directory's own ignore files. */
  readonly resolved: boolean;
}

/** Walk directories (depth-first, until `budget` is spent). */
export interface FallbackWorkerWalkJob {
  readonly type: 'walk';
  readonly id: number;
  /** Ignore levels this worker has not been sent yet (parents first). */
  readonly levels: readonly WireLevel[];
  /** In walk order. */
  readonly directories: readonly DirectoryTask[];
  /** Work units before the worker hands back what it has not reached (a directory or a 64 KiB block of a file is one). */
  readonly budget: number;
}

/** Search one file named explicitly (NULs then separate lines instead of making it binary). */
export interface FallbackWorkerFileJob {
  readonly type: 'file';
  readonly id: number;
  readonly path: string;
}

/** A match event (one or more lines; several in multiline mode) or a context line. */
export type SearchEvent =
  | { readonly kind: 'match'; readonly line: number; readonly texts: readonly string[] }
  | { readonly kind: 'context'; readonly line: number; readonly text: string };

/** What searching one file gave. */
export type FileOutcome =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'unreadable' }
  | { readonly kind: 'searched'; readonly events: readonly SearchEvent[]; readonly count: number };

/** A walked directory's selected entries that matter, in name order: subdirectories, and files with results or unreadable. */
export type DirectoryItem =
  | { readonly name: string; readonly directory: true }
  | { readonly name: string; readonly directory: false; readonly outcome: FileOutcome };

/** The next entries of a walked directory, continuing its earlier chunks. */
export interface DirectoryChunk {
  readonly path: string;
  /** Its listing failed (then this is its only chunk). */
  readonly unreadable: boolean;
  readonly items: readonly DirectoryItem[];
  /** The directory's last chunk. */
  readonly done: boolean;
}

/** A directory left unwalked because its ignore files must be compiled first (texts null: absent or unreadable). */
export interface LevelRequest {
  readonly path: string;
  /** The level of the directory's parent. */
  readonly parent: number;
  readonly rgignore: string | null;
  readonly ignore: string | null;
  readonly gitignore: string | null;
  readonly exclude: string | null;
  readonly hasGit: boolean;
}

/** What a worker sends back. */
export type FallbackWorkerReply =
  /** Chunks of a job still running, sent when a file has matches (so a limit is seen early). */
  | { readonly kind: 'partial'; readonly id: number; readonly chunks: readonly DirectoryChunk[] }
  | {
      readonly kind: 'done';
      readonly id: number;
      readonly chunks: readonly DirectoryChunk[];
      /** Directories not reached, in walk order. */
      readonly pending: readonly DirectoryTask[];
      readonly levelRequests: readonly LevelRequest[];
      /** The stop flag was seen: the job was abandoned part way. */
      readonly stopped: boolean;
    }
  | { readonly kind: 'file'; readonly id: number; readonly outcome: FileOutcome };

/** The helpers the worker's code is given (each self-contained). */
export interface FallbackWorkerHelpers {
  readonly compareNames: typeof compareNames;
  readonly createWalkFilter: typeof createWalkFilter;
  readonly createBytePrefilter: typeof createBytePrefilter;
  readonly createProgramMatcher: typeof createProgramMatcher;
}

/** The worker's source, for `new Worker(source, { eval: true })`. */
export function fallbackWorkerSource(): string {
  const helpers = [
    `compareNames: ${compareNames.toString()}`,
    `createWalkFilter: ${createWalkFilter.toString()}`,
    `createBytePrefilter: ${createBytePrefilter.toString()}`,
    `createProgramMatcher: ${createProgramMatcher.toString()}`,
  ].join(',\n');
  return [
    'var __name = (target, value) => Object.defineProperty(target, "name", { value, configurable: true });',
    // An ESM bundle turns `require(...)` into esbuild's `__require(...)`; the worker has `require`.
    'var __require = require;',
    `(${fallbackWorkerMain.toString()})({\n${helpers}\n});`,
  ].join('\n');
}

function fallbackWorkerMain(helpers: FallbackWorkerHelpers): void {
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const fs = require('node:fs') as typeof import('node:fs');
  const { isAscii } = require('node:buffer') as typeof import('node:buffer');
  // ripgrep decides whether a file is binary from its first 64 KiB buffer.
  const SNIFF_BYTES = 64 * 1024;
  // Files are read into one reused buffer (the text taken from it is a copy); it is kept while it
  // is at most this large.
  const KEEP_BUFFER_BYTES = 8 * 1024 * 1024;
  const IGNORE_NAMES = new Set(['.rgignore', '.ignore', '.gitignore', '.git']);
  const SKIPPED: FileOutcome = { kind: 'skipped' };
  const UNREADABLE: FileOutcome = { kind: 'unreadable' };

  let config: FallbackWorkerConfig | undefined;
  let regex = /$^/u;
  let filter = helpers.createWalkFilter(
    { root: '/', overrides: [], typeGlobs: null, includeHidden: false, noIgnore: true },
    helpers.createProgramMatcher,
  );
  let prefilter: ((bytes: Buffer) => boolean) | undefined;
  let stop: Int32Array<ArrayBufferLike> = new Int32Array(1);
  let scratch = Buffer.allocUnsafe(4 * SNIFF_BYTES);
  /** Bytes read for the last file (work accounting). */
  let lastBytes = 0;

  const stopRequested = () => Atomics.load(stop, 0) !== 0;

  const hasUtf16Bom = (bytes: Buffer): boolean =>
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));

  // Reads a regular file into the reused buffer; undefined when it is skipped (too large, or binary
  // by its first block when `sniff`, which then is all that was read). The returned view is valid
  // until the next read.
  const readForSearch = (path: string, sniff: boolean, maxBytes: number): Buffer | undefined => {
    const fd = fs.openSync(path, 'r');
    try {
      const headBytes = fs.readSync(fd, scratch, 0, SNIFF_BYTES, 0);
      lastBytes = headBytes;
      const first = scratch.subarray(0, headBytes);
      if (sniff && first.includes(0) && !hasUtf16Bom(first)) return undefined;
      // A regular file reads short only at its end.
      if (headBytes < SNIFF_BYTES) return first;
      const size = fs.fstatSync(fd).size;
      if (size > maxBytes) return undefined;
      // One byte past the size: a file that grew is read on until its end.
      let buffer = scratch;
      if (buffer.length < size + 1) {
        buffer = Buffer.allocUnsafe(size + 1);
        scratch.copy(buffer, 0, 0, headBytes);
        if (buffer.length <= KEEP_BUFFER_BYTES) scratch = buffer;
      }
      let filled = headBytes;
      for (;;) {
        if (filled === buffer.length) {
          if (filled > maxBytes) return undefined;
          const grown = Buffer.allocUnsafe(buffer.length * 2);
          buffer.copy(grown, 0, 0, filled);
          buffer = grown;
        }
        const bytesRead = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      lastBytes = filled;
      return filled > maxBytes ? undefined : buffer.subarray(0, filled);
    } finally {
      fs.closeSync(fd);
    }
  };

  // UTF-8 text of a byte range. ASCII bytes read as latin1 give the same string, and V8 builds it
  // several times faster (a copy into a one-byte string, no decoding).
  const utf8 = (bytes: Buffer, start: number, end: number): string =>
    isAscii(bytes.subarray(start, end))
      ? bytes.toString('latin1', start, end)
      : bytes.toString('utf8', start, end);

  // Decodes file bytes as ripgrep does; undefined for binary data (a NUL byte, no UTF-16 BOM).
  const decode = (buffer: Buffer): string | undefined => {
    if (buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) {
      return buffer.includes(0) ? undefined : utf8(buffer, 3, buffer.length);
    }
    if (buffer.length >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.toString('utf16le', 2);
    if (buffer.length >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) {
      const swapped = Buffer.from(buffer.subarray(2, buffer.length - (buffer.length % 2)));
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    return buffer.includes(0) ? undefined : utf8(buffer, 0, buffer.length);
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

  const searchFile = (current: FallbackWorkerConfig, path: string, explicit: boolean): FileOutcome => {
    let buffer: Buffer | undefined;
    lastBytes = 0;
    try {
      buffer = readForSearch(path, !explicit, current.maxFileBytes);
    } catch {
      return UNREADABLE;
    }
    if (buffer === undefined) return SKIPPED;
    // Every string the regex runs on below is a piece of this buffer's UTF-8 decoding, so a file
    // whose bytes lack every required literal cannot match (UTF-16 files decode differently).
    if (prefilter !== undefined && !hasUtf16Bom(buffer) && !prefilter(buffer)) return SKIPPED;
    let text = decode(buffer);
    if (text === undefined) {
      const nul = buffer.indexOf(0);
      if (!explicit) {
        // ripgrep's count printer reports nothing for a file it stopped at a NUL.
        if (current.mode === 'count') return SKIPPED;
        // ripgrep reads 64 KiB blocks and quits at the block holding the NUL, having searched the
        // whole lines before it (block edges drift a little with the lines carried over; this
        // takes them at multiples of 64 KiB).
        const blockStart = nul - (nul % SNIFF_BYTES);
        text = utf8(buffer, 0, buffer.lastIndexOf(0x0a, blockStart - 1) + 1);
      } else {
        text = buffer.toString('utf8');
      }
    }
    const { events, count } = current.multiline
      ? searchWhole(current, text)
      : searchLines(current, text, explicit);
    if (count === 0) return SKIPPED;
    return { kind: 'searched', events, count };
  };

  const readText = (path: string): string | null => {
    try {
      return fs.readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };

  const runWalk = (current: FallbackWorkerConfig, job: FallbackWorkerWalkJob): void => {
    filter.addLevels(job.levels);
    const { root, noIgnore } = current.filter;
    const stack: DirectoryTask[] = [];
    for (let index = job.directories.length - 1; index >= 0; index -= 1) stack.push(job.directories[index]!);
    const chunks: DirectoryChunk[] = [];
    const levelRequests: LevelRequest[] = [];
    let spent = 0;
    let stopped = false;
    walk: while (stack.length > 0 && (spent < job.budget || spent === 0)) {
      const task = stack.pop()!;
      spent += 1;
      let entries: import('node:fs').Dirent[];
      try {
        entries = fs.readdirSync(task.path, { withFileTypes: true });
      } catch {
        chunks.push({ path: task.path, unreadable: true, items: [], done: true });
        continue;
      }
      if (!noIgnore && !task.resolved && entries.some((entry) => IGNORE_NAMES.has(entry.name))) {
        const has = (name: string) => entries.some((entry) => entry.name === name);
        const base = task.path.endsWith('/') ? task.path : `${task.path}/`;
        levelRequests.push({
          path: task.path,
          parent: task.level,
          rgignore: has('.rgignore') ? readText(`${base}.rgignore`) : null,
          ignore: has('.ignore') ? readText(`${base}.ignore`) : null,
          gitignore: has('.gitignore') ? readText(`${base}.gitignore`) : null,
          exclude: has('.git') ? readText(`${base}.git/info/exclude`) : null,
          hasGit: has('.git'),
        });
        continue;
      }
      entries.sort((left, right) => helpers.compareNames(left.name, right.name));
      let items: DirectoryItem[] = [];
      const subdirectories: DirectoryTask[] = [];
      for (const entry of entries) {
        const isDirectory = entry.isDirectory();
        if (!isDirectory && !entry.isFile()) continue; // symbolic links, sockets, devices
        const name = entry.name;
        const absolute = task.path.endsWith('/') ? `${task.path}${name}` : `${task.path}/${name}`;
        const relative = absolute.slice(root.length + 1);
        if (!filter.includes(task.level, absolute, relative, name, isDirectory)) continue;
        if (isDirectory) {
          items.push({ name, directory: true });
          subdirectories.push({ path: absolute, level: task.level, resolved: false });
          continue;
        }
        if (stopRequested()) {
          stopped = true;
          break walk;
        }
        const outcome = searchFile(current, absolute, false);
        spent += 1 + Math.floor(lastBytes / SNIFF_BYTES);
        if (outcome.kind === 'skipped') continue;
        items.push({ name, directory: false, outcome });
        if (outcome.kind !== 'searched') continue;
        // Results go out at once: the main thread may have enough already, and the next file's
        // regex may never end.
        chunks.push({ path: task.path, unreadable: false, items, done: false });
        items = [];
        parentPort!.postMessage({
          kind: 'partial',
          id: job.id,
          chunks: chunks.splice(0),
        } satisfies FallbackWorkerReply);
      }
      for (let index = subdirectories.length - 1; index >= 0; index -= 1) stack.push(subdirectories[index]!);
      chunks.push({ path: task.path, unreadable: false, items, done: true });
    }
    stack.reverse();
    parentPort!.postMessage({
      kind: 'done',
      id: job.id,
      chunks,
      pending: stopped ? [] : stack,
      levelRequests,
      stopped,
    } satisfies FallbackWorkerReply);
  };

  parentPort!.on(
    'message',
    (message: FallbackWorkerConfig | FallbackWorkerWalkJob | FallbackWorkerFileJob) => {
      if (message.type === 'configure') {
        config = message;
        regex = new RegExp(message.source, message.flags);
        filter = helpers.createWalkFilter(message.filter, helpers.createProgramMatcher);
        prefilter = message.prefilter === null ? undefined : helpers.createBytePrefilter(message.prefilter);
        stop = new Int32Array(message.stop);
        return;
      }
      const current = config!;
      if (message.type === 'file') {
        const outcome = searchFile(current, message.path, true);
        parentPort!.postMessage({ kind: 'file', id: message.id, outcome } satisfies FallbackWorkerReply);
        return;
      }
      runWalk(current, message);
    },
  );
}
