import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { type CommitCheck, contentLength, type FileContent, writeFileAtomic } from './atomic-write.js';
import type { EvidenceError, EvidenceResult } from './errors.js';
import { type FileLocks, sharedFileLocks } from './file-locks.js';
import { type FileVersion, fileVersionOf } from './file-version.js';
import { moveFileNoReplace } from './move-file.js';
import { type MutationLocks, sharedMutationLocks } from './mutation-locks.js';
import type { ObservationStore } from './observation-store.js';
import { type FileSnapshot, readFileSnapshot } from './read-snapshot.js';
import { type ReadTextWindowOptions, readTextWindow, type TextWindow } from './read-window.js';
import {
  type DecodedText,
  decodeTextForRewrite,
  encodeEditedText,
  encodeText,
  type TextChangeSpan,
} from './text-codec.js';

// The evidence step of the pipeline, whole: observing a window of a file (read it, record the version)
// and modifying an observed file (check the observation, lock, transform, write atomically, record the
// new version). Callers supply where the file is (a pinned location, e.g. path-policy's `pinTarget`)
// and what to write; this module owns the order of the checks, the limits and the versions.

/**
 * Where one operation reaches a file: a path every system call goes through (for example a
 * descriptor-relative path of a pinned directory, `/proc/self/fd/<n>/<name>`) and the re-check of that
 * pin. The caller makes it (read-evidence knows nothing about path policy); the operation closes it.
 */
export interface PinnedLocation {
  /** The path every system call of the operation uses. */
  readonly diskPath: string;
  /**
   * The pin's synchronous re-check, run after the read (before anything is recorded) and right before
   * and after the rename; an error means the directory moved and the operation fails with it.
   */
  readonly check?: CommitCheck;
  /** The real path of the directory when `diskPath` reaches it another way (keys the temp-file sweep). */
  readonly directoryRealPath?: string;
  /** Releases the pin; called exactly once when the operation ends. */
  close(): void;
}

/**
 * The caller's answer to "where is the file": a location, or a refusal of the caller's own type `F`
 * (a path-policy error, say) that is handed back unchanged. `missing: true` says the refusal is
 * because the file or its directory does not exist: the observation is then checked first, so a file
 * observed present that has gone is reported stale (RE-7) instead of the refusal.
 */
export type LocateResult<F> =
  | { readonly ok: true; readonly value: PinnedLocation }
  | { readonly ok: false; readonly missing: boolean; readonly refusal: F };

/** A failure of an evidence-step operation: an evidence error, or the caller's own refusal `F`. */
export type EvidenceStepFailure<F> =
  | { readonly ok: false; readonly error: EvidenceError; readonly refusal?: undefined }
  | { readonly ok: false; readonly refusal: F; readonly error?: undefined };

/** Options of {@link observeWindow}: `readTextWindow`'s options, with the store deciding the hash and content limits. */
export interface ObserveWindowOptions
  extends Omit<ReadTextWindowOptions, 'hashLimit' | 'contentLimit' | 'knownContent'> {
  /** Where to read the bytes (a pinned path of the same file). Default: the observed path. */
  readonly readPath?: string;
  /**
   * Re-checks the caller's pin after the read: an error means the file may have been reached through
   * a moved directory, so it is returned and nothing is recorded.
   */
  readonly confirm?: CommitCheck;
}

/**
 * Observes a window of a text file for one agent (RE-24): reads `options.limit` lines from
 * `options.offset` through `options.readPath` under the read protocol (RE-8, RE-17, RE-19), with the
 * store's hash and content limits and the bytes it kept of this file (RE-23), re-checks the caller's
 * pin (`confirm`), and records what was seen under `path` (the real path observations are keyed by):
 * the version, with the content when it is within the content limit; a missing file is recorded
 * absent. A file that changed while read, a failed `confirm`, or any other error records nothing.
 *
 * Errors: those of `readTextWindow` (`FS_NOT_FOUND`, `FS_STALE_VERSION`, `NOT_A_FILE`, `FILE_BINARY`,
 * `FILE_TOO_LARGE`, `PATH_INVALID`, `ABORTED`, ...) and whatever `confirm` returns.
 */
export async function observeWindow(
  store: ObservationStore,
  path: string,
  options: ObserveWindowOptions = {},
): Promise<EvidenceResult<TextWindow>> {
  // One literal of a fixed shape, undefined where the caller gave nothing (readTextWindow applies its
  // defaults with ??): a rest-and-spread copy of the options cost about a sixth of a small read.
  const window = await readTextWindow(options.readPath ?? path, {
    offset: options.offset,
    limit: options.limit,
    maxLineBytes: options.maxLineBytes,
    maxWindowBytes: options.maxWindowBytes,
    signal: options.signal,
    displayPath: options.displayPath,
    syncReadLimit: options.syncReadLimit,
    hashLimit: store.hashLimit,
    contentLimit: store.contentLimit,
    // A re-read of bytes this agent already saw takes their hash instead of hashing them again.
    knownContent: store.observedContent(path),
  } as ReadTextWindowOptions);
  const moved = options.confirm?.();
  if (moved) return { ok: false, error: moved };
  if (!window.ok) {
    if (window.error.code === 'FS_NOT_FOUND') store.recordAbsent(path);
    return window;
  }
  const { version, content } = window.value;
  store.recordPresent(path, version, content ? { content } : {});
  return window;
}

/** Options of {@link observeFile}. */
export interface ObserveFileOptions {
  /** Where to read the bytes (a pinned path of the same file). Default: the observed path. */
  readonly readPath?: string;
  /** Re-checks the caller's pin after the read (see {@link ObserveWindowOptions.confirm}). */
  readonly confirm?: CommitCheck;
  /** Files larger than this are refused with `FILE_TOO_LARGE`. Default: no limit. */
  readonly maxBytes?: number;
  /** How the file is named in messages. Default: the path. */
  readonly displayPath?: string;
  /**
   * Decides whether the read counts as an observation (a reader that shows the file only when it
   * parses a certain way). Default: always. When it returns false nothing is recorded.
   */
  readonly accept?: (snapshot: FileSnapshot) => boolean;
}

/**
 * Observes a whole file (RE-24): reads it under the read protocol (`readFileSnapshot`), re-checks the
 * caller's pin, and records the version (with the content within the content limit) when `accept`
 * agrees; a missing file is recorded absent. Returns the snapshot and whether it was recorded.
 */
export async function observeFile(
  store: ObservationStore,
  path: string,
  options: ObserveFileOptions = {},
): Promise<EvidenceResult<{ readonly snapshot: FileSnapshot; readonly recorded: boolean }>> {
  const snapshot = await readFileSnapshot(options.readPath ?? path, {
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    hashLimit: store.hashLimit,
    ...(options.displayPath === undefined ? {} : { displayPath: options.displayPath }),
  });
  const moved = options.confirm?.();
  if (moved) return { ok: false, error: moved };
  if (!snapshot.ok) {
    if (snapshot.error.code === 'FS_NOT_FOUND') store.recordAbsent(path);
    return snapshot;
  }
  const accepted = options.accept?.(snapshot.value) ?? true;
  if (accepted) {
    const { bytes, version } = snapshot.value;
    store.recordPresent(path, version, bytes.length <= store.contentLimit ? { content: bytes } : {});
  }
  return { ok: true, value: { snapshot: snapshot.value, recorded: accepted } };
}

/** The current content of a file being modified, after every check passed. */
export interface MutationSource {
  /** The whole file as read, with the version the write must still find. */
  readonly snapshot: FileSnapshot;
  /** Its text, encoding and line endings (decoded so it can be written back losslessly). */
  readonly decoded: DecodedText;
}

/** What a transform wants written, or the caller's refusal `F` (nothing is written). */
export type MutationPlan<T, F> =
  | {
      readonly ok: true;
      /** The whole new text; equal to the current text means "unchanged" and nothing is written. */
      readonly text: string;
      /** Anything the caller wants back in the outcome (a summary of the edit). */
      readonly report: T;
      /** The shared prefix and suffix with the current text, when known: only the middle is re-encoded. */
      readonly span?: TextChangeSpan;
    }
  | { readonly ok: false; readonly refusal: F };

/** Options of {@link mutateObservedFile}. */
export interface MutateObservedFileOptions<T, F> {
  /** Turns the current text into the new one, in memory; may refuse. */
  readonly transform: (source: MutationSource) => MutationPlan<T, F>;
  /**
   * Pins the file for this operation (called under the in-process lock). Default: `path` itself with
   * no re-check.
   */
  readonly locate?: () => LocateResult<F>;
  /** How the file is named in messages. Default: the path. */
  readonly displayPath?: string;
  /** Files larger than this are refused with `FILE_TOO_LARGE`. Default: no limit. */
  readonly maxBytes?: number;
  /** In-process locks shared by every writer. Default: `sharedMutationLocks()`. */
  readonly locks?: MutationLocks;
  /** Cross-process locks. Default: `sharedFileLocks()`. */
  readonly fileLocks?: FileLocks;
}

/** What {@link mutateObservedFile} did, when it succeeded. */
export interface MutationDone<T> {
  readonly ok: true;
  /** False when the transform returned the current text: nothing was written. */
  readonly changed: boolean;
  /** The transform's report. */
  readonly report: T;
  /** The content the transform saw. */
  readonly source: MutationSource;
  /** The version recorded for the written file; `undefined` when unchanged, or when it was replaced right after (forgotten). */
  readonly version: FileVersion | undefined;
  /** Another program wrote to the replaced file in the commit gap; that write went with the old file (RE-21). */
  readonly concurrentChange: boolean;
}

/** The result of {@link mutateObservedFile}. */
export type MutationOutcome<T, F> = MutationDone<T> | EvidenceStepFailure<F>;

/**
 * Modifies a file the agent has observed (RE-25). Under the in-process lock of `path`, with the file
 * pinned by `locate` (every system call goes through the pinned `diskPath`) and its cross-process lock
 * held (`fileLocks`, RE-20):
 * 1. read the whole file with an identity check (`FS_STALE_VERSION` if it changes while read), then
 *    re-check the pin;
 * 2. require a current observation (`FS_NOT_OBSERVED`, `FS_STALE_VERSION`; a missing file is
 *    `FS_NOT_FOUND`, or stale when it was observed present);
 * 3. decode it so it can be written back losslessly (`FILE_BINARY`, `FILE_UNSUPPORTED`);
 * 4. run the transform in memory (a refusal writes nothing and is returned as `refusal`);
 * 5. encode in the file's own encoding, BOM and line bytes (copying the unchanged prefix and suffix when
 *    the plan gives its span), and write atomically: the file must still be the version read
 *    (`expectedVersion`, RE-21) and the pin must still hold, checked in the same synchronous stretch
 *    as the rename;
 * 6. record the new version (content within the content limit), so the next edit needs no re-read.
 * An unchanged text writes nothing. Throws only if `transform` or `locate` throws (locks and pin are
 * released first).
 */
export async function mutateObservedFile<T, F = never>(
  store: ObservationStore,
  path: string,
  options: MutateObservedFileOptions<T, F>,
): Promise<MutationOutcome<T, F>> {
  const displayPath = options.displayPath ?? path;
  const locks = options.locks ?? sharedMutationLocks();
  const fileLocks = options.fileLocks ?? sharedFileLocks();
  const failed = (error: EvidenceError): EvidenceStepFailure<F> => ({ ok: false, error });
  return locks.withLocks([path], async (): Promise<MutationOutcome<T, F>> => {
    const located = options.locate ? options.locate() : unpinned(path);
    if (!located.ok) {
      if (located.missing) {
        const checked = await store.check(path, { displayPath });
        if (!checked.ok) return failed(checked.error);
      }
      return { ok: false, refusal: located.refusal };
    }
    const at = located.value;
    try {
      // Other toolhost processes editing this file wait for us (and we for them): with the final
      // version check just before the rename, no edit reported ok can be lost to another toolhost.
      const fileLock = await fileLocks.acquire(at.diskPath, { displayPath });
      if (!fileLock.ok) return fileLock;
      try {
        const snapshot = await readFileSnapshot(at.diskPath, {
          ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
          hashLimit: store.hashLimit,
          displayPath,
        });
        if (!snapshot.ok) {
          if (snapshot.error.code === 'FS_NOT_FOUND') {
            const checked = await store.check(path, { displayPath, diskPath: at.diskPath });
            return failed(checked.ok ? snapshot.error : checked.error);
          }
          return snapshot;
        }
        const moved = at.check?.();
        if (moved) return failed(moved);
        const current = await store.check(path, { snapshot: snapshot.value, displayPath });
        if (!current.ok) return current;
        const decoded = decodeTextForRewrite(snapshot.value.bytes);
        if (!decoded.ok) return decoded;
        const source: MutationSource = { snapshot: snapshot.value, decoded: decoded.value };

        const plan = options.transform(source);
        if (!plan.ok) return { ok: false, refusal: plan.refusal };
        const done = { ok: true, report: plan.report, source } as const;
        if (plan.text === decoded.value.text)
          return { ...done, changed: false, version: undefined, concurrentChange: false };
        const encoded = plan.span
          ? encodeEditedText(snapshot.value.bytes, decoded.value, plan.text, plan.span)
          : encodeText(plan.text, decoded.value.encoding);
        if (!encoded.ok) return encoded;

        const written = await writeFileAtomic(at.diskPath, encoded.value, {
          displayPath,
          expectedVersion: snapshot.value.version,
          ...(at.check === undefined ? {} : { commitCheck: at.check }),
          ...(at.directoryRealPath === undefined ? {} : { directoryRealPath: at.directoryRealPath }),
        });
        if (!written.ok) return written;
        const version = recordWrite(store, path, encoded.value, written.value.stats);
        return { ...done, changed: true, version, concurrentChange: written.value.concurrentChange };
      } finally {
        fileLock.value.release();
      }
    } finally {
      at.close();
    }
  });
}

/** Options of {@link createObservedFile}. */
export interface CreateObservedFileOptions<F> {
  /** Pins the file's directory for this operation, creating missing parents (called under the lock). */
  readonly locate?: () => LocateResult<F>;
  /**
   * Where to stat the path for the observation check when the store holds it present (a file
   * observed present that has gone is `FS_STALE_VERSION`, RE-7). Default: `path`.
   */
  readonly checkPath?: string;
  /** How the file is named in the observation check's messages. Default: `displayPath`. */
  readonly observedDisplayPath?: string;
  /** How the file is named in the write's messages. Default: the path. */
  readonly displayPath?: string;
  /** In-process locks shared by every writer. Default: `sharedMutationLocks()`. */
  readonly locks?: MutationLocks;
}

/**
 * Creates a file that does not exist (RE-26), under the in-process lock of `path`: when the store
 * holds `path` present, the observation is checked first (a file that was observed and has gone is
 * `FS_STALE_VERSION`); then the file is created exclusively through the pinned location (RE-11: a
 * concurrent creator wins with `FS_ALREADY_EXISTS`, nothing is overwritten) and its version recorded,
 * so it can be edited next without a read. Returns the recorded version (`undefined` when the new file
 * was replaced right after and is forgotten).
 */
export async function createObservedFile<F = never>(
  store: ObservationStore,
  path: string,
  content: FileContent,
  options: CreateObservedFileOptions<F> = {},
): Promise<EvidenceResult<{ readonly version: FileVersion | undefined }> | EvidenceStepFailure<F>> {
  const locks = options.locks ?? sharedMutationLocks();
  const displayPath = options.displayPath ?? path;
  return locks.withLocks([path], async () => {
    if (store.lookup(path).state === 'present') {
      const checked = await store.check(path, {
        displayPath: options.observedDisplayPath ?? displayPath,
        ...(options.checkPath === undefined ? {} : { diskPath: options.checkPath }),
      });
      if (!checked.ok) return checked;
    }
    const located = options.locate ? options.locate() : unpinned(path);
    if (!located.ok) return { ok: false, refusal: located.refusal } as const;
    const at = located.value;
    try {
      const created = await writeFileAtomic(at.diskPath, content, {
        exclusive: true,
        displayPath,
        ...(at.check === undefined ? {} : { commitCheck: at.check }),
        ...(at.directoryRealPath === undefined ? {} : { directoryRealPath: at.directoryRealPath }),
      });
      if (!created.ok) return created;
      return {
        ok: true,
        value: { version: recordWrite(store, path, content, created.value.stats) },
      } as const;
    } finally {
      at.close();
    }
  });
}

/** Options of {@link moveObservedFile}. */
export interface MoveObservedFileOptions<F> {
  /** Pins the source for this operation (called under the in-process locks). Default: the path itself. */
  readonly locateSource?: () => LocateResult<F>;
  /**
   * Pins the destination, creating its missing parents (called after the source's observation was
   * confirmed). Default: the path itself.
   */
  readonly locateDestination?: () => LocateResult<F>;
  /** How the source is named in messages. Default: its path. */
  readonly sourceDisplayPath?: string;
  /** How the destination is named in messages. Default: its path. */
  readonly destinationDisplayPath?: string;
  /** In-process locks shared by every writer. Default: `sharedMutationLocks()`. */
  readonly locks?: MutationLocks;
  /** Cross-process locks. Default: `sharedFileLocks()`. */
  readonly fileLocks?: FileLocks;
}

/**
 * Moves an observed file without ever replacing anything (RE-27). Under the in-process locks of both
 * paths, with the source pinned (`locateSource`) and its cross-process lock held, the source must be
 * the observed version (`FS_NOT_OBSERVED`, `FS_STALE_VERSION`; checked again right before the link);
 * the destination is pinned (`locateDestination`) and the file moved with `moveFileNoReplace` (RE-18:
 * `FS_ALREADY_EXISTS` for an existing destination; both pins re-checked around the link, RE-22).
 * Afterwards the source is recorded absent and the destination present with the version the move
 * gave it (the content hash carries over: a move does not change the content).
 */
export async function moveObservedFile<F = never>(
  store: ObservationStore,
  source: string,
  destination: string,
  options: MoveObservedFileOptions<F> = {},
): Promise<
  | EvidenceResult<{ readonly crossDevice: boolean; readonly version: FileVersion | undefined }>
  | EvidenceStepFailure<F>
> {
  const locks = options.locks ?? sharedMutationLocks();
  const fileLocks = options.fileLocks ?? sharedFileLocks();
  const sourceName = options.sourceDisplayPath ?? source;
  const destinationName = options.destinationDisplayPath ?? destination;
  return locks.withLocks([source, destination], async () => {
    const sourceLocated = options.locateSource ? options.locateSource() : unpinned(source);
    if (!sourceLocated.ok) {
      if (sourceLocated.missing) {
        const checked = await store.check(source, { displayPath: sourceName });
        if (!checked.ok) return checked;
      }
      return { ok: false, refusal: sourceLocated.refusal } as const;
    }
    const from = sourceLocated.value;
    try {
      const fileLock = await fileLocks.acquire(from.diskPath, { displayPath: sourceName });
      if (!fileLock.ok) return fileLock;
      try {
        const current = await store.check(source, { displayPath: sourceName, diskPath: from.diskPath });
        if (!current.ok) return current;
        const destinationLocated = options.locateDestination
          ? options.locateDestination()
          : unpinned(destination);
        if (!destinationLocated.ok) return { ok: false, refusal: destinationLocated.refusal } as const;
        const to = destinationLocated.value;
        try {
          const moved = await moveFileNoReplace(from.diskPath, to.diskPath, {
            sourceDisplayPath: sourceName,
            destinationDisplayPath: destinationName,
            beforeCommit: async () => {
              const still = await store.check(source, { displayPath: sourceName, diskPath: from.diskPath });
              return still.ok ? undefined : still.error;
            },
            commitCheck: () => from.check?.() ?? to.check?.(),
          });
          if (!moved.ok) return moved;
          // The content was confirmed current just before the move; a move does not change it.
          store.recordAbsent(source);
          let version: FileVersion | undefined;
          if (moved.value.stats) {
            version = fileVersionOf(moved.value.stats, current.value.version.sha256);
            store.recordPresent(destination, version);
          } else store.forget(destination);
          return { ok: true, value: { crossDevice: moved.value.crossDevice, version } } as const;
        } finally {
          to.close();
        }
      } finally {
        fileLock.value.release();
      }
    } finally {
      from.close();
    }
  });
}

/** The location of an unpinned path: the path itself, nothing to re-check or release. */
function unpinned(path: string): LocateResult<never> {
  return { ok: true, value: { diskPath: path, close() {} } };
}

/**
 * Records the version of a file just written from the bytes written and the committed inode's stats
 * (hashing the parts in sequence, no copy), with the content when it is within the content limit; a
 * file replaced right after the commit (`stats` null) is forgotten instead.
 */
export function recordWrite(
  store: ObservationStore,
  path: string,
  content: FileContent,
  stats: BigIntStats | null,
): FileVersion | undefined {
  if (!stats) {
    store.forget(path);
    return undefined;
  }
  const parts = content instanceof Uint8Array ? [content] : content;
  const length = contentLength(content);
  let sha256: string | null = null;
  if (length <= store.hashLimit) {
    const hash = createHash('sha256');
    for (const part of parts) hash.update(part);
    sha256 = hash.digest('hex');
  }
  const version = fileVersionOf(stats, sha256);
  store.recordPresent(path, version, length <= store.contentLimit ? { content: Buffer.concat(parts) } : {});
  return version;
}
