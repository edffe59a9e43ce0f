import {
  type AnyToolDefinition,
  defineTool,
  errorResult,
  type ToolResult,
  textResult,
} from '@toolhost/contracts';
import { fileVersionOf, moveFileNoReplace } from '@toolhost/read-evidence';
import type { MoveFileArguments } from './file-arguments.js';
import { evidenceError } from './file-errors.js';
import { observedName, pinCheck, pinFilePath, resolveFilePath } from './file-mutation.js';
import { moveFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';

const DESCRIPTION = [
  'Move or rename a file. It never replaces anything: an existing destination is refused. Missing parent directories of the destination are created, and moves across file systems work.',
  'Requires a current observation of the source (read any window of it with read_file first); the observation follows the file to its new path.',
].join('\n');

/**
 * Creates `move_file`: a no-replace move (`FS_ALREADY_EXISTS`) of an observed, current source, with
 * parents created and cross-device moves supported; afterwards the source is recorded absent and the
 * destination present (MOVE-1 in REQUIREMENTS.md). Write access for both paths. Sequential and not abortable.
 */
export function createMoveFileTool(options: ResolvedFileToolsOptions): AnyToolDefinition {
  return defineTool({
    name: 'move_file',
    source: 'builtin',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: options.limits.writeTimeoutMs, abortable: false },
    pathAccess: options.pathAccess,
    visibility: 'listed',
    modelTool: { name: 'move_file', description: DESCRIPTION, inputSchema: moveFileArgumentsSchema },
    permission: {
      paths: (args) => [
        { argument: 'source', path: args.source, access: 'write' },
        { argument: 'destination', path: args.destination, access: 'write' },
      ],
      subject: (args) => `${args.source} -> ${args.destination}`,
      preview: (args) => `move_file ${args.source} -> ${args.destination}`,
    },
    async execute(args: MoveFileArguments, context) {
      const source = resolveFilePath(
        options.pathPolicy,
        args.source,
        'write',
        'source',
        context.resolvedPaths,
      );
      if (!source.ok) return errorResult(source.error);
      const destination = resolveFilePath(
        options.pathPolicy,
        args.destination,
        'write',
        'destination',
        context.resolvedPaths,
      );
      if (!destination.ok) return errorResult(destination.error);
      const to = destination.value;
      const store = options.observationsFor(context);
      const from = { ...source.value, messageName: observedName(source.value, store) };
      return options.locks.withLocks([from.path, to.path], async () => {
        // Both directories pinned: the link and the unlink happen in them, whatever is swapped meanwhile.
        const sourcePin = pinFilePath(options.pathPolicy, from, 'write', 'source');
        if (!sourcePin.ok) {
          if (sourcePin.error.code !== 'FS_NOT_FOUND') return errorResult(sourcePin.error);
          const checked = await store.check(from.path, { displayPath: from.messageName });
          return errorResult(checked.ok ? sourcePin.error : evidenceError(checked.error));
        }
        const sourceAt = sourcePin.value;
        const fileLock = await options.fileLocks.acquire(sourceAt.path, { displayPath: from.messageName });
        if (!fileLock.ok) {
          sourceAt.close();
          return errorResult(evidenceError(fileLock.error));
        }
        try {
          const current = await store.check(from.path, {
            displayPath: from.messageName,
            diskPath: sourceAt.path,
          });
          if (!current.ok) return errorResult(evidenceError(current.error));
          const destinationPin = pinFilePath(options.pathPolicy, to, 'write', 'destination', true);
          if (!destinationPin.ok) return errorResult(destinationPin.error);
          const destinationAt = destinationPin.value;
          try {
            const sourceCheck = pinCheck(sourceAt);
            const destinationCheck = pinCheck(destinationAt);
            const moved = await moveFileNoReplace(sourceAt.path, destinationAt.path, {
              sourceDisplayPath: from.messageName,
              destinationDisplayPath: to.messageName,
              beforeCommit: async () => {
                const still = await store.check(from.path, {
                  displayPath: from.messageName,
                  diskPath: sourceAt.path,
                });
                return still.ok ? undefined : still.error;
              },
              commitCheck: () => sourceCheck() ?? destinationCheck(),
            });
            return finish(moved, current.value.version.sha256);
          } finally {
            destinationAt.close();
          }
        } finally {
          fileLock.value.release();
          sourceAt.close();
        }
      });

      function finish(moved: Awaited<ReturnType<typeof moveFileNoReplace>>, hash: string | null): ToolResult {
        if (!moved.ok) return errorResult(evidenceError(moved.error));
        // The content was confirmed current just before the move; a move does not change it.
        store.recordAbsent(from.path);
        if (moved.value.stats) store.recordPresent(to.path, fileVersionOf(moved.value.stats, hash));
        else store.forget(to.path);
        return textResult(
          `moved ${from.displayPath} to ${to.displayPath}${moved.value.crossDevice ? ' (copied across file systems)' : ''}`,
          { source: from.displayPath, destination: to.displayPath, crossDevice: moved.value.crossDevice },
        );
      }
    },
  });
}
