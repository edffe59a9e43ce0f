import { errorResult, type ResolvedToolPath, type ToolhostError, type ToolResult } from '@toolhost/contracts';
import type { PinnedTarget } from '@toolhost/path-policy';
import {
  type CommitCheck,
  type EvidenceError,
  type LocateResult,
  type MutationSource as EvidenceMutationSource,
  mutateObservedFile,
  type ObservationStore,
  type PinnedLocation,
  type TextChangeSpan,
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

/**
 * A pin as read-evidence's location: every system call goes through `pin.path`, re-checked by
 * `pin.verify()`; `close: false` leaves closing the pin to the caller.
 */
export function pinnedLocation(pin: PinnedTarget, close = true): PinnedLocation {
  return {
    diskPath: pin.path,
    check: pinCheck(pin),
    directoryRealPath: pin.directoryRealPath,
    close: close ? () => pin.close() : () => {},
  };
}

/**
 * Pins a resolved target for a read-evidence operation (`pinFilePath`), as its `locate` callback: a
 * refusal is the tool's error result, and a missing file or directory (`FS_NOT_FOUND`) says so, so
 * read-evidence reports a file observed present that has gone as stale instead.
 */
export function locateFile(
  policy: FilePathPolicy,
  target: ResolvedFilePath,
  access: 'read' | 'write',
  argument: string,
  createParents = false,
): () => LocateResult<ToolResult> {
  return () => {
    const pinned = pinFilePath(policy, target, access, argument, createParents);
    if (!pinned.ok)
      return { ok: false, missing: pinned.error.code === 'FS_NOT_FOUND', refusal: errorResult(pinned.error) };
    return { ok: true, value: pinnedLocation(pinned.value) };
  };
}

/**
 * A read-evidence failure as the tool's result: an evidence error in the contract's words, or the
 * tool's own refusal as it was.
 */
export function failureResult(failure: {
  error?: EvidenceError | undefined;
  refusal?: ToolResult | undefined;
}): ToolResult {
  return failure.error ? errorResult(evidenceError(failure.error)) : (failure.refusal as ToolResult);
}

/** The model-facing notice of a write that landed in the commit gap and went with the old file. */
export function concurrentChangeNotice(displayPath: string): string {
  return `[warning: another program wrote to ${displayPath} in the microseconds between the final check and the replacement; that write went to the replaced version and is not in the file now. Read the file and redo it if it mattered.]`;
}

/** The current content of a file being modified, after every check passed (read-evidence's). */
export type MutationSource = EvidenceMutationSource;

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
 * The structured-modification step shared by edit_file, multi_edit, delete_range, notebook_edit,
 * delete_symbol and write_file's overwrite: read-evidence's `mutateObservedFile` (RE-25: lock, read,
 * observation check, lossless decode, transform, atomic write against the version read, new version
 * recorded), with the target pinned by the path policy (`locateFile`: every system call goes
 * through the pinned directory, re-checked after the read and around the rename), the tool's limits
 * and locks, and its errors and notices in the model's words. An unchanged result writes nothing.
 */
export async function mutateTextFile<T>(
  options: ResolvedFileToolsOptions,
  store: ObservationStore,
  target: ResolvedFilePath,
  transform: (source: MutationSource) => MutationPlan<T>,
  argument = 'path',
): Promise<MutationOutcome<T>> {
  const outcome = await mutateObservedFile<T, ToolResult>(store, target.path, {
    // Read-evidence messages name the file this way (never a made-up path); outputs use displayPath.
    displayPath: observedName(target, store),
    maxBytes: options.limits.maxEditBytes,
    locks: options.locks,
    fileLocks: options.fileLocks,
    locate: locateFile(options.pathPolicy, target, 'write', argument),
    transform: (source) => {
      const plan = transform(source);
      return plan.ok ? plan : { ok: false, refusal: plan.result };
    },
  });
  if (!outcome.ok) return { ok: false, result: failureResult(outcome) };
  const notice = outcome.concurrentChange ? concurrentChangeNotice(target.displayPath) : '';
  return { ok: true, changed: outcome.changed, report: outcome.report, source: outcome.source, notice };
}
