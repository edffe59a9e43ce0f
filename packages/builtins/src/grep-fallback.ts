import type { Dirent } from 'node:fs';
import fs from 'node:fs';
import { readdir } from 'node:fs/promises';
import picomatch from 'picomatch';
import {
  compileGlobLines,
  GLOBSET_LIKE,
  type GitignoreMatcher,
  type IgnoreLevel,
  isValidGlobLine,
  loadAncestorIgnoreLevels,
  loadIgnoreLevel,
  matchIgnoreLevels,
} from './discovery-ignore.js';
import { compareNames, joinRealPath } from './discovery-paths.js';
import type { GrepFile } from './grep-collector.js';
import { GREP_FILE_TYPES } from './grep-file-types.js';
import { compileGrepRegex } from './grep-regex.js';
import {
  GREP_MAX_FILE_BYTES,
  type GrepSearch,
  type GrepSearchOutcome,
  hardExcludeGlobs,
} from './grep-search.js';

// The JS engine of `grep`, used when ripgrep is not installed. It mirrors ripgrep's rules so that
// results do not depend on which engine ran (the tests run every behaviour with both):
// - which files: the walk applies, in ripgrep's order, the `--glob` overrides (a matching glob
//   includes a file even when it is hidden or ignored), then .rgignore/.ignore/.gitignore/
//   .git/info/exclude files, then the `type` globs, then the hidden rule; symbolic links are not
//   followed; only regular files are searched; the search root itself is never filtered;
// - binary files: a walked file with a NUL byte in its first 64 KiB is skipped, one with a later
//   NUL is searched up to that line; a file named explicitly is searched with NULs as line breaks;
// - encodings: a UTF-8 BOM is dropped, UTF-16 with a BOM is decoded, anything else is read as UTF-8;
// - lines: `\n` and `\r\n` end lines (ripgrep `--crlf`); without `multiline`, a match never spans
//   lines; with it, matches that share a line form one match event, as ripgrep reports them.
// Files are read a few at a time, but results are fed to the collector in walk order (sorted by
// name), so a cut by the limit is deterministic.

/** Files read concurrently; reads overlap with matching on the main thread. */
const READ_CONCURRENCY = 8;
/** ripgrep's binary detection looks at its first buffer (64 KiB) before searching. */
const BINARY_SNIFF_BYTES = 64 * 1024;

interface FileFilter {
  readonly overrides: GitignoreMatcher;
  readonly typeMatcher: ((name: string) => boolean) | undefined;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
}

type SearchEvent =
  | { readonly kind: 'match'; readonly line: number; readonly texts: readonly string[] }
  | { readonly kind: 'context'; readonly line: number; readonly text: string };

type FileOutcome =
  | { readonly kind: 'skipped' }
  | { readonly kind: 'unreadable' }
  | {
      readonly kind: 'searched';
      readonly path: string;
      readonly events: readonly SearchEvent[];
      readonly count: number;
    };

class Aborted extends Error {}

/** Runs one search with the JS engine. Never throws for a search problem; see {@link GrepSearchOutcome}. */
export async function runGrepFallback(search: GrepSearch): Promise<GrepSearchOutcome> {
  const compiled = compileGrepRegex(search);
  if (!compiled.ok) return { ok: false, reason: 'pattern', problem: compiled.problem };
  let typeMatcher: ((name: string) => boolean) | undefined;
  if (search.type !== undefined) {
    const globs = Object.hasOwn(GREP_FILE_TYPES, search.type) ? GREP_FILE_TYPES[search.type] : undefined;
    if (globs === undefined) {
      return {
        ok: false,
        reason: 'type',
        problem: 'unknown file type',
      };
    }
    typeMatcher = picomatch([...globs], GLOBSET_LIKE);
  }
  if (search.glob !== undefined && !isValidGlobLine(search.glob)) {
    return { ok: false, reason: 'glob', problem: 'the glob is not a valid glob pattern' };
  }
  const filter: FileFilter = {
    overrides: compileGlobLines([
      ...(search.glob === undefined ? [] : [search.glob]),
      ...hardExcludeGlobs(search.noIgnore),
    ]),
    typeMatcher,
    includeHidden: search.includeHidden,
    noIgnore: search.noIgnore,
  };
  const searcher = new FileSearcher(search, compiled.regex);
  let unreadable = 0;
  const pending: Array<Promise<FileOutcome>> = [];
  try {
    if (search.rootIsFile) {
      const outcome = await searcher.searchFile(search.root, true);
      if (outcome.kind === 'unreadable') unreadable += 1;
      else if (outcome.kind === 'searched') feed(search, outcome);
      return { ok: true, unreadable };
    }
    let stopped = false;
    const settle = async (): Promise<void> => {
      const outcome = await pending.shift()!;
      if (search.signal.aborted) throw new Aborted();
      if (outcome.kind === 'unreadable') unreadable += 1;
      else if (outcome.kind === 'searched' && !feed(search, outcome)) stopped = true;
    };
    const walk = walkFiles(search, filter);
    for await (const file of walk) {
      pending.push(searcher.searchFile(file, false));
      if (pending.length >= READ_CONCURRENCY) await settle();
      if (stopped) break;
    }
    while (pending.length > 0 && !stopped) await settle();
    unreadable += walk.unreadableDirectories();
    return { ok: true, unreadable };
  } catch (error) {
    if (error instanceof Aborted || search.signal.aborted) {
      return { ok: false, reason: 'aborted', problem: 'the search was stopped' };
    }
    return { ok: false, reason: 'failed', problem: error instanceof Error ? error.message : String(error) };
  } finally {
    // Reads still in flight after a stop or an abort never reject; wait for them so that no work
    // outlives the call.
    await Promise.all(pending);
  }
}

/** Feeds one file's results to the collector; false when the collector wants no more. */
function feed(search: GrepSearch, outcome: Extract<FileOutcome, { kind: 'searched' }>): boolean {
  const { collector, policy } = search;
  const file: GrepFile = collector.openFile(policy.displayPathOf(outcome.path));
  if (search.mode !== 'content') return collector.fileResult(file, outcome.count);
  for (const event of outcome.events) {
    const more =
      event.kind === 'match'
        ? collector.match(file, event.line, event.texts)
        : collector.contextLine(file, event.line, event.text);
    if (!more) return false;
  }
  return true;
}

interface FileWalk extends AsyncIterable<string> {
  unreadableDirectories(): number;
}

interface WalkFrame {
  readonly directory: string;
  readonly entries: Dirent[];
  readonly level: IgnoreLevel | undefined;
  index: number;
}

/** Walks the regular files below the search root depth-first, siblings in name order. */
function walkFiles(search: GrepSearch, filter: FileFilter): FileWalk & AsyncIterator<string> {
  let unreadable = 0;
  const root = search.root;
  const stack: WalkFrame[] = [];
  let started = false;

  const openDirectory = async (directory: string, parent: IgnoreLevel | undefined): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      unreadable += 1;
      return;
    }
    const level = filter.noIgnore
      ? undefined
      : await loadIgnoreLevel(directory, parent, new Set(entries.map((entry) => entry.name)));
    entries.sort((left, right) => compareNames(left.name, right.name));
    stack.push({ directory, entries, level, index: 0 });
  };

  const iterator = {
    unreadableDirectories: () => unreadable,
    [Symbol.asyncIterator]() {
      return iterator;
    },
    async next(): Promise<IteratorResult<string>> {
      if (!started) {
        started = true;
        const ancestors = filter.noIgnore ? undefined : await loadAncestorIgnoreLevels(root);
        await openDirectory(root, ancestors);
      }
      for (;;) {
        if (search.signal.aborted) throw new Aborted();
        const frame = stack[stack.length - 1];
        if (frame === undefined) return { done: true, value: undefined };
        const entry = frame.entries[frame.index++];
        if (entry === undefined) {
          stack.pop();
          continue;
        }
        const isDirectory = entry.isDirectory();
        if (!isDirectory && !entry.isFile()) continue; // symbolic links, sockets, devices
        const absolute = joinRealPath(frame.directory, entry.name);
        const relative = absolute.slice(root.length + 1);
        if (!includes(filter, frame.level, absolute, relative, entry.name, isDirectory)) continue;
        if (!search.policy.allows(absolute, isDirectory ? 'list' : 'read')) continue;
        if (isDirectory) {
          await openDirectory(absolute, frame.level);
          continue;
        }
        return { done: false, value: absolute };
      }
    },
    async return(): Promise<IteratorResult<string>> {
      stack.length = 0;
      return { done: true, value: undefined };
    },
  };
  return iterator;
}

/** ripgrep's decision for one walked entry (the `ignore` crate's `Ignore::matched`, in order). */
function includes(
  filter: FileFilter,
  level: IgnoreLevel | undefined,
  absolute: string,
  relative: string,
  name: string,
  isDirectory: boolean,
): boolean {
  // Overrides (`--glob`) first: a glob is an ignore-file line whose meaning is inverted.
  const override = filter.overrides.match(relative, isDirectory);
  if (override === 'ignore') return true;
  if (override === 'whitelist') return false;
  if (filter.overrides.ignoreRuleCount > 0 && !isDirectory) return false;
  let whitelisted = false;
  if (!filter.noIgnore) {
    const ignored = matchIgnoreLevels(level, absolute, isDirectory);
    if (ignored === 'ignore') return false;
    if (ignored === 'whitelist') whitelisted = true;
  }
  if (filter.typeMatcher !== undefined && !isDirectory) {
    if (!filter.typeMatcher(name)) return false;
    whitelisted = true;
  }
  if (!whitelisted && !filter.includeHidden && name.startsWith('.')) return false;
  return true;
}

/** Reads and searches single files. */
class FileSearcher {
  private readonly perFileCap: number;

  constructor(
    private readonly search: GrepSearch,
    private readonly regex: RegExp,
  ) {
    // No file needs more events than the whole search may show.
    this.perFileCap = search.collector.options.limit + 1;
  }

  async searchFile(path: string, explicit: boolean): Promise<FileOutcome> {
    let buffer: Buffer;
    try {
      const read = await readForSearch(path, !explicit);
      if (read === undefined) return { kind: 'skipped' };
      buffer = read;
    } catch {
      return { kind: 'unreadable' };
    }
    if (this.search.signal.aborted) return { kind: 'skipped' };
    let text = decode(buffer);
    if (text === undefined) {
      // Binary: a NUL byte without a UTF-16 byte order mark.
      const nul = buffer.indexOf(0);
      if (!explicit) {
        if (nul < BINARY_SNIFF_BYTES) return { kind: 'skipped' };
        // ripgrep's count printer reports nothing for a file it stopped at a NUL.
        if (this.search.mode === 'count') return { kind: 'skipped' };
        // ripgrep reads 64 KiB blocks and quits at the block holding the NUL, having searched the
        // whole lines before it (block edges drift a little with the lines carried over; this
        // takes them at multiples of 64 KiB).
        const blockStart = nul - (nul % BINARY_SNIFF_BYTES);
        text = buffer.toString('utf8', 0, buffer.lastIndexOf(0x0a, blockStart - 1) + 1);
      } else {
        text = buffer.toString('utf8');
      }
    }
    const { events, count } = this.search.multiline
      ? this.searchWhole(text)
      : this.searchLines(text, explicit);
    if (count === 0) return { kind: 'skipped' };
    return { kind: 'searched', path, events, count };
  }

  private searchLines(text: string, explicit: boolean): { events: SearchEvent[]; count: number } {
    const { regex } = this;
    // Prefilter: a line match is also a match in the whole text (with `m`, ^ and $ hold at every line
    // break), so a text without any match needs no line splitting.
    if (!regex.test(text)) return { events: [], count: 0 };
    const lines = splitLines(text);
    const matches: number[] = [];
    const wantAll = this.search.mode === 'count';
    for (let index = 0; index < lines.length; index += 1) {
      let subject = lines[index]!;
      if (subject.endsWith('\r')) subject = subject.slice(0, -1);
      const hit =
        explicit && subject.includes('\u0000')
          ? subject.split('\u0000').some((part) => regex.test(part))
          : regex.test(subject);
      if (!hit) continue;
      matches.push(index);
      if (this.search.mode === 'files_with_matches') break;
      if (!wantAll && matches.length >= this.perFileCap) break;
    }
    return {
      events: this.withContext(
        lines,
        matches.map((index) => [index, index]),
      ),
      count: matches.length,
    };
  }

  private searchWhole(text: string): { events: SearchEvent[]; count: number } {
    const regex = this.regex;
    regex.lastIndex = 0;
    const starts = lineStarts(text);
    // A final line break ends the last line; the empty rest after it is not a line.
    const lineCount = text.endsWith('\n') ? starts.length - 1 : starts.length;
    const spans: Array<[number, number]> = [];
    const wantAll = this.search.mode === 'count';
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      const start = match.index;
      const end = start + match[0].length;
      if (end === start) regex.lastIndex = end + (text.codePointAt(end)! > 0xffff ? 2 : 1);
      const first = lineIndexOf(starts, start);
      if (first >= lineCount) break;
      // A match that ends with a line break does not reach into the next line.
      const last = end > start ? lineIndexOf(starts, end - 1) : first;
      const current = spans[spans.length - 1];
      if (current !== undefined && first <= current[1]) {
        current[1] = Math.max(current[1], last);
      } else {
        if (this.search.mode === 'files_with_matches' && spans.length > 0) break;
        if (!wantAll && spans.length >= this.perFileCap) break;
        spans.push([first, last]);
      }
      if (regex.lastIndex > text.length) break;
    }
    if (spans.length === 0) return { events: [], count: 0 };
    return { events: this.withContext(splitLines(text), spans), count: spans.length };
  }

  /** Match events (0-based inclusive line spans) with their context lines, in line order. */
  private withContext(
    lines: readonly string[],
    spans: ReadonlyArray<readonly [number, number]>,
  ): SearchEvent[] {
    if (this.search.mode !== 'content') return [];
    const context = this.search.context;
    const events: SearchEvent[] = [];
    let emittedThrough = -1; // last line index emitted
    let afterUntil = -1; // after-context of the previous match reaches this line index
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
  }
}

/**
 * Reads a regular file for searching: `undefined` when it is skipped (larger than the search reads,
 * or, when `sniff` is set, binary by its first 64 KiB, which then is all that was read).
 *
 * Hand-written with callback `fs` calls rather than `readFile` or a `FileHandle`: on a tree of
 * 8 700 files (this repository's node_modules) it halves the time of a full scan, because most
 * files fit in the first read and binaries are never read past it.
 */
function readForSearch(path: string, sniff: boolean): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    fs.open(path, 'r', (openError, fd) => {
      if (openError) {
        reject(openError);
        return;
      }
      const finish = (error: NodeJS.ErrnoException | null, value?: Buffer) =>
        fs.close(fd, () => (error ? reject(error) : resolve(value)));
      const head = headBuffers.pop() ?? Buffer.allocUnsafe(BINARY_SNIFF_BYTES);
      const release = () => {
        if (headBuffers.length < MAX_SPARE_HEAD_BUFFERS) headBuffers.push(head);
      };
      fs.read(fd, head, 0, BINARY_SNIFF_BYTES, 0, (headError, headBytes) => {
        if (headError) {
          release();
          return finish(headError);
        }
        const first = head.subarray(0, headBytes);
        if (sniff && first.includes(0) && !hasUtf16Bom(first)) {
          release();
          return finish(null, undefined);
        }
        // A regular file reads short only at its end.
        if (headBytes < BINARY_SNIFF_BYTES) {
          const whole = Buffer.from(first);
          release();
          return finish(null, whole);
        }
        fs.fstat(fd, (statError, stats) => {
          if (statError || stats.size > GREP_MAX_FILE_BYTES) {
            release();
            return finish(statError, undefined);
          }
          // One byte past the size: a file that grew is read on until its end.
          let buffer = Buffer.allocUnsafe(Math.max(stats.size, headBytes) + 1);
          first.copy(buffer);
          release();
          let filled = headBytes;
          const step = () => {
            if (filled === buffer.length) {
              if (buffer.length > GREP_MAX_FILE_BYTES) {
                finish(null, undefined);
                return;
              }
              const grown = Buffer.allocUnsafe(buffer.length * 2);
              buffer.copy(grown);
              buffer = grown;
            }
            fs.read(fd, buffer, filled, buffer.length - filled, filled, (readError, bytesRead) => {
              if (readError) return finish(readError);
              if (bytesRead === 0) return finish(null, buffer.subarray(0, filled));
              filled += bytesRead;
              step();
            });
          };
          step();
        });
      });
    });
  });
}

// First-block buffers are reused: a full scan reads thousands of files, and a fresh 64 KiB buffer
// per file was a large share of the garbage collector's work.
const headBuffers: Buffer[] = [];
const MAX_SPARE_HEAD_BUFFERS = 16;

function hasUtf16Bom(bytes: Buffer): boolean {
  return (
    bytes.length >= 2 &&
    ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
  );
}

/** Decodes file bytes as ripgrep does; `undefined` for binary data (a NUL byte, no UTF-16 BOM). */
function decode(buffer: Buffer): string | undefined {
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
}

/** Lines without their `\n`; a final line break does not start another line. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index >= 0; index = text.indexOf('\n', index + 1)) {
    starts.push(index + 1);
  }
  return starts;
}

function lineIndexOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}
