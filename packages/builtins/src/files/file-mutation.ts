import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { errorResult, type ResolvedToolPath, ToolhostError, type ToolResult } from '@toolhost/contracts';
import type { PinnedTarget } from '@toolhost/path-policy';
import {
  type CommitCheck,
  type DecodedText,
  decodeTextForRewrite,
  contentLength,
  type EvidenceError,
  encodeEditedText,
  encodeText,
  type FileContent,
  type FileSnapshot,
  fileVersionOf,
  type ObservationStore,
  readFileSnapshot,
  type TextChangeSpan,
  writeFileAtomic,
} from '@toolhost/read-evidence';
import { evidenceError, pathError } from './file-errors.js';
import type { FilePathPolicy, ResolvedFileToolsOptions } from './file-tools-options.js';

/** A path the policy resolved for a tool call. */
export interface ResolvedFilePath {
  /** The real absolute path to open. */
  readonly path: string;
  /** What the model sees. */
  readonly displayPath: string;
  /**
   * How error messages name it: the (bounded) display path when the target existed when it was
   * resolved, else `the path given as "<argument>"`, so an error never echoes a path the model made
   * up (finding 4 of issue 15).
   */
  readonly messageName: string;
}

/** The longest display path an error message shows; longer ones keep both ends. */
const MESSAGE_PATH_LIMIT = 160;

/**
 * How a message names a target this agent observed: a file it has seen (present in the store) is
 * named by its display path even when it has gone since ("... was removed after it was observed").
 */
export function observedName(target: ResolvedFilePath, store: ObservationStore): string {
  if (target.messageName === target.displayPath || store.lookup(target.path).state !== 'present')
    return target.messageName;
  return messageNameOf(target.displayPath, true, '');
}

/** How a message names a resolved target (see {@link ResolvedFilePath.messageName}). */
export function messageNameOf(displayPath: string, exists: boolean, argument: string): string {
  if (!exists) return `the path given as ${JSON.stringify(argument)}`;
  if (displayPath.length <= MESSAGE_PATH_LIMIT) return displayPath;
  const half = Math.floor((MESSAGE_PATH_LIMIT - 1) / 2);
  return `${displayPath.slice(0, half)}…${displayPath.slice(-half)}`;
}

/**
 * Resolves a path argument through the path policy. Every file tool calls this first. When the
 * host's permission step already asked this very policy the same question (the same argument, input
 * string and access: `context.resolvedPaths`, compared by the policy's identity), its answer is used
 * instead of a second realpath; anything else is resolved here. Either way the answer comes from the
 * policy the tool pins and re-checks with, and the tool still pins the directory (`pinFilePath`)
 * before touching the file, so an answer a moment old cannot be raced into another directory.
 */
export function resolveFilePath(
  policy: FilePathPolicy,
  input: string,
  access: 'read' | 'write',
  argument: string,
  handed?: readonly ResolvedToolPath[],
): { ok: true; value: ResolvedFilePath } | { ok: false; error: ToolhostError } {
  const known = handedResolution(policy, input, access, argument, handed);
  if (known !== undefined)
    return {
      ok: true,
      value: {
        path: known.path,
        displayPath: known.displayPath,
        messageName: messageNameOf(known.displayPath, known.exists, argument),
      },
    };
  const resolved = policy.resolve(input, { access, argument });
  if (!resolved.ok) return { ok: false, error: pathError(resolved.error, argument) };
  return {
    ok: true,
    value: {
      path: resolved.path,
      displayPath: resolved.displayPath,
      messageName: messageNameOf(resolved.displayPath, resolved.exists, argument),
    },
  };
}

/**
 * The permission step's resolution of exactly this question, if it made one. A blank input is never
 * taken from it: the permission step resolves a blank path as the tool's default (`.`), while a file
 * tool refuses it.
 */
function handedResolution(
  policy: FilePathPolicy,
  input: string,
  access: 'read' | 'write',
  argument: string,
  handed: readonly ResolvedToolPath[] | undefined,
): ResolvedToolPath | undefined {
  if (handed === undefined || typeof input !== 'string' || input.trim() === '') return undefined;
  for (const entry of handed)
    if (
      entry.resolvedBy === policy &&
      entry.argument === argument &&
      entry.access === access &&
      entry.input === input
    )
      return entry;
  return undefined;
}

/**
 * The path-based re-check of the path policy, as a read-evidence error (or undefined when allowed).
 * Kept for writers that do not pin yet; the file tools use {@link pinFilePath} and {@link pinCheck},
 * which cannot be raced where descriptors are available.
 */
export function verifyWriteTarget(policy: FilePathPolicy, path: string): EvidenceError | undefined {
  const verified = policy.verifyWriteTarget(path);
  if (verified.ok) return undefined;
  return { code: verified.error.code, message: verified.error.message };
}

/**
 * Pins the directory of a resolved target for one operation (`PathPolicy.pinTarget`): every system
 * call of the operation then goes through `pin.path`, so a directory swapped for a symbolic link
 * cannot redirect it out of the roots or into a protected directory. The caller closes the pin.
 * A refusal keeps the policy's code and reason (`FS_NOT_FOUND` with reason `missing_parent` for a
 * missing directory when `createParents` is false).
 */
export function pinFilePath(
  policy: FilePathPolicy,
  target: ResolvedFilePath,
  access: 'read' | 'write',
  argument: string,
  createParents = false,
): { ok: true; value: PinnedTarget } | { ok: false; error: ToolhostError; reason: string } {
  const pinned = policy.pinTarget(target.path, { access, createParents });
  if (!pinned.ok) return { ok: false, error: pathError(pinned.error, argument), reason: pinned.error.reason };
  return pinned;
}

/** The pin's re-check as a read-evidence commit check (run right before and after a commit). */
export function pinCheck(pin: PinnedTarget): CommitCheck {
  return () => {
    const verified = pin.verify();
    return verified.ok ? undefined : { code: verified.error.code, message: verified.error.message };
  };
}

/** The model-facing notice of a write that landed in the commit gap and went with the old file. */
export function concurrentChangeNotice(displayPath: string): string {
  return `[warning: another program wrote to ${displayPath} in the microseconds between the final check and the replacement; that write went to the replaced version and is not in the file now. Read the file and redo it if it mattered.]`;
}

/** The current content of a file being modified, after every check passed. */
export interface MutationSource {
  readonly snapshot: FileSnapshot;
  readonly decoded: DecodedText;
}

/** What a transform wants written, or a failure to report without writing. */
export type MutationPlan<T> =
  | {
      readonly ok: true;
      readonly text: string;
      readonly report: T;
      /** The shared prefix and suffix with the current text, when known: only the middle is re-encoded. */
      readonly span?: TextChangeSpan;
    }
  | { readonly ok: false; readonly result: ToolResult };

/** What {@link mutateTextFile} did. */
export type MutationOutcome<T> =
  | {
      readonly ok: true;
      readonly changed: boolean;
      readonly report: T;
      readonly source: MutationSource;
      /** A notice for the model (a concurrent write lost in the commit gap), or `''`. */
      readonly notice: string;
    }
  | { readonly ok: false; readonly result: ToolResult };

/**
 * The structured-modification protocol shared by edit_file, multi_edit, delete_range and write_file's
 * overwrite. Under the target's mutation lock, with its directory pinned (`pinFilePath`: every
 * system call below goes through the pinned directory, so a directory swap cannot redirect it) and
 * its cross-process lock held (`fileLocks`: other toolhost processes editing the same inode wait):
 * 1. read the whole file with an identity check (`FS_STALE_VERSION` if it changes while read), and
 *    confirm the pin afterwards (`PATH_INVALID` when the directory moved);
 * 2. require a current observation (`FS_NOT_OBSERVED`, `FS_STALE_VERSION`; a missing file is
 *    `FS_NOT_FOUND`, or stale when it was observed present);
 * 3. decode it so it can be written back losslessly (`FILE_BINARY`, `FILE_UNSUPPORTED`);
 * 4. run the transform in memory (it may fail; nothing is written);
 * 5. encode in the file's own encoding, BOM and all (copying the original bytes of the unchanged
 *    prefix and suffix when the plan gives its span), and write atomically: the file must still be
 *    the version read (`expectedVersion`) and the pin must still hold, checked in the same
 *    synchronous stretch as the rename;
 * 6. record the new version, so the next edit needs no re-read.
 * An unchanged result writes nothing.
 */
export async function mutateTextFile<T>(
  options: ResolvedFileToolsOptions,
  store: ObservationStore,
  target: ResolvedFilePath,
  transform: (source: MutationSource) => MutationPlan<T>,
  argument = 'path',
): Promise<MutationOutcome<T>> {
  const { path, displayPath } = target;
  // Read-evidence messages name the file this way (never a made-up path); outputs use displayPath.
  const named = observedName(target, store);
  const fail = (error: EvidenceError | ToolhostError): { ok: false; result: ToolResult } => ({
    ok: false,
    result: errorResult(ToolhostError.isInstance(error) ? error : evidenceError(error)),
  });
  return options.locks.withLocks([path], async () => {
    const pinned = pinFilePath(options.pathPolicy, target, 'write', argument);
    if (!pinned.ok) {
      if (pinned.error.code === 'FS_NOT_FOUND') {
        const checked = await store.check(path, { displayPath: named });
        return fail(checked.ok ? pinned.error : checked.error);
      }
      return fail(pinned.error);
    }
    const pin = pinned.value;
    // Other toolhost processes editing this file wait for us (and we for them): with the final
    // version check just before the rename, no edit reported ok can be lost to another toolhost.
    const fileLock = await options.fileLocks.acquire(pin.path, { displayPath: named });
    if (!fileLock.ok) {
      pin.close();
      return fail(fileLock.error);
    }
    try {
      const snapshot = await readFileSnapshot(pin.path, {
        maxBytes: options.limits.maxEditBytes,
        hashLimit: store.hashLimit,
        displayPath: named,
      });
      if (!snapshot.ok) {
        if (snapshot.error.code === 'FS_NOT_FOUND') {
          const checked = await store.check(path, { displayPath: named, diskPath: pin.path });
          return fail(checked.ok ? snapshot.error : checked.error);
        }
        return fail(snapshot.error);
      }
      const confirmed = pinCheck(pin)();
      if (confirmed) return fail(confirmed);
      const current = await store.check(path, { snapshot: snapshot.value, displayPath: named });
      if (!current.ok) return fail(current.error);
      const decoded = decodeTextForRewrite(snapshot.value.bytes);
      if (!decoded.ok) return fail(decoded.error);
      const source: MutationSource = { snapshot: snapshot.value, decoded: decoded.value };

      const plan = transform(source);
      if (!plan.ok) return plan;
      if (plan.text === decoded.value.text)
        return { ok: true, changed: false, report: plan.report, source, notice: '' };
      const encoded = plan.span
        ? encodeEditedText(snapshot.value.bytes, decoded.value, plan.text, plan.span)
        : encodeText(plan.text, decoded.value.encoding);
      if (!encoded.ok) return fail(encoded.error);
      const bytes = encoded.value;

      const written = await writeFileAtomic(pin.path, bytes, {
        displayPath: named,
        expectedVersion: snapshot.value.version,
        commitCheck: pinCheck(pin),
        directoryRealPath: pin.directoryRealPath,
      });
      if (!written.ok) return fail(written.error);
      recordWritten(store, path, bytes, written.value.stats);
      const notice = written.value.concurrentChange ? concurrentChangeNotice(displayPath) : '';
      return { ok: true, changed: true, report: plan.report, source, notice };
    } finally {
      fileLock.value.release();
      pin.close();
    }
  });
}

/** Records the version of a file we just wrote (or forgets it when it was replaced right after). */
export function recordWritten(
  store: ObservationStore,
  path: string,
  content: FileContent,
  stats: BigIntStats | null,
): void {
  if (!stats) {
    store.forget(path);
    return;
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
}
