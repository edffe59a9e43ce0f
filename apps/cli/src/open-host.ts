import { join } from 'node:path';
import { errorMessage } from '@toolhost/contracts';
import type { ApproveCallback, AuditEvent, Host, SubagentRunner } from '@toolhost/boot';
import { oneLine, usageError } from './cli-error.js';
import { VERSION } from './run-cli.js';
import type { CliIo, GlobalOptions } from './command-types.js';

/** Options of {@link openHost} beyond the run policy. */
export interface OpenHostOptions {
  /** Asks a person; without it, calls that need approval fail closed (`APPROVAL_REQUIRED`). */
  readonly approve?: ApproveCallback;
  readonly onAudit?: (event: AuditEvent) => void;
  /** Runs subagents: with it the host registers `task`, `parallel_tasks` and `read_subagent_result`. */
  readonly subagents?: SubagentRunner;
  /**
   * The command's streams and environment: the user configuration directory is found from its
   * environment, and what an untrusted project configuration did not get is said on its stderr.
   */
  readonly io?: Pick<CliIo, 'env' | 'stderr'>;
  /** `--network`: the host's network for shell commands in `workspace_write` (false: the configuration decides). */
  readonly network?: boolean;
  /** Register the conversation tools (`compress`): only a command whose loop owns a conversation (`run`). */
  readonly conversationTools?: boolean;
  /** Open the host's sessions (the default one included) in plan mode (`--plan`). */
  readonly plan?: boolean;
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
  const { createHost, createToolTelemetry, resolveUserConfigDir, USER_CONFIG_FILE_NAME } = await import(
    '@toolhost/boot'
  );
  const userConfigDir = resolveUserConfigDir(options.io ? { env: options.io.env } : {});
  // Traces only when the standard OTEL_EXPORTER_OTLP_* variables ask for them (nothing loads otherwise).
  const telemetry = await createToolTelemetry({
    ...(options.io
      ? { env: options.io.env, warn: (message: string) => options.io?.stderr.write(`toolhost: ${message}\n`) }
      : {}),
    serviceVersion: VERSION,
  });
  const onAudit =
    telemetry && options.onAudit
      ? (event: AuditEvent) => {
          telemetry.onAudit(event);
          options.onAudit?.(event);
        }
      : (telemetry?.onAudit ?? options.onAudit);
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
      ...(onAudit ? { onAudit } : {}),
      ...(options.network === true ? { network: true } : {}),
      ...(options.subagents ? { subagents: options.subagents } : {}),
      ...(options.conversationTools ? { conversationTools: true } : {}),
      ...(options.plan ? { plan: true } : {}),
    });
  } catch (error) {
    await telemetry?.shutdown();
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'CONFIG_INVALID' || code === 'HOST_CONFIGURATION') {
      throw usageError(errorMessage(error), error);
    }
    throw error;
  }
  if (telemetry) {
    // The spans of the last calls are sent when the host closes.
    const close = host.close;
    host = {
      ...host,
      close: async () => {
        await close();
        await telemetry.shutdown();
      },
    };
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
