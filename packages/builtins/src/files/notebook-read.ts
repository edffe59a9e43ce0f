import { errorResult, type ToolResult, textResult } from '@toolhost/contracts';
import {
  type CommitCheck,
  decodeTextForRewrite,
  describeVersion,
  type ObservationStore,
  readFileSnapshot,
} from '@toolhost/read-evidence';
import { evidenceError } from './file-errors.js';
import type { ResolvedFilePath } from './file-mutation.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { parseNotebook, renderNotebook } from './notebook-format.js';

/** Options of {@link readNotebookWindow}. */
export interface ReadNotebookWindowOptions {
  /** Rendered lines to skip. */
  readonly offset: number;
  /** Most rendered lines to return. */
  readonly limit: number;
  /** Where to read the bytes (a pinned path of the same file); default the target's path. */
  readonly readPath?: string;
  /** Confirms the pin after the read: an error means the file moved meanwhile and nothing is shown. */
  readonly confirm?: CommitCheck;
}

/**
 * read_file of a `.ipynb` file: reads the whole file under the read protocol (identity checked
 * while reading), records the observation notebook_edit needs, and returns a window of the
 * rendered notebook (cells with their numbers, ids, types and a bounded summary of outputs)
 * instead of its JSON. Returns `undefined` when the file is not an nbformat 4 notebook, so read_file
 * shows it as text instead.
 */
export async function readNotebookWindow(
  options: ResolvedFileToolsOptions,
  store: ObservationStore,
  target: ResolvedFilePath,
  window: ReadNotebookWindowOptions,
): Promise<ToolResult | undefined> {
  const { path, displayPath } = target;
  const snapshot = await readFileSnapshot(window.readPath ?? path, {
    maxBytes: options.limits.maxEditBytes,
    hashLimit: store.hashLimit,
    displayPath,
  });
  const moved = window.confirm?.();
  if (moved) return errorResult(evidenceError(moved));
  if (!snapshot.ok) {
    if (snapshot.error.code === 'FS_NOT_FOUND') store.recordAbsent(path);
    return errorResult(evidenceError(snapshot.error));
  }
  const decoded = decodeTextForRewrite(snapshot.value.bytes);
  if (!decoded.ok) return undefined;
  const parsed = parseNotebook(decoded.value.text);
  if (!parsed.ok) return undefined;
  const { bytes, version } = snapshot.value;
  store.recordPresent(path, version, bytes.length <= store.contentLimit ? { content: bytes } : {});
  const [header, ...lines] = renderNotebook(parsed.value, displayPath);
  const shown = lines.slice(window.offset, window.offset + window.limit);
  const last = window.offset + shown.length;
  const trailer =
    last < lines.length
      ? [
          `[PARTIAL view: showing lines ${window.offset + 1}-${last} of ${lines.length} of the rendered notebook; pass offset=${last} to continue.]`,
        ]
      : shown.length === 0 && lines.length > 0
        ? [`(offset ${window.offset} is past the end: the rendered notebook has ${lines.length} lines)`]
        : [];
  return textResult([header, ...shown, ...trailer].join('\n'), {
    path: displayPath,
    notebook: true,
    cells: parsed.value.cells.length,
    offset: window.offset,
    lines: shown.length,
    totalLines: lines.length,
    hasMore: last < lines.length,
    nextOffset: last < lines.length ? last : null,
    version: describeVersion(version),
  });
}
