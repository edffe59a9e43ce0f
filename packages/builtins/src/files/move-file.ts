import { type AnyToolDefinition, defineTool, errorResult, textResult } from '@toolhost/contracts';
import { moveObservedFile } from '@toolhost/read-evidence';
import type { MoveFileArguments } from './file-arguments.js';
import { failureResult, locateFile, observedName, resolveFilePath } from './file-mutation.js';
import { moveFileArgumentsSchema } from './file-schemas.generated.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';

const DESCRIPTION = [
  'Move or rename a file. It never replaces anything: an existing destination is refused. Missing parent directories of the destination are created, and moves across file systems work.',
  'Requires a current observation of the source (read any window of it with read_file first); the observation follows the file to its new path.',
].join('\n');

/**
 * Creates `move_file`: a no-replace move (`FS_ALREADY_EXISTS`) of an observed, current source, with
 * parents created and cross-device moves supported; afterwards the source is recorded absent and the
 * destination present (MOVE-1 in REQUIREMENTS.md), by read-evidence's `moveObservedFile` (RE-27) with
 * both directories pinned by the path policy. Write access for both paths. Sequential and not abortable.
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
      // Both directories pinned: the link and the unlink happen in them, whatever is swapped meanwhile.
      const moved = await moveObservedFile(store, from.path, to.path, {
        locks: options.locks,
        fileLocks: options.fileLocks,
        sourceDisplayPath: from.messageName,
        destinationDisplayPath: to.messageName,
        locateSource: locateFile(options.pathPolicy, from, 'write', 'source'),
        locateDestination: locateFile(options.pathPolicy, to, 'write', 'destination', true),
      });
      if (!moved.ok) return failureResult(moved);
      return textResult(
        `moved ${from.displayPath} to ${to.displayPath}${moved.value.crossDevice ? ' (copied across file systems)' : ''}`,
        { source: from.displayPath, destination: to.displayPath, crossDevice: moved.value.crossDevice },
      );
    },
  });
}
