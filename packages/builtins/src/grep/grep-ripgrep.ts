import { spawn } from 'node:child_process';
import path from 'node:path';
import type { GrepFile } from './grep-collector.js';
import { LINE_BREAK_PROBLEM } from './grep-regex.js';
import {
  GREP_MAX_FILE_BYTES,
  type GrepSearch,
  type GrepSearchOutcome,
  hardExcludeGlobs,
} from './grep-search.js';

/** The outcome of a ripgrep run, or `missing` when the binary could not be started (use the fallback). */
export type RipgrepOutcome =
  | GrepSearchOutcome
  | { readonly ok: false; readonly reason: 'missing'; readonly problem: string };

/** stderr kept for diagnosis; ripgrep's fatal messages are short. */
const MAX_STDERR_BYTES = 16 * 1024;

/** The ripgrep command line of a search (exported for the benchmark and tests). */
export function ripgrepArguments(search: Omit<GrepSearch, 'policy' | 'collector' | 'signal'>): string[] {
  const args = [
    '--no-config',
    // .gitignore files count outside git repositories too (as in the JS engine), and only the
    // ignore files inside the tree and its parents count: no global gitignore.
    '--no-require-git',
    '--no-ignore-global',
    '--crlf',
    '--color=never',
    `--max-filesize=${GREP_MAX_FILE_BYTES}`,
  ];
  if (search.mode === 'content') {
    args.push('--json');
    if (search.context > 0) args.push(`--context=${search.context}`);
  } else {
    args.push(search.mode === 'count' ? '--count' : '--files-with-matches', '--null', '--with-filename');
  }
  args.push(search.ignoreCase ? '--ignore-case' : '--case-sensitive');
  if (search.literal) args.push('--fixed-strings');
  if (search.multiline) args.push('--multiline', '--multiline-dotall');
  if (search.includeHidden) args.push('--hidden');
  if (search.noIgnore) args.push('--no-ignore');
  if (search.type !== undefined) args.push('--type', search.type);
  const globs = [...(search.glob === undefined ? [] : [search.glob]), ...hardExcludeGlobs(search.noIgnore)];
  for (const glob of globs) args.push('--glob', glob);
  args.push('--regexp', search.pattern, '--', search.root);
  return args;
}

/**
 * Runs one search with ripgrep, streaming its output into the collector. ripgrep is killed as soon
 * as the collector has enough (limit or byte budget), and when the signal fires (timeout, cancel);
 * the call returns only after the process has exited. Files the path policy refuses (secret files)
 * are dropped as ripgrep reports them, before anything of them is kept.
 */
export function runRipgrep(search: GrepSearch, rgPath: string): Promise<RipgrepOutcome> {
  return new Promise((resolve) => {
    const { collector, policy, signal } = search;
    if (signal.aborted) {
      resolve({ ok: false, reason: 'aborted', problem: 'the search was stopped' });
      return;
    }
    const child = spawn(rgPath, ripgrepArguments(search), {
      cwd: search.rootIsFile ? path.dirname(search.root) : search.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let stopped = false;
    let aborted = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    let stderr = '';
    let pending = '';
    let sawOutput = false;
    let file: GrepFile | undefined;

    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.stdout.removeAllListeners('data');
      child.kill('SIGKILL');
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    signal.addEventListener('abort', onAbort, { once: true });

    const openFile = (absolute: string): GrepFile | undefined =>
      policy.allows(absolute, 'read') ? collector.openFile(policy.displayPathOf(absolute)) : undefined;

    const onJsonLine = (line: string) => {
      let message: RipgrepMessage;
      try {
        message = JSON.parse(line) as RipgrepMessage;
      } catch {
        return;
      }
      if (message.type === 'begin') {
        file = openFile(textOf(message.data.path));
      } else if (message.type === 'match' && file !== undefined) {
        const texts = splitMatchLines(textOf(message.data.lines));
        if (!collector.match(file, message.data.line_number, texts)) stop();
      } else if (message.type === 'context' && file !== undefined) {
        const [text = ''] = splitMatchLines(textOf(message.data.lines));
        if (!collector.contextLine(file, message.data.line_number, text)) stop();
      }
    };

    const onRecord = (record: string) => {
      // `--null` output: `path\0` (files) or `path\0count\n` (count).
      let absolute = record;
      let count = 1;
      if (search.mode === 'count') {
        const separator = record.lastIndexOf('\u0000');
        if (separator < 0) return;
        absolute = record.slice(0, separator);
        count = Number.parseInt(record.slice(separator + 1), 10);
      }
      const opened = openFile(absolute);
      if (opened !== undefined && !collector.fileResult(opened, count)) stop();
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      sawOutput = true;
      pending += chunk;
      const delimiter = search.mode === 'files_with_matches' ? '\u0000' : '\n';
      let start = 0;
      for (let end = pending.indexOf(delimiter); end >= 0; end = pending.indexOf(delimiter, start)) {
        const record = pending.slice(start, end);
        start = end + 1;
        if (search.mode === 'content') onJsonLine(record);
        else onRecord(record);
        if (stopped) return;
      }
      pending = pending.slice(start);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.slice(0, MAX_STDERR_BYTES - stderr.length);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (aborted) {
        resolve({ ok: false, reason: 'aborted', problem: 'the search was stopped' });
      } else if (spawnError !== undefined) {
        resolve({
          ok: false,
          reason: 'missing',
          problem: `ripgrep could not be started (${spawnError.code ?? spawnError.message})`,
        });
      } else if (stopped || code === 0 || code === 1) {
        resolve({ ok: true, unreadable: stopped ? 0 : countErrorLines(stderr) });
      } else {
        resolve(classifyFailure(stderr, sawOutput));
      }
    });
  });
}

interface RipgrepText {
  readonly text?: string;
  readonly bytes?: string;
}

type RipgrepMessage =
  | { readonly type: 'begin' | 'end'; readonly data: { readonly path: RipgrepText } }
  | {
      readonly type: 'match' | 'context';
      readonly data: {
        readonly path: RipgrepText;
        readonly lines: RipgrepText;
        readonly line_number: number;
      };
    }
  | { readonly type: 'summary'; readonly data: unknown };

/** ripgrep sends text that is not valid UTF-8 as base64 `bytes`; decode it lossily. */
function textOf(value: RipgrepText): string {
  if (value.text !== undefined) return value.text;
  return Buffer.from(value.bytes ?? '', 'base64').toString('utf8');
}

/** The lines of a match message (one, or several in multiline mode), without line terminators. */
function splitMatchLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function countErrorLines(stderr: string): number {
  return stderr.split('\n').filter((line) => line.trim() !== '').length;
}

/** Turns a failed run (exit code 2) into a reason; partial results with per-file errors are fine. */
function classifyFailure(stderr: string, sawOutput: boolean): GrepSearchOutcome {
  if (stderr.includes('regex parse error') || stderr.includes('is not allowed in a regex')) {
    return { ok: false, reason: 'pattern', problem: regexProblem(stderr) };
  }
  const type = /unrecognized file type/.test(stderr);
  if (type) return { ok: false, reason: 'type', problem: 'unknown file type' };
  const glob = /error parsing glob[^:]*:\s*(.*)/.exec(stderr);
  if (glob) return { ok: false, reason: 'glob', problem: `the glob is not valid: ${glob[1]!.trim()}` };
  if (sawOutput || /\(os error \d+\)/.test(stderr)) return { ok: true, unreadable: countErrorLines(stderr) };
  const first = stderr.split('\n').find((line) => line.trim() !== '') ?? 'no message';
  return { ok: false, reason: 'failed', problem: `ripgrep failed: ${first.trim()}` };
}

/** The problem named by a ripgrep regex error, without the pattern it quotes. */
function regexProblem(stderr: string): string {
  if (stderr.includes('is not allowed in a regex')) return LINE_BREAK_PROBLEM;
  const lines = stderr.split('\n');
  const errorLine = lines.findLast((line) => line.startsWith('error: '));
  let problem = errorLine === undefined ? 'invalid syntax' : errorLine.slice('error: '.length).trim();
  if (problem.startsWith('look-around'))
    problem = 'look-around (look-ahead and look-behind) is not supported';
  const caret = lines.find((line) => /^\s+\^+\s*$/.test(line));
  // ripgrep indents the pattern and the caret line under it by four spaces.
  if (caret !== undefined) problem += ` (at character ${caret.indexOf('^') - 4 + 1})`;
  return problem;
}
