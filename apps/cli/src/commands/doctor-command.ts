import packageJson from '../../package.json' with { type: 'json' };
import { EXIT_CODES } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';
import { diagnose } from '../doctor.js';
import { createStyler } from '../terminal.js';

/**
 * `toolhost doctor [--json]`: what this machine is missing for toolhost (Node's version, git,
 * ripgrep, and the shell sandbox: whether bubblewrap is installed and whether it can build a sandbox
 * here), each with the command that installs or repairs it. Exit code 0 when everything toolhost
 * needs works (a missing git or ripgrep only degrades it), 1 otherwise. `--json` prints the report
 * (`{ ok, platform, packageManager, checks, installAll }`).
 */
export const doctorCommand: CommandHandler = async ({ values, io }) => {
  const report = await diagnose({ env: io.env, nodeRange: packageJson.engines.node });
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(report)}\n`);
    return report.ok ? EXIT_CODES.success : EXIT_CODES.failure;
  }
  const style = createStyler(io.stdout, io.env);
  const mark = {
    ok: style.green('ok     '),
    missing: style.red('missing'),
    failing: style.red('failing'),
  } as const;
  const lines = [
    `toolhost ${packageJson.version} doctor: what toolhost uses on this machine (${report.platform})`,
    '',
  ];
  for (const check of report.checks) {
    const found = [
      check.version,
      check.path && check.version?.includes(check.path) !== true ? `(${check.path})` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const status =
      check.status !== 'ok' && !check.required ? style.yellow(check.status.padEnd(7)) : mark[check.status];
    lines.push(`  ${status}  ${style.bold(check.name)}${found ? ` ${found}` : ''}: ${check.detail}`);
    if (check.fix) lines.push(`           fix: ${check.fix}`);
  }
  lines.push('');
  if (report.installAll) lines.push(`Install what is missing: ${report.installAll}`);
  lines.push(
    report.ok
      ? report.checks.every((check) => check.status === 'ok')
        ? style.green('Everything toolhost uses works here.')
        : style.yellow(
            'toolhost works here; the checks above marked missing make it slower or less informative.',
          )
      : style.red(
          `Fix ${report.checks
            .filter((check) => check.required && check.status !== 'ok')
            .map((check) => check.name)
            .join(', ')}: toolhost needs it.`,
        ),
  );
  io.stdout.write(`${lines.join('\n')}\n`);
  return report.ok ? EXIT_CODES.success : EXIT_CODES.failure;
};
