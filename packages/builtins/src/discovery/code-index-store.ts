import { constants, lstatSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CodeLanguage, loadCodeParser, parseCode } from './code-languages.js';
import { type CodeSymbol, extractSymbols, SYMBOL_KINDS, type SymbolKind } from './code-symbols.js';
import type { CodeFile } from './code-walk.js';

// The index of code_index: per file, the version it was parsed at and its definitions. A file is
// parsed again only when its version changed; the index is kept in memory for the life of the tool
// and, when a directory is given, in one JSON file there (the host's state directory), so a later
// process starts warm. The version is the file's identity and change stamps (device, inode, size,
// modification and status-change times in nanoseconds), as git's index uses them: any write
// changes the status-change time, so no content hashing is needed to notice an edit.

/** Bump when extraction changes: a cache of another version is discarded. */
const EXTRACTOR_VERSION = 1;
const CACHE_FORMAT = 'toolhost-code-index';
const CACHE_FILE = 'index-v1.json';
/** Files yield to the event loop this often while parsing, so a host stays responsive. */
const YIELD_EVERY_MS = 25;

/** One file's entry. */
export interface IndexedFile {
  readonly version: string;
  readonly language: CodeLanguage;
  readonly symbols: readonly CodeSymbol[];
  /** Set when the file was not parsed (too large, binary): it has no symbols. */
  readonly skipped?: 'too_large' | 'binary' | 'unreadable';
}

/** What {@link CodeIndexStore.refresh} did. */
export interface RefreshReport {
  /** Source files in the scope. */
  readonly files: number;
  /** Parsed in this refresh (new or changed). */
  readonly parsed: number;
  /** Taken from the index unchanged. */
  readonly cached: number;
  /** Entries dropped because their file is gone from the scope. */
  readonly removed: number;
  /** Files left without symbols (too large, binary, unreadable). */
  readonly skipped: number;
  /** Set when the index could not be saved (the call still succeeds). */
  readonly cacheError?: string;
}

/** Options of {@link CodeIndexStore}. */
export interface CodeIndexStoreOptions {
  /** Where the index is saved; `undefined`: memory only. */
  readonly cacheDir?: string;
  /** Larger files are not parsed. */
  readonly maxFileBytes: number;
}

function versionOf(stats: import('node:fs').BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

const KINDS: ReadonlySet<string> = new Set(SYMBOL_KINDS);

/** Reads the symbols of one cached entry back, or `undefined` when the entry is malformed. */
function reviveSymbols(raw: unknown): CodeSymbol[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const symbols: CodeSymbol[] = [];
  for (const item of raw) {
    if (!Array.isArray(item) || item.length !== 5) return undefined;
    const [name, kind, container, startLine, endLine] = item as unknown[];
    if (typeof name !== 'string' || typeof kind !== 'string' || !KINDS.has(kind)) return undefined;
    if (container !== null && typeof container !== 'string') return undefined;
    if (!Number.isInteger(startLine) || !Number.isInteger(endLine)) return undefined;
    symbols.push({
      name,
      kind: kind as SymbolKind,
      ...(container ? { container } : {}),
      startLine: startLine as number,
      endLine: endLine as number,
    });
  }
  return symbols;
}

/**
 * The index behind one code_index tool. Refreshes run one at a time (a second call waits for the
 * first and then finds everything cached).
 */
export class CodeIndexStore {
  readonly #files = new Map<string, IndexedFile>();
  readonly #options: CodeIndexStoreOptions;
  #loaded: Promise<void> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: CodeIndexStoreOptions) {
    this.#options = options;
  }

  /** The entry of a real absolute path, if indexed. */
  get(path: string): IndexedFile | undefined {
    return this.#files.get(path);
  }

  /** Every entry whose path is `scope` or below it. */
  *entriesIn(scope: string): Iterable<[string, IndexedFile]> {
    const prefix = scope.endsWith('/') ? scope : `${scope}/`;
    for (const entry of this.#files) if (entry[0] === scope || entry[0].startsWith(prefix)) yield entry;
  }

  /**
   * Brings the entries of `files` up to date and drops entries below `scope` that are not among
   * them (deleted or now ignored files). `scope` is a directory or one file.
   */
  refresh(scope: string, files: readonly CodeFile[], signal: AbortSignal): Promise<RefreshReport> {
    const run = this.#queue.then(() => this.#refresh(scope, files, signal));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #refresh(scope: string, files: readonly CodeFile[], signal: AbortSignal): Promise<RefreshReport> {
    await this.#load();
    let parsed = 0;
    let cached = 0;
    let skipped = 0;
    let dirty = false;
    let lastYield = performance.now();
    const seen = new Set<string>();
    for (const file of files) {
      if (signal.aborted) throw signal.reason;
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      seen.add(file.path);
      let stats: import('node:fs').BigIntStats;
      try {
        // Synchronous on purpose: one lstat is microseconds, a thread-pool round trip per file costs
        // more than the call itself; the loop yields to the event loop every YIELD_EVERY_MS.
        stats = lstatSync(file.path, { bigint: true });
      } catch {
        if (this.#files.delete(file.path)) dirty = true;
        continue;
      }
      if (!stats.isFile()) continue;
      const version = versionOf(stats);
      const known = this.#files.get(file.path);
      if (known && known.version === version && known.language === file.language) {
        cached++;
        if (known.skipped) skipped++;
        continue;
      }
      const entry = await this.#parseFile(file, version, stats.size);
      this.#files.set(file.path, entry);
      dirty = true;
      parsed++;
      if (entry.skipped) skipped++;
    }
    let removed = 0;
    for (const [path] of [...this.entriesIn(scope)])
      if (!seen.has(path)) {
        this.#files.delete(path);
        removed++;
      }
    if (removed > 0) dirty = true;
    const cacheError = dirty ? await this.#save() : undefined;
    return {
      files: files.length,
      parsed,
      cached,
      removed,
      skipped,
      ...(cacheError ? { cacheError } : {}),
    };
  }

  async #parseFile(file: CodeFile, version: string, size: bigint): Promise<IndexedFile> {
    const base = { version, language: file.language };
    if (size > BigInt(this.#options.maxFileBytes)) return { ...base, symbols: [], skipped: 'too_large' };
    let bytes: Buffer;
    try {
      // Never through a symbolic link swapped in since the walk.
      const handle = await open(file.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
      try {
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch {
      return { ...base, symbols: [], skipped: 'unreadable' };
    }
    if (bytes.length > this.#options.maxFileBytes) return { ...base, symbols: [], skipped: 'too_large' };
    if (bytes.subarray(0, 8192).includes(0)) return { ...base, symbols: [], skipped: 'binary' };
    const text = new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
    const parser = await loadCodeParser(file.language);
    const tree = parseCode(parser, text);
    if (!tree) return { ...base, symbols: [], skipped: 'unreadable' };
    try {
      const symbols = extractSymbols(file.language, tree.rootNode, text).map(
        ({ name, kind, container, startLine, endLine }) => ({
          name,
          kind,
          ...(container ? { container } : {}),
          startLine,
          endLine,
        }),
      );
      return { ...base, symbols };
    } finally {
      tree.delete();
    }
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const dir = this.#options.cacheDir;
      if (!dir) return;
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(join(dir, CACHE_FILE), 'utf8'));
      } catch {
        return; // no cache yet, or an unreadable one: start empty
      }
      if (typeof raw !== 'object' || raw === null) return;
      const record = raw as Record<string, unknown>;
      if (record.format !== CACHE_FORMAT || record.extractor !== EXTRACTOR_VERSION) return;
      const files = record.files;
      if (typeof files !== 'object' || files === null) return;
      for (const [path, value] of Object.entries(files as Record<string, unknown>)) {
        if (!Array.isArray(value) || value.length < 3) continue;
        const [version, language, symbols, skipped] = value as unknown[];
        if (typeof version !== 'string' || typeof language !== 'string') continue;
        const revived = reviveSymbols(symbols);
        if (!revived) continue;
        this.#files.set(path, {
          version,
          language: language as CodeLanguage,
          symbols: revived,
          ...(skipped === 'too_large' || skipped === 'binary' || skipped === 'unreadable' ? { skipped } : {}),
        });
      }
    })();
    return this.#loaded;
  }

  /** Saves the index atomically (a temporary file renamed over the old one); returns a problem or undefined. */
  async #save(): Promise<string | undefined> {
    const dir = this.#options.cacheDir;
    if (!dir) return undefined;
    const files: Record<string, unknown> = {};
    for (const [path, entry] of this.#files)
      files[path] = [
        entry.version,
        entry.language,
        entry.symbols.map((symbol) => [
          symbol.name,
          symbol.kind,
          symbol.container ?? null,
          symbol.startLine,
          symbol.endLine,
        ]),
        ...(entry.skipped ? [entry.skipped] : []),
      ];
    const target = join(dir, CACHE_FILE);
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(
        temporary,
        JSON.stringify({ format: CACHE_FORMAT, extractor: EXTRACTOR_VERSION, files }),
        { mode: 0o600, flag: 'wx' },
      );
      await rename(temporary, target);
      return undefined;
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      return (error as NodeJS.ErrnoException).code ?? 'unknown error';
    }
  }
}
