import { comparePaths } from '../discovery/discovery-paths.js';

/** What `grep` returns: matching lines, matching files, or a count per matching file. */
export type GrepOutputMode = 'content' | 'files_with_matches' | 'count';

/** Lines longer than this many characters are cut in the output (and end in `...`). */
export const GREP_MAX_LINE_CHARACTERS = 500;

/** Options of {@link GrepCollector}. */
export interface GrepCollectorOptions {
  readonly mode: GrepOutputMode;
  /** Most results kept: match events in content mode, files otherwise. */
  readonly limit: number;
  /** Context lines around each match (content mode). */
  readonly context: number;
  /** Stop collecting once this many output bytes are held (the output is cut to fit later); `Infinity`: no budget. */
  readonly budgetBytes: number;
}

/** One output line of a file in content mode. */
export interface GrepLine {
  readonly line: number;
  readonly text: string;
  /** The match event this line belongs to, or -1 for a context line. */
  readonly event: number;
}

/** A file with results. */
export interface GrepFile {
  readonly displayPath: string;
  readonly lines: GrepLine[];
  /** Match events in the file (count mode: as counted by the engine). */
  count: number;
  /** The last line of the last recorded match event. */
  lastMatchLine: number;
}

/** Why collection stopped early. */
export type GrepStopReason = 'limit' | 'budget';

/**
 * Collects the results of one search from either engine (ripgrep or the JS fallback) with the same
 * rules, so both produce the same output: a limit on match events (content) or files (other
 * modes), and a byte budget. An engine feeds it in the order it finds things and stops as soon as
 * a call returns false.
 */
export class GrepCollector {
  readonly files: GrepFile[] = [];
  /** Match events (content) or files (other modes) recorded. */
  recorded = 0;
  stopReason: GrepStopReason | undefined;
  private bytes = 0;
  private events = 0;
  private readonly attached = new Set<GrepFile>();

  constructor(readonly options: GrepCollectorOptions) {}

  /** Starts a file; every later call about it takes the returned record. */
  openFile(displayPath: string): GrepFile {
    return { displayPath, lines: [], count: 0, lastMatchLine: 0 };
  }

  /**
   * Records a match event starting at `firstLine` and covering `texts` (one per line; several in
   * multiline mode). False means: stop, the limit or the budget is reached (this event is kept only
   * when it is within the limit).
   */
  match(file: GrepFile, firstLine: number, texts: readonly string[]): boolean {
    if (this.stopReason !== undefined) return false;
    if (this.recorded >= this.options.limit) {
      this.stopReason = 'limit';
      this.trimTrailingContext(file);
      return false;
    }
    this.attach(file);
    const event = this.events++;
    texts.forEach((text, offset) => {
      const line = firstLine + offset;
      // A context line already recorded for this line becomes part of the match.
      const last = file.lines[file.lines.length - 1];
      if (last !== undefined && last.line >= line) {
        file.lines.splice(file.lines.findIndex((entry) => entry.line >= line));
      }
      file.lines.push({ line, text, event });
      this.bytes += lineBytes(file.displayPath, line, text);
    });
    file.count += 1;
    file.lastMatchLine = firstLine + texts.length - 1;
    this.recorded += 1;
    return this.checkBudget();
  }

  /** Records a context line (content mode). Lines at or before the last recorded line are ignored. */
  contextLine(file: GrepFile, line: number, text: string): boolean {
    if (this.stopReason !== undefined) return false;
    const last = file.lines[file.lines.length - 1];
    if (last !== undefined && last.line >= line) return true;
    this.attach(file);
    file.lines.push({ line, text, event: -1 });
    this.bytes += lineBytes(file.displayPath, line, text);
    return this.checkBudget();
  }

  /** Records a whole file (files_with_matches and count modes) with its count of match events. */
  fileResult(file: GrepFile, count: number): boolean {
    if (this.stopReason !== undefined) return false;
    if (this.recorded >= this.options.limit) {
      this.stopReason = 'limit';
      return false;
    }
    file.count = count;
    this.attach(file);
    this.recorded += 1;
    this.bytes += Buffer.byteLength(file.displayPath) + 12;
    return this.checkBudget();
  }

  /** Files with results, sorted by display path (lines stay in file order). */
  sortedFiles(): GrepFile[] {
    return [...this.files].sort((left, right) => comparePaths(left.displayPath, right.displayPath));
  }

  private attach(file: GrepFile): void {
    if (this.attached.has(file)) return;
    this.attached.add(file);
    this.files.push(file);
  }

  private checkBudget(): boolean {
    if (this.bytes > this.options.budgetBytes) {
      this.stopReason = 'budget';
      return false;
    }
    return true;
  }

  /** Drops context lines past the last match's after-context (they led up to a match not kept). */
  private trimTrailingContext(file: GrepFile): void {
    if (file.count === 0) {
      file.lines.length = 0;
      if (this.attached.delete(file)) this.files.splice(this.files.indexOf(file), 1);
      return;
    }
    const keepThrough = file.lastMatchLine + this.options.context;
    while (file.lines.length > 0) {
      const last = file.lines[file.lines.length - 1]!;
      if (last.event >= 0 || last.line <= keepThrough) break;
      file.lines.pop();
    }
  }
}

/** A line as the output shows it: `\r` dropped, NUL visible, cut at 500 characters with `...`. */
export function displayLine(text: string): { text: string; cut: boolean } {
  let shown = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (shown.includes('\u0000')) shown = shown.replace(/\u0000/g, '\\0');
  if (shown.length <= GREP_MAX_LINE_CHARACTERS) return { text: shown, cut: false };
  let end = GREP_MAX_LINE_CHARACTERS;
  const code = shown.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: `${shown.slice(0, end)}...`, cut: true };
}

function lineBytes(displayPath: string, line: number, text: string): number {
  return Buffer.byteLength(displayPath) + String(line).length + 4 + Buffer.byteLength(displayLine(text).text);
}
