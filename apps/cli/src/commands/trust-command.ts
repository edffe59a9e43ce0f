import { join } from 'node:path';
import { EXIT_CODES, usageError } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';

/**
 * `toolhost trust [--revoke] [--status] [--json]`: approves the project's `toolhost.config.json` as its
 * bytes are now, so it may widen the policy (set a wider default sandbox or approval, add roots, allow
 * rules, start its MCP servers without asking). Any later change to the file ends the approval. The
 * approval lives in the user configuration directory (0600), never in the project. `--status` only
 * reports; `--revoke` withdraws it.
 */
export const trustCommand: CommandHandler = async ({ globals, values, io }) => {
  const boot = await import('@toolhost/boot');
  if (globals.config !== undefined) {
    throw usageError(
      '--config names a file you chose yourself, which is trusted already; trust approves a project configuration',
    );
  }
  const { realpathSync } = await import('node:fs');
  let root: string;
  try {
    root = realpathSync(globals.root);
  } catch (error) {
    throw usageError(`--root: ${globals.root} does not exist or cannot be read`, error);
  }
  const file = join(root, boot.CONFIG_FILE_NAME);
  const userConfigDir = boot.resolveUserConfigDir({ env: io.env });
  const read = boot.readConfigFile(file, { missingOk: true, refuseSymlink: true });
  if (!read.ok) throw usageError(read.error.message, read.error);
  const revoke = values.revoke === true;
  if (read.value === undefined && !revoke) {
    throw usageError(`${file}: (file): there is no project configuration to trust`);
  }
  const sha256 = read.value ? boot.configDigest(read.value.bytes) : undefined;
  // What the file asks for beyond narrowing: the settings an untrusted copy does not get.
  const untrusted = boot.resolveHostConfig({ root, projectTrust: false, userConfigDir });
  if (!untrusted.ok && !revoke) throw usageError(untrusted.error.message, untrusted.error);
  const widens = untrusted.ok ? untrusted.value.ignored.map((entry) => entry.field) : [];
  const servers = untrusted.ok ? [...untrusted.value.untrustedServers] : [];
  const before = sha256 !== undefined && boot.isProjectConfigTrusted(userConfigDir, file, sha256);
  let trusted = before;
  if (values.status !== true) {
    try {
      boot.writeProjectTrust(userConfigDir, file, revoke ? null : (sha256 as string));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      throw usageError(`${userConfigDir}: cannot record the approval (${code})`, error);
    }
    trusted = !revoke;
  }
  if (values.json === true) {
    io.stdout.write(
      `${JSON.stringify({ file, sha256: sha256 ?? null, trusted, widens, servers, trustStore: join(userConfigDir, boot.TRUST_STORE_FILE_NAME) })}\n`,
    );
    return EXIT_CODES.success;
  }
  const what =
    widens.length > 0 || servers.length > 0
      ? ` It may now set ${[...widens, ...servers.map((name) => `mcpServers.${name} (started without asking)`)].join(', ')}.`
      : ' It asks for nothing beyond narrowing the policy.';
  const line = revoke
    ? `Withdrew the approval of ${file}; it can only narrow the policy again.`
    : values.status === true
      ? `${file} is ${trusted ? '' : 'not '}approved as it is now.${trusted ? what : ''}`
      : `Approved ${file} as it is now (sha256 ${(sha256 as string).slice(0, 16)}).${what} Any change to the file ends the approval.`;
  io.stdout.write(`${line}\n`);
  return EXIT_CODES.success;
};
