import type { ToolAnnotations } from '@toolhost/contracts';
import { EXIT_CODES, usageError } from '../cli-error.js';
import { DIALECTS } from '../command-specs.js';
import type { CommandHandler } from '../command-types.js';
import { openHost } from '../open-host.js';
import { createStyler } from '../terminal.js';

function annotationFlags(annotations: ToolAnnotations | undefined): string {
  if (!annotations) return '';
  const flags: string[] = [];
  if (annotations.readOnly === true) flags.push('read-only');
  if (annotations.destructive === true) flags.push('destructive');
  if (annotations.idempotent === true) flags.push('idempotent');
  if (annotations.openWorld === true) flags.push('open-world');
  return flags.join(', ');
}

/** The description's first sentence, at most 100 characters, for the human listing. */
function firstSentence(description: string): string {
  const line = description.split('\n')[0] ?? '';
  const end = line.search(/[.:](\s|$)/);
  const sentence = end === -1 ? line : line.slice(0, end);
  return sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
}

/**
 * `toolhost tools [--dialect D] [--json]`: the provider-visible surface of the run policy, neutral
 * or compiled for one dialect, with the fingerprint of exactly the printed `tools` array. The JSON
 * form is `{ "dialect", "fingerprint", "tools" }` (`dialect` is `"neutral"` without `--dialect`)
 * and is byte-identical across runs of the same policy.
 */
export const toolsCommand: CommandHandler = async ({ globals, values, io }) => {
  const dialect = values.dialect as string | undefined;
  if (dialect !== undefined && !(DIALECTS as readonly string[]).includes(dialect)) {
    throw usageError(`--dialect must be one of ${DIALECTS.join(', ')}`);
  }
  const host = await openHost(globals, { io });
  try {
    const neutral = host.modelTools();
    let tools: readonly unknown[] = neutral;
    let fingerprint = host.surfaceFingerprint();
    let report: readonly { tool: string; pointer: string; action: string; reason: string }[] = [];
    if (dialect !== undefined) {
      // The host compiles each dialect once and keeps it frozen: the bytes a provider would get.
      const compiled = host.providerTools(dialect as (typeof DIALECTS)[number]);
      tools = compiled.tools;
      fingerprint = compiled.fingerprint;
      report = compiled.report;
    }
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify({ dialect: dialect ?? 'neutral', fingerprint, tools }, null, 2)}\n`);
      return EXIT_CODES.success;
    }
    const style = createStyler(io.stdout, io.env);
    const lines = [
      `${style.bold(`${neutral.length} tools`)} for sandbox ${host.sandbox}, approval ${host.approval}, surface ${host.surface} ` +
        `(${dialect ?? 'neutral'}; fingerprint ${style.cyan(fingerprint)})`,
      '',
    ];
    const width = Math.max(0, ...neutral.map((tool) => tool.name.length));
    for (const tool of neutral) {
      const flags = annotationFlags(host.registry.get(tool.name)?.definition.annotations);
      const summary = firstSentence(tool.description ?? '');
      lines.push(
        `  ${style.bold(tool.name.padEnd(width))}  ${summary}${flags ? style.dim(` [${flags}]`) : ''}`,
      );
    }
    if (report.length > 0) {
      lines.push(
        '',
        `${style.yellow(`${report.length} lossy step${report.length === 1 ? '' : 's'}`)} compiling for ${dialect}:`,
      );
      for (const entry of report) {
        lines.push(
          `  ${entry.tool}${entry.pointer ? ` ${entry.pointer}` : ''}: ${entry.action}: ${entry.reason}`,
        );
      }
    }
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT_CODES.success;
  } finally {
    await host.close();
  }
};
