import { displayLine, GREP_MAX_LINE_CHARACTERS, type GrepCollector } from './grep-collector.js';

/** The most `limit` can be raised to (the schema's maximum). */
export const GREP_MAX_LIMIT = 2000;

/** Facts the formatter needs besides the collected results. */
export interface FormatGrepOptions {
  /** The searched path as the model sees it. */
  readonly displayRoot: string;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
  /** Paths the engine could not read. */
  readonly unreadable: number;
}

/** The model text of a search and the value-free details for hosts. */
export interface FormattedGrep {
  readonly text: string;
  readonly details: {
    readonly mode: string;
    /** Match events (content) or files (other modes) shown. */
    readonly shown: number;
    /** Match events or files collected before any cut. */
    readonly collected: number;
    readonly files: number;
    readonly limitReached: boolean;
    readonly budgetReached: boolean;
    readonly linesCut: number;
    readonly unreadable: number;
    /**
     * What was shown, without file contents: `{ path, lineNumber }` per matching line (content),
     * `{ path }` per file (files_with_matches), `{ path, count }` per file (count).
     */
    readonly results: ReadonlyArray<{
      readonly path: string;
      readonly lineNumber?: number;
      readonly count?: number;
    }>;
  };
}

/**
 * Formats collected results. Content lines are `path:line: text` (context lines `path-line- text`,
 * `--` between non-adjacent groups when context is asked for); files mode lists paths; count mode
 * `path:count`. The text is cut to the collector's byte budget by whole lines, always keeping at
 * least the first result, and ends with a bracketed notice for every cut.
 */
export function formatGrep(collector: GrepCollector, options: FormatGrepOptions): FormattedGrep {
  const { mode, context, budgetBytes, limit } = collector.options;
  const lines: string[] = [];
  // Per output line: the file it belongs to, its line number and whether it is a match (-1: `--`).
  const meta: Array<{ file: number; line: number; match: boolean; cut: boolean }> = [];
  let bytes = 0;
  let budgetCut = false;
  const shownEvents = new Set<number>();
  let shownFiles = 0;

  // Whole lines only, and never fewer than one result: the first match always shows.
  const fits = (line: string): boolean => {
    const size = Buffer.byteLength(line) + 1;
    const shownSomething = mode === 'content' ? shownEvents.size > 0 : lines.length > 0;
    if (bytes + size > budgetBytes && shownSomething) return false;
    bytes += size;
    return true;
  };

  const files = collector.sortedFiles();
  const fileResults: Array<{ path: string; count?: number }> = [];
  outer: for (const [fileIndex, file] of files.entries()) {
    if (mode !== 'content') {
      const line = mode === 'count' ? `${file.displayPath}:${file.count}` : file.displayPath;
      if (!fits(line)) {
        budgetCut = true;
        break;
      }
      lines.push(line);
      fileResults.push(
        mode === 'count' ? { path: file.displayPath, count: file.count } : { path: file.displayPath },
      );
      shownFiles += 1;
      continue;
    }
    let previous: number | undefined;
    for (const entry of file.lines) {
      const needsSeparator =
        context > 0 && lines.length > 0 && (previous === undefined || entry.line !== previous + 1);
      const marker = entry.event >= 0 ? ':' : '-';
      const shown = displayLine(entry.text);
      const text = `${file.displayPath}${marker}${entry.line}${marker} ${shown.text}`;
      if (!fits(needsSeparator ? `--\n${text}` : text)) {
        budgetCut = true;
        break outer;
      }
      if (needsSeparator) {
        lines.push('--');
        meta.push({ file: fileIndex, line: -1, match: false, cut: false });
      }
      lines.push(text);
      meta.push({ file: fileIndex, line: entry.line, match: entry.event >= 0, cut: shown.cut });
      if (entry.event >= 0) shownEvents.add(entry.event);
      previous = entry.line;
    }
  }
  if (budgetCut && mode === 'content') {
    // Context lines that lead up to a match that did not fit say nothing on their own: keep only the
    // after-context of the last match shown.
    let lastMatch = meta.length - 1;
    while (lastMatch >= 0 && !meta[lastMatch]!.match) lastMatch -= 1;
    let keep = lastMatch + 1;
    while (
      keep < meta.length &&
      meta[keep]!.file === meta[lastMatch]!.file &&
      meta[keep]!.line === meta[keep - 1]!.line + 1 &&
      meta[keep]!.line <= meta[lastMatch]!.line + context
    ) {
      keep += 1;
    }
    lines.length = keep;
    meta.length = keep;
  }
  shownFiles = mode === 'content' ? new Set(meta.map((entry) => entry.file)).size : shownFiles;
  const linesCut = meta.filter((entry) => entry.cut).length;
  const results =
    mode === 'content'
      ? meta
          .filter((entry) => entry.match)
          .map((entry) => ({ path: files[entry.file]!.displayPath, lineNumber: entry.line }))
      : fileResults;

  const shown = mode === 'content' ? shownEvents.size : shownFiles;
  const unit = mode === 'content' ? 'matches' : 'files';
  const limitReached = collector.stopReason === 'limit';
  const budgetReached = budgetCut || collector.stopReason === 'budget';
  const notices: string[] = [];
  if (limitReached) {
    const raise = limit < GREP_MAX_LIMIT ? `, or pass limit=${Math.min(limit * 2, GREP_MAX_LIMIT)}` : '';
    notices.push(
      `[Result limit reached: showing the first ${limit} ${unit}; more exist. Narrow the search (path, glob, type, a more specific pattern)${raise}.]`,
    );
  }
  if (budgetReached) {
    notices.push(
      `[Output cut at ${Math.round(budgetBytes / 1024)} KiB: showing ${shown} of the ${collector.recorded}${collector.stopReason ? '+' : ''} ${unit} found. Narrow the search${mode === 'content' ? ' or use output_mode "files_with_matches"' : ''}.]`,
    );
  }
  if (linesCut > 0) {
    notices.push(
      `[${linesCut} ${linesCut === 1 ? 'line was' : 'lines were'} longer than ${GREP_MAX_LINE_CHARACTERS} characters and ${linesCut === 1 ? 'is' : 'are'} cut, ending in "...". Use read_file to see ${linesCut === 1 ? 'it' : 'them'} whole.]`,
    );
  }
  if (options.unreadable > 0) {
    notices.push(
      `[${options.unreadable} ${options.unreadable === 1 ? 'path' : 'paths'} could not be read and ${options.unreadable === 1 ? 'was' : 'were'} skipped.]`,
    );
  }
  let text: string;
  if (lines.length === 0) {
    const skipped: string[] = [];
    if (!options.includeHidden) skipped.push('hidden files (include_hidden=true searches them)');
    if (!options.noIgnore) skipped.push('ignored files and node_modules (no_ignore=true searches them)');
    text = `No matches in ${options.displayRoot}.${skipped.length > 0 ? ` Not searched: ${skipped.join('; ')}.` : ''}`;
    if (notices.length > 0) text += `\n\n${notices.join('\n')}`;
  } else {
    text = notices.length > 0 ? `${lines.join('\n')}\n\n${notices.join('\n')}` : lines.join('\n');
  }
  return {
    text,
    details: {
      mode,
      shown,
      collected: collector.recorded,
      files: shownFiles,
      limitReached,
      budgetReached,
      linesCut,
      unreadable: options.unreadable,
      results,
    },
  };
}
