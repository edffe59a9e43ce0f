import { join } from 'node:path';
import type { ApproveCallback, AuditEvent, Host } from '@toolhost/boot';
import { oneLine, usageError } from './cli-error.js';
import type { CliIo, GlobalOptions } from './command-types.js';

/** Options of {@link openHost} beyond the run policy. */
export interface OpenHostOptions {
  /** Asks a person; without it, calls that need approval fail closed (`APPROVAL_REQUIRED`). */
  readonly approve?: ApproveCallback;
  readonly onAudit?: (event: AuditEvent) => void;
  /**
   * The command's streams and environment: the user configuration directory is found from its
   * environment, and what an untrusted project configuration did not get is said on its stderr.
   */
  readonly io?: Pick<CliIo, 'env' | 'stderr'>;
  /** Where the host keeps its state (default `<root>/.toolhost`). */
  readonly stateDir?: string;
}

/**
 * Creates the host for a command from the global options, importing `@toolhost/boot` only now. The
 * layers are the user's own configuration (`<user config dir>/config.json`), then `--config FILE`
 * (the user's choice) or the project's `toolhost.config.json`, which widens nothing until the user
 * approved it with `toolhost trust`; the settings it did not get are listed on stderr in one line.
 * A `CONFIG_INVALID` (or `HOST_CONFIGURATION`) failure becomes a usage error: exit code 2 with the
 * host's one-line reason, which names the file and field.
 */
export async function openHost(globals: GlobalOptions, options: OpenHostOptions = {}): Promise<Host> {
  const { createHost, resolveUserConfigDir, USER_CONFIG_FILE_NAME } = await import('@toolhost/boot');
  const userConfigDir = resolveUserConfigDir(options.io ? { env: options.io.env } : {});
  let host: Host;
  try {
    host = await createHost({
      root: globals.root,
      ...(globals.sandbox ? { sandbox: globals.sandbox } : {}),
      ...(globals.approval ? { approval: globals.approval } : {}),
      ...(globals.surface ? { surface: globals.surface } : {}),
      ...(globals.config ? { config: globals.config } : {}),
      userConfig: join(userConfigDir, USER_CONFIG_FILE_NAME),
      userConfigDir,
      ...(options.stateDir ? { stateDir: options.stateDir } : {}),
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
  const ignored = host.configReport.ignored;
  if (ignored.length > 0 && options.io) {
    const project = host.configReport.layers.find((layer) => layer.role === 'project');
    options.io.stderr.write(
      `toolhost: ${oneLine(
        `the project configuration ${project?.file ?? ''} is not trusted, so it can only narrow the policy; not applied: ${ignored
          .map((entry) => entry.field)
          .join(', ')}. Run \`toolhost trust\` in the project to approve it as it is now.`,
      )}\n`,
    );
  }
  return host;
}
