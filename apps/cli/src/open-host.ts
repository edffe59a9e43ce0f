import type { ApproveCallback, AuditEvent, Host } from '@toolhost/boot';
import { usageError } from './cli-error.js';
import type { GlobalOptions } from './command-types.js';

/** Options of {@link openHost} beyond the run policy. */
export interface OpenHostOptions {
  /** Asks a person; without it, calls that need approval fail closed (`APPROVAL_REQUIRED`). */
  readonly approve?: ApproveCallback;
  readonly onAudit?: (event: AuditEvent) => void;
}

/**
 * Creates the host for a command from the global options, importing `@toolhost/boot` only now.
 * A `CONFIG_INVALID` (or `HOST_CONFIGURATION`) failure becomes a usage error: exit code 2 with the
 * host's one-line reason, which names the file and field.
 */
export async function openHost(globals: GlobalOptions, options: OpenHostOptions = {}): Promise<Host> {
  const { createHost } = await import('@toolhost/boot');
  try {
    return await createHost({
      root: globals.root,
      ...(globals.sandbox ? { sandbox: globals.sandbox } : {}),
      ...(globals.approval ? { approval: globals.approval } : {}),
      ...(globals.surface ? { surface: globals.surface } : {}),
      ...(globals.config ? { config: globals.config } : {}),
      ...(options.approve ? { approve: options.approve } : {}),
      ...(options.onAudit ? { onAudit: options.onAudit } : {}),
    });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'CONFIG_INVALID' || code === 'HOST_CONFIGURATION') {
      throw usageError(error instanceof Error ? error.message : String(error), error);
    }
    throw error;
  }
}
