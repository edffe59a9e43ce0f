import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { errorResult, ToolhostError, type ToolResult } from '@toolhost/contracts';
import {
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
}

/**
 * Resolves a path argument through the path policy. Every file tool calls this first, even though
 * the host's permission step ran the policy too: the tool needs the real path, and the answer must
 * come from the same policy the writer re-checks.
 */
export function resolveFilePath(
  policy: FilePathPolicy,
  input: string,
  access: 'read' | 'write',
  argument: string,
): { ok: true; value: ResolvedFilePath } | { ok: false; error: ToolhostError } {
  const resolved = policy.resolve(input, { access });
  if (!resolved.ok) return { ok: false, error: pathError(resolved.error, argument) };
  return { ok: true, value: { path: resolved.path, displayPath: resolved.displayPath } };
}

/** The writer's re-check of the path policy, as a read-evidence error (or undefined when allowed). */
export function verifyWriteTarget(policy: FilePathPolicy, path: string): EvidenceError | undefined {
  const verified = policy.verifyWriteTarget(path);
  if (verified.ok) return undefined;
  return { code: verified.error.code, message: verified.error.message };
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
  | { readonly ok: true; readonly changed: boolean; readonly report: T; readonly source: MutationSource }
  | { readonly ok: false; readonly result: ToolResult };

/**
 * The structured-modification protocol shared by edit_file, multi_edit, delete_range and write_file's
 * overwrite. Under the target's mutation lock:
 * 1. read the whole file with an identity check (`FS_STALE_VERSION` if it changes while read);
 * 2. require a current observation (`FS_NOT_OBSERVED`, `FS_STALE_VERSION`; a missing file is
 *    `FS_NOT_FOUND`, or stale when it was observed present);
 * 3. decode it so it can be written back losslessly (`FILE_BINARY`, `FILE_UNSUPPORTED`);
 * 4. run the transform in memory (it may fail; nothing is written);
 * 5. encode in the file's own encoding, BOM and all (copying the original bytes of the unchanged
 *    prefix and suffix when the plan gives its span), and write atomically, re-checking the path
 *    policy and the observation immediately before the rename;
 * 6. record the new version, so the next edit needs no re-read.
 * An unchanged result writes nothing.
 */
export async function mutateTextFile<T>(
  options: ResolvedFileToolsOptions,
  store: ObservationStore,
  target: ResolvedFilePath,
  transform: (source: MutationSource) => MutationPlan<T>,
): Promise<MutationOutcome<T>> {
  const { path, displayPath } = target;
  const fail = (error: EvidenceError | ToolhostError): { ok: false; result: ToolResult } => ({
    ok: false,
    result: errorResult(ToolhostError.isInstance(error) ? error : evidenceError(error)),
  });
  return options.locks.withLocks([path], async () => {
    const snapshot = await readFileSnapshot(path, {
      maxBytes: options.limits.maxEditBytes,
      hashLimit: store.hashLimit,
      displayPath,
    });
    if (!snapshot.ok) {
      if (snapshot.error.code === 'FS_NOT_FOUND') {
        const checked = await store.check(path, { displayPath });
        return fail(checked.ok ? snapshot.error : checked.error);
      }
      return fail(snapshot.error);
    }
    const current = await store.check(path, { snapshot: snapshot.value, displayPath });
    if (!current.ok) return fail(current.error);
    const decoded = decodeTextForRewrite(snapshot.value.bytes);
    if (!decoded.ok) return fail(decoded.error);
    const source: MutationSource = { snapshot: snapshot.value, decoded: decoded.value };

    const plan = transform(source);
    if (!plan.ok) return plan;
    if (plan.text === decoded.value.text) return { ok: true, changed: false, report: plan.report, source };
    const encoded = plan.span
      ? encodeEditedText(snapshot.value.bytes, decoded.value, plan.text, plan.span)
      : encodeText(plan.text, decoded.value.encoding);
    if (!encoded.ok) return fail(encoded.error);
    const bytes = encoded.value;

    const written = await writeFileAtomic(path, bytes, {
      displayPath,
      beforeCommit: async () => {
        const refused = verifyWriteTarget(options.pathPolicy, path);
        if (refused) return refused;
        const still = await store.check(path, { displayPath });
        return still.ok ? undefined : still.error;
      },
    });
    if (!written.ok) return fail(written.error);
    recordWritten(store, path, bytes, written.value.stats);
    return { ok: true, changed: true, report: plan.report, source };
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
