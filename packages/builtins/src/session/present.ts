import { lstat, stat } from 'node:fs/promises';
import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import { type PathPolicy, resolveLexicalPath } from '@toolhost/path-policy';
import { pathPolicyErrorToToolhostError } from '../discovery/discovery-policy.js';
import type { PresentArguments } from './session-arguments.js';
import { presentArgumentsSchema } from './session-schemas.generated.js';
import type { Deliverable } from './session-state.js';
import { SESSION_READ_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION = [
  'Declare 1 to 8 existing files as the user-facing deliverables of the work, after writing them and before the final answer.',
  'The host checks every path at once (each must exist and be a regular file inside the project, named by its own path, not through a symbolic link); if any fails, nothing is recorded.',
  'It records only the paths and descriptions, replacing earlier deliverables: it never copies, runs or uploads the files and never returns their content.',
].join(' ');

/**
 * Creates `present` (group `utility_builtins`; the seed's read-only flag true; sequential). The files
 * are validated atomically, every one before anything is recorded: the path policy allows reading it
 * (inside the roots, not secret), it exists, it is a regular file, and its final path component is
 * not a symbolic link (the name given is checked with `lstat`, and must be the file the policy
 * resolved). Only paths, descriptions and sizes are recorded, replacing the session's earlier
 * deliverables; no byte of a file is read, copied or returned. Refused in the session's plan phase.
 *
 * Error codes: `PLAN_NOT_APPROVED`, the path policy's (`PATH_OUTSIDE_ROOT`, `PATH_PROTECTED`,
 * `PATH_INVALID`), `FS_NOT_FOUND`, `NOT_A_FILE`, `PATH_INVALID` (a symbolic link, a file that
 * changed while it was checked), `ARGUMENT_VALIDATION` (one file named twice), `FS_ACCESS_DENIED`;
 * every message names the entry (`files[2]`) and says that nothing was recorded.
 */
export function createPresentTool(options: SessionToolsOptions): ToolDefinition<PresentArguments> {
  const policy = options.pathPolicy;
  return defineTool({
    name: 'present',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_READ_ANNOTATIONS,
    execution: { mode: 'sequential', timeoutMs: 30_000, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'present', description: DESCRIPTION, inputSchema: presentArgumentsSchema },
    permission: {
      paths: (args) =>
        args.files.map((file, index) => ({
          argument: `files[${index}].path`,
          path: file.path,
          access: 'read' as const,
        })),
      preview: (args) => `present ${args.files.length} file${args.files.length === 1 ? '' : 's'}`,
    },
    async execute(args, context) {
      const state = options.state(context);
      if (state.inPlanPhase()) {
        return errorResult(
          new ToolhostError({
            code: 'PLAN_NOT_APPROVED',
            message:
              'present declares deliverables, which the plan phase does not allow; nothing was recorded',
          }),
        );
      }
      const recorded: Deliverable[] = [];
      const seen = new Map<string, number>();
      for (const [index, file] of args.files.entries()) {
        if (context.signal.aborted) {
          return errorResult(
            new ToolhostError({ code: 'ABORTED', message: 'present was cancelled; nothing was recorded' }),
          );
        }
        const checked = await checkDeliverable(policy, file.path, `files[${index}].path`);
        if (!checked.ok) return errorResult(nothingRecorded(index, checked.error));
        const earlier = seen.get(checked.realPath);
        if (earlier !== undefined) {
          return errorResult(
            new ToolhostError({
              code: 'ARGUMENT_VALIDATION',
              message: `files[${index}] names the same file as files[${earlier}]; nothing was recorded`,
              recovery: 'name each deliverable once',
              details: { argument: `files[${index}].path` },
            }),
          );
        }
        seen.set(checked.realPath, index);
        recorded.push({
          path: checked.displayPath,
          ...(file.description === undefined ? {} : { description: file.description }),
          bytes: checked.bytes,
        });
      }
      state.replaceDeliverables(recorded);
      const lines = recorded.map(
        (entry) =>
          `- ${entry.path} (${entry.bytes} bytes)${entry.description ? `: ${entry.description.replace(/\s*\n\s*/g, ' ')}` : ''}`,
      );
      return textResult(
        [
          `Recorded ${recorded.length} deliverable${recorded.length === 1 ? '' : 's'} for the person (paths only; no file was read or copied):`,
          ...lines,
        ].join('\n'),
        { deliverables: recorded.map((entry) => ({ ...entry })) },
      );
    },
  });
}

function nothingRecorded(index: number, error: ToolhostError): ToolhostError {
  return new ToolhostError({
    code: error.code,
    message: `files[${index}]: ${error.message.replace(/[.\s]+$/, '')}; nothing was recorded`,
    recovery: error.recovery ?? null,
    details: { ...error.details, index },
    cause: error,
  });
}

type Checked =
  | { ok: true; realPath: string; displayPath: string; bytes: number }
  | { ok: false; error: ToolhostError };

/**
 * One deliverable's checks, reading nothing of the file: the policy's decision for reading it, then
 * `lstat` of the name as given (no final symbolic link; a regular file), then `stat` of the path the
 * policy resolved, which must be the same file (device and inode).
 */
async function checkDeliverable(policy: PathPolicy, input: string, argument: string): Promise<Checked> {
  const subject = `the path given as "${argument}"`;
  const resolved = policy.resolve(input, { access: 'read', argument });
  if (!resolved.ok) return { ok: false, error: pathPolicyErrorToToolhostError(resolved.error) };
  const base = policy.roots[0];
  const lexical = base === undefined ? undefined : resolveLexicalPath(input, { base, argument });
  if (!lexical?.ok) {
    return {
      ok: false,
      error: lexical
        ? pathPolicyErrorToToolhostError(lexical.error)
        : new ToolhostError({
            code: 'PATH_OUTSIDE_ROOT',
            message: `${subject} has no root to resolve against`,
          }),
    };
  }
  try {
    const named = await lstat(lexical.path);
    if (named.isSymbolicLink()) {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'PATH_INVALID',
          message: `${subject} is a symbolic link; a deliverable is named by its own path`,
          recovery: 'present the file itself, by the path where it really is',
          details: { reason: 'symlink', argument },
        }),
      };
    }
    if (!named.isFile()) {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'NOT_A_FILE',
          message: `${subject} is not a regular file`,
          recovery: named.isDirectory()
            ? 'present the files in it, not the directory'
            : 'present regular files',
          details: { argument },
        }),
      };
    }
    const real = await stat(resolved.path);
    if (real.dev !== named.dev || real.ino !== named.ino) {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'PATH_INVALID',
          message: `${subject} changed while it was checked`,
          recovery: 'present it again once nothing is moving it',
          details: { reason: 'changed_since_check', argument },
        }),
      };
    }
    return { ok: true, realPath: resolved.path, displayPath: resolved.displayPath, bytes: real.size };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'FS_NOT_FOUND',
          message: `${subject} does not exist`,
          details: { argument },
        }),
      };
    }
    if (code === 'EACCES' || code === 'EPERM') {
      return {
        ok: false,
        error: new ToolhostError({
          code: 'FS_ACCESS_DENIED',
          message: `the operating system refused access to ${subject}`,
          details: { argument },
        }),
      };
    }
    return {
      ok: false,
      error: new ToolhostError({
        code: 'EXECUTION_ERROR',
        message: `${subject} could not be inspected (${code ?? 'unknown error'})`,
        details: { argument },
      }),
    };
  }
}
