import { stat } from 'node:fs/promises';
import { changedLineRanges, describeChangedLines } from './changed-lines.js';
import {
  type EvidenceError,
  type EvidenceResult,
  evidenceFailure,
  fsErrorToEvidence,
  hasErrorCode,
} from './errors.js';
import {
  DEFAULT_CONTENT_LIMIT,
  DEFAULT_HASH_LIMIT,
  describeVersion,
  type FileMetadata,
  type FileVersion,
  fileIdentityKey,
  fileMetadataOf,
  sameFileMetadata,
} from './file-version.js';
import { type FileSnapshot, readFileSnapshot } from './read-snapshot.js';
import { decodeText } from './text-codec.js';

/** Default budget for retained file content across one store (32 MiB); oldest content is dropped first. */
export const DEFAULT_CONTENT_BUDGET = 32 * 1024 * 1024;

/** What a store knows about a path: never looked, looked and it was absent, or a version. */
export type Observation =
  | { readonly state: 'unseen' }
  | { readonly state: 'absent' }
  | { readonly state: 'present'; readonly version: FileVersion };

/** Options of {@link createObservationStore}. */
export interface ObservationStoreOptions {
  /** Versions of files up to this size carry a SHA-256 of their content. Default 16 MiB. */
  readonly hashLimit?: number;
  /** Observed content of files up to this size is kept for stale diagnostics. Default 1 MiB. */
  readonly contentLimit?: number;
  /** Total retained content per store; the least recently observed content is dropped first. Default 32 MiB. */
  readonly contentBudget?: number;
}

/** Options of {@link ObservationStore.recordPresent}. */
export interface RecordPresentOptions {
  /**
   * The observed bytes; kept when within the content limit so a later stale error can name changed
   * lines. `undefined` (a window's `content` of a file over the limit) keeps nothing.
   */
  readonly content?: Uint8Array | undefined;
}

/** Options of {@link ObservationStore.check}. */
export interface CheckObservationOptions {
  /** The file as just read (whole content and version); without it the check stats and hashes from disk. */
  readonly snapshot?: FileSnapshot;
  /** How the file is named in messages. Default: the path. */
  readonly displayPath?: string;
  /**
   * Where to stat and read the file when that is not the key path itself: for example a
   * descriptor-relative path from a pinned directory (`/proc/self/fd/<n>/<name>`), so that the check
   * looks at the file the writer will replace. Default: the path.
   */
  readonly diskPath?: string;
}

/** A current observation: the version the store now holds, and whether it was refreshed by the check. */
export interface CurrentObservation {
  readonly version: FileVersion;
  /** True when metadata differed but the content was the same, so the stored version was updated. */
  readonly refreshed: boolean;
}

/** The serialised form of a store, for resuming a session ({@link ObservationStore.toJSON}). */
export interface ObservationStoreSnapshot {
  readonly format: 'toolhost-observations-v1';
  readonly entries: ReadonlyArray<{ readonly paths: readonly string[]; readonly version: FileVersion }>;
  readonly absent: readonly string[];
}

/**
 * One agent's observations of files. Keyed by file identity (device + inode, else the real path), so
 * hard links share one observation; a path index maps real paths to identities.
 */
export interface ObservationStore {
  /** The hash limit versions are made with. */
  readonly hashLimit: number;
  /** The content limit for retained content. */
  readonly contentLimit: number;
  /** Number of present observations. */
  readonly size: number;
  /** What the store knows about a real path (through the path index). */
  lookup(path: string): Observation;
  /**
   * The bytes kept with the observation of a real path (files within the content limit) and the
   * SHA-256 of its version, for a reader that takes that hash for equal bytes instead of hashing
   * them again (`readTextWindow`'s `knownContent`). `undefined` when no content is kept. The buffer
   * belongs to the store: never modify it.
   */
  observedContent(path: string): { readonly bytes: Buffer; readonly sha256: string } | undefined;
  /** Records that a real path holds this version (a read window, or a write of ours). */
  recordPresent(path: string, version: FileVersion, options?: RecordPresentOptions): void;
  /** Records that a real path was looked at and did not exist. */
  recordAbsent(path: string): void;
  /** Forgets a path (back to unseen), for example when stat after a write failed. */
  forget(path: string): void;
  /**
   * Checks that the file at `path` is the observed version. Metadata equal: current. Otherwise the
   * content is re-hashed: the same content is current (the stored metadata is refreshed silently, so
   * touch, chmod, an identical rewrite or a replacement by an identical file never fail); different
   * content is `FS_STALE_VERSION`, naming the changed line ranges when the old content was kept.
   * Files beyond the hash limit have metadata-only versions: any metadata change is stale.
   *
   * Errors: `FS_NOT_OBSERVED` (unseen, or absent when looked at), `FS_STALE_VERSION` (changed or
   * removed since observed), `FS_NOT_FOUND` (missing and never observed present), `NOT_A_FILE`,
   * `FS_ACCESS_DENIED`, `EXECUTION_ERROR`.
   */
  check(path: string, options?: CheckObservationOptions): Promise<EvidenceResult<CurrentObservation>>;
  /** An independent copy (for a runtime replaced in place); later changes to either do not affect the other. */
  clone(): ObservationStore;
  /** Forgets everything (session rewind, fork or restore). */
  clear(): void;
  /** The store as plain JSON, without retained content. */
  toJSON(): ObservationStoreSnapshot;
  /**
   * Replaces the store's contents with a snapshot. Restored observations are re-validated by content
   * hash on first use (metadata alone is not trusted across a restart); those of files beyond the hash
   * limit, which have no hash, are compared by metadata.
   */
  restore(snapshot: ObservationStoreSnapshot): void;
}

interface Entry {
  version: FileVersion;
  /** False for restored entries until the content hash has been confirmed once. */
  verified: boolean;
  readonly paths: Set<string>;
}

/**
 * Creates an empty observation store for one agent.
 *
 * Defaults: hash limit 16 MiB, content limit 1 MiB, content budget 32 MiB.
 */
export function createObservationStore(options: ObservationStoreOptions = {}): ObservationStore {
  return new Store({
    hashLimit: options.hashLimit ?? DEFAULT_HASH_LIMIT,
    contentLimit: options.contentLimit ?? DEFAULT_CONTENT_LIMIT,
    contentBudget: options.contentBudget ?? DEFAULT_CONTENT_BUDGET,
  });
}

class Store implements ObservationStore {
  readonly hashLimit: number;
  readonly contentLimit: number;
  readonly #contentBudget: number;
  readonly #entries = new Map<string, Entry>();
  readonly #pathIndex = new Map<string, string>();
  readonly #absent = new Set<string>();
  /** Retained content by identity key, in least-recently-recorded-first order. */
  readonly #content = new Map<string, Buffer>();
  #contentBytes = 0;

  constructor(limits: { hashLimit: number; contentLimit: number; contentBudget: number }) {
    this.hashLimit = limits.hashLimit;
    this.contentLimit = limits.contentLimit;
    this.#contentBudget = limits.contentBudget;
  }

  get size(): number {
    return this.#entries.size;
  }

  lookup(path: string): Observation {
    const key = this.#pathIndex.get(path);
    const entry = key === undefined ? undefined : this.#entries.get(key);
    if (entry) return { state: 'present', version: entry.version };
    if (this.#absent.has(path)) return { state: 'absent' };
    return { state: 'unseen' };
  }

  observedContent(path: string): { readonly bytes: Buffer; readonly sha256: string } | undefined {
    const key = this.#pathIndex.get(path);
    if (key === undefined) return undefined;
    const entry = this.#entries.get(key);
    const bytes = this.#content.get(key);
    if (entry === undefined || bytes === undefined || entry.version.sha256 === null) return undefined;
    return { bytes, sha256: entry.version.sha256 };
  }

  recordPresent(path: string, version: FileVersion, options: RecordPresentOptions = {}): void {
    const key = fileIdentityKey(version, path);
    // Taken before the path is unlinked: unlinking the entry's only path drops its content.
    const kept = this.#content.get(key);
    this.#unlinkPath(path);
    this.#absent.delete(path);
    let entry = this.#entries.get(key);
    if (entry) {
      entry.version = version;
      entry.verified = true;
    } else {
      entry = { version, verified: true, paths: new Set() };
      this.#entries.set(key, entry);
    }
    entry.paths.add(path);
    this.#pathIndex.set(path, key);
    this.#dropContent(key);
    if (options.content && options.content.length <= this.contentLimit && version.sha256 !== null)
      // The store's own buffer handed back (a read found the same bytes, see observedContent) needs
      // no copy: nothing outside the store writes to it.
      this.#keepContent(key, options.content === kept ? kept : Buffer.from(options.content));
  }

  recordAbsent(path: string): void {
    this.#unlinkPath(path);
    this.#absent.add(path);
  }

  forget(path: string): void {
    this.#unlinkPath(path);
    this.#absent.delete(path);
  }

  async check(
    path: string,
    options: CheckObservationOptions = {},
  ): Promise<EvidenceResult<CurrentObservation>> {
    const displayPath = options.displayPath ?? path;
    const diskPath = options.diskPath ?? path;
    let metadata: FileMetadata;
    if (options.snapshot) metadata = options.snapshot.version;
    else {
      try {
        const stats = await stat(diskPath, { bigint: true });
        if (!stats.isFile())
          return evidenceFailure('NOT_A_FILE', `${displayPath} is not a regular file`, {
            recovery: 'the file tools modify regular files only',
          });
        metadata = fileMetadataOf(stats);
      } catch (error) {
        if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR'))
          return this.#missing(path, displayPath);
        return { ok: false, error: fsErrorToEvidence(error, displayPath) };
      }
    }

    const key = fileIdentityKey(metadata, path);
    const indexedKey = this.#pathIndex.get(path);
    // The identity first (hard links, our own writes); else what this path held when observed
    // (the file may have been replaced by a new inode, for example by another program's atomic save).
    const entryKey = this.#entries.has(key) ? key : indexedKey;
    const entry = entryKey === undefined ? undefined : this.#entries.get(entryKey);
    if (!entry || entryKey === undefined) {
      const wasAbsent = this.#absent.has(path);
      return evidenceFailure(
        'FS_NOT_OBSERVED',
        wasAbsent
          ? `${displayPath} did not exist when it was last observed in this session and exists now`
          : `${displayPath} has not been observed in this session`,
        { recovery: 'read any window of the file with read_file, then retry' },
      );
    }

    if (entry.verified && entryKey === key && sameFileMetadata(entry.version, metadata))
      return { ok: true, value: { version: entry.version, refreshed: false } };

    // Metadata differs (or the entry was restored): the content decides.
    const stale = (reason: string, current?: Buffer): EvidenceResult<CurrentObservation> =>
      this.#stale(entryKey, entry, metadata, displayPath, reason, current);
    if (entry.version.sha256 === null) {
      if (!entry.verified && entryKey === key && sameFileMetadata(entry.version, metadata)) {
        entry.verified = true;
        return { ok: true, value: { version: entry.version, refreshed: false } };
      }
      return stale('its metadata changed and it is too large to compare by content');
    }
    if (metadata.size !== entry.version.size) {
      const current = await this.#currentBytes(path, diskPath, options.snapshot, displayPath);
      return stale('its content changed', current.ok ? current.value.bytes : undefined);
    }
    const current = await this.#currentBytes(path, diskPath, options.snapshot, displayPath);
    if (!current.ok) return current;
    const snapshot = current.value;
    if (snapshot.version.sha256 === null || snapshot.version.sha256 !== entry.version.sha256)
      return stale('its content changed', snapshot.bytes);

    // Same content: refresh the stored version silently (and follow a replacement to its new identity).
    const retained = this.#content.get(entryKey);
    this.recordPresent(path, snapshot.version, retained ? { content: retained } : {});
    return { ok: true, value: { version: snapshot.version, refreshed: true } };
  }

  clone(): ObservationStore {
    const copy = new Store({
      hashLimit: this.hashLimit,
      contentLimit: this.contentLimit,
      contentBudget: this.#contentBudget,
    });
    for (const [key, entry] of this.#entries)
      copy.#entries.set(key, {
        version: entry.version,
        verified: entry.verified,
        paths: new Set(entry.paths),
      });
    for (const [path, key] of this.#pathIndex) copy.#pathIndex.set(path, key);
    for (const path of this.#absent) copy.#absent.add(path);
    for (const [key, content] of this.#content) copy.#keepContent(key, content);
    return copy;
  }

  clear(): void {
    this.#entries.clear();
    this.#pathIndex.clear();
    this.#absent.clear();
    this.#content.clear();
    this.#contentBytes = 0;
  }

  toJSON(): ObservationStoreSnapshot {
    return {
      format: 'toolhost-observations-v1',
      entries: [...this.#entries.values()].map((entry) => ({
        paths: [...entry.paths].sort(),
        version: entry.version,
      })),
      absent: [...this.#absent].sort(),
    };
  }

  restore(snapshot: ObservationStoreSnapshot): void {
    if (snapshot?.format !== 'toolhost-observations-v1')
      throw new TypeError('not an observation store snapshot (expected format "toolhost-observations-v1")');
    this.clear();
    for (const { paths, version } of snapshot.entries) {
      const firstPath = paths[0];
      if (firstPath === undefined) continue;
      const key = fileIdentityKey(version, firstPath);
      this.#entries.set(key, { version, verified: false, paths: new Set(paths) });
      for (const path of paths) this.#pathIndex.set(path, key);
    }
    for (const path of snapshot.absent) if (!this.#pathIndex.has(path)) this.#absent.add(path);
  }

  #missing(path: string, displayPath: string): { readonly ok: false; readonly error: EvidenceError } {
    const observation = this.lookup(path);
    if (observation.state === 'present')
      return evidenceFailure('FS_STALE_VERSION', `${displayPath} was removed after it was observed`, {
        recovery: 'check the path again (ls or read_file) before deciding what to write',
        details: { expected: describeVersion(observation.version), actual: null },
      });
    return evidenceFailure('FS_NOT_FOUND', `${displayPath} does not exist`, {
      recovery: 'read the file, then retry the edit',
    });
  }

  async #currentBytes(
    path: string,
    diskPath: string,
    snapshot: FileSnapshot | undefined,
    displayPath: string,
  ): Promise<EvidenceResult<FileSnapshot>> {
    if (snapshot) return { ok: true, value: snapshot };
    const read = await readFileSnapshot(diskPath, { hashLimit: this.hashLimit, displayPath });
    if (!read.ok && read.error.code === 'FS_NOT_FOUND') return this.#missing(path, displayPath);
    return read;
  }

  #stale(
    entryKey: string,
    entry: Entry,
    metadata: FileMetadata,
    displayPath: string,
    reason: string,
    currentBytes: Buffer | undefined,
  ): EvidenceResult<CurrentObservation> {
    const details: Record<string, unknown> = {
      expected: describeVersion(entry.version),
      actual: describeVersion({ ...metadata, sha256: null }),
    };
    let where = '';
    const retained = this.#content.get(entryKey);
    if (retained && currentBytes && currentBytes.length <= this.contentLimit) {
      const before = decodeText(retained);
      const after = decodeText(currentBytes);
      if (before.ok && after.ok) {
        const ranges = changedLineRanges(before.value.text, after.value.text);
        if (ranges && ranges.length > 0) {
          details.changedLines = ranges;
          where = ` (${describeChangedLines(ranges)} in the current file)`;
        }
      }
    }
    const error: EvidenceError = {
      code: 'FS_STALE_VERSION',
      message: `${displayPath} changed after it was read: ${reason}${where}`,
      recovery: 'read it again, then retry',
      details,
    };
    return { ok: false, error };
  }

  #unlinkPath(path: string): void {
    const key = this.#pathIndex.get(path);
    if (key === undefined) return;
    this.#pathIndex.delete(path);
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.paths.delete(path);
    if (entry.paths.size === 0) {
      this.#entries.delete(key);
      this.#dropContent(key);
    }
  }

  #keepContent(key: string, content: Buffer): void {
    this.#dropContent(key);
    if (content.length > this.#contentBudget) return;
    this.#content.set(key, content);
    this.#contentBytes += content.length;
    for (const [oldKey, oldContent] of this.#content) {
      if (this.#contentBytes <= this.#contentBudget) break;
      this.#content.delete(oldKey);
      this.#contentBytes -= oldContent.length;
    }
  }

  #dropContent(key: string): void {
    const content = this.#content.get(key);
    if (!content) return;
    this.#content.delete(key);
    this.#contentBytes -= content.length;
  }
}
