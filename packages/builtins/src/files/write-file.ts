import { lstat } from 'node:fs/promises';
import { type AnyToolDefinition, defineTool, errorResult, textResult } from '@toolhost/contracts';
import type { PinnedTarget } from '@toolhost/path-policy';
import { convertLineEndings, encodeText, fsErrorToEvidence, writeFileAtomic } from '@toolhost/read-evidence';
import { formatUnifiedDiff } from './file-diff.js';
import { evidenceError } from './file-errors.js';
import {
  mutateTextFile,
  observedName,
  pinCheck,
  pinFilePath,
  recordWritten,
  resolveFilePath,
} from './file-mutation.js';
import type { WriteFileArguments } from './file-arguments.js';
import { writeFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { countLineBreaks, hasLineBreak } from './text-lines.js';

const DESCRIPTION = [
  'Create a text file, or replace the whole content of one. A missing file is created (with its parent directories) without reading it first, and never overwrites a file someone else created meanwhile.',
  'Replacing an existing file requires a current observation: read any window of it with read_file first (or have modified it with a file tool since). The file keeps its encoding, BOM and line-ending style. For changes to part of a file prefer edit_file or multi_edit.',
].join('\n');

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const last = text.charCodeAt(text.length - 1);
  return countLineBreaks(text) + (last === 10 || last === 13 ? 0 : 1);
}

/**
 * Creates `write_file`: creates a missing file without a prior read and without ever overwriting a
 * concurrent creator (`FS_ALREADY_EXISTS`), creating parents; replaces an existing file only with a
 * current observation (`FS_NOT_OBSERVED`, `FS_STALE_VERSION`), keeping its encoding, BOM and line
 * endings; identical content writes nothing and says so (WRITE-1..WRITE-5 in REQUIREMENTS.md). Sequential and
 * not abortable, so a write never lands after a reported timeout.
 */
export function createWriteFileTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  const { limits } = options;
  return defineTool({
    name: 'write_file',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'write_file', description: DESCRIPTION, inputSchema: writeFileArgumentsSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      subject: (args) => args.path,
      preview: (args) => `write_file ${args.path} (${Buffer.byteLength(args.content)} bytes)`,
    },
    async execute(args: WriteFileArguments, context) {
      const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
      if (!target.ok) return errorResult(target.error);
      const { path, displayPath } = target.value;
      const store = options.observationsFor(context);
      const suppliedBytes = Buffer.byteLength(args.content);

      // Create or replace: decided on the pinned directory, so a swapped directory cannot fake either.
      let pin: PinnedTarget | undefined;
      let exists = false;
      const probe = pinFilePath(options.pathPolicy, target.value, 'write', 'path');
      if (!probe.ok && probe.reason !== 'missing_parent') return errorResult(probe.error);
      try {
        if (probe.ok) {
          pin = probe.value;
          try {
            await lstat(pin.path);
            exists = true;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
              return errorResult(evidenceError(fsErrorToEvidence(error, target.value.messageName)));
          }
        }
        if (!exists) {
          return await options.locks.withLocks([path], async () => {
            const observed = store.lookup(path);
            if (observed.state === 'present') {
              const checked = await store.check(path, {
                displayPath: observedName(target.value, store),
                ...(pin ? { diskPath: pin.path } : {}),
              });
              if (!checked.ok) return errorResult(evidenceError(checked.error));
            }
            if (!pin) {
              const created = pinFilePath(options.pathPolicy, target.value, 'write', 'path', true);
              if (!created.ok) return errorResult(created.error);
              pin = created.value;
            }
            const bytes = encodeText(args.content, { name: 'utf-8', bom: false });
            if (!bytes.ok) return errorResult(evidenceError(bytes.error));
            const created = await writeFileAtomic(pin.path, bytes.value, {
              exclusive: true,
              displayPath: target.value.messageName,
              commitCheck: pinCheck(pin),
              directoryRealPath: pin.directoryRealPath,
            });
            if (!created.ok) return errorResult(evidenceError(created.error));
            recordWritten(store, path, bytes.value, created.value.stats);
            const lines = lineCount(args.content);
            return textResult(
              `created ${displayPath} (${lines} line${lines === 1 ? '' : 's'}, ${suppliedBytes} bytes)`,
              { path: displayPath, operation: 'create', bytes: suppliedBytes, lines },
            );
          });
        }
      } finally {
        pin?.close();
      }

      const outcome = await mutateTextFile(options, store, target.value, ({ decoded }) => {
        const text =
          hasLineBreak(decoded.text) && hasLineBreak(args.content)
            ? convertLineEndings(args.content, decoded.lineEnding)
            : args.content;
        return { ok: true, text, report: text };
      });
      if (!outcome.ok) return outcome.result;
      const encoding = outcome.source.decoded.encoding;
      const details = {
        path: displayPath,
        operation: outcome.changed ? 'overwrite' : 'unchanged',
        bytes: suppliedBytes,
        encoding: encoding.name,
        bom: encoding.bom,
        lineEnding: outcome.source.decoded.lineEnding,
      };
      if (!outcome.changed)
        return textResult(`${displayPath} already contains the exact content; no changes made`, details);
      const oldText = outcome.source.decoded.text;
      const newText = outcome.report;
      let prefixLength = 0;
      const shorter = Math.min(oldText.length, newText.length);
      while (prefixLength < shorter && oldText.charCodeAt(prefixLength) === newText.charCodeAt(prefixLength))
        prefixLength++;
      let suffixLength = 0;
      while (
        suffixLength < shorter - prefixLength &&
        oldText.charCodeAt(oldText.length - 1 - suffixLength) ===
          newText.charCodeAt(newText.length - 1 - suffixLength)
      )
        suffixLength++;
      const diff = formatUnifiedDiff({
        oldText,
        newText,
        prefixLength,
        suffixLength,
        displayPath,
        maxLines: limits.maxDiffLines,
        maxBytes: limits.maxDiffBytes,
      });
      return textResult(
        `wrote ${suppliedBytes} bytes to ${displayPath} (replaced its content)\n${diff.text}${outcome.notice ? `\n${outcome.notice}` : ''}`,
        details,
      );
    },
  });
}
