/** The shells a job can run its command in; also the prefix of its id (`bash-1`, `pwsh-2`). */
export type JobShell = 'bash' | 'pwsh';

/** How to launch one command: the executable, its arguments and extra environment variables. */
export interface ShellInvocation {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Which shell the invocation starts (bash reads `BASH_ENV` before its `-c` command). */
  readonly shell?: JobShell;
}

/** Which shell executables to run. */
export interface ShellExecutables {
  /** Default `bash` (looked up on PATH). */
  readonly bash?: string;
  /** Default `pwsh` (PowerShell 7); pass `powershell.exe` for Windows PowerShell 5.1. */
  readonly pwsh?: string;
}

/**
 * `bash --noprofile --norc -c COMMAND`: no start-up files, so the command runs the same for every
 * user (`BASH_ENV` is not in the environment allowlist either).
 */
export function buildBashInvocation(command: string, executable = 'bash'): ShellInvocation {
  return { file: executable, args: ['--noprofile', '--norc', '-c', command], env: {}, shell: 'bash' };
}

/**
 * Commands up to this many UTF-8 bytes are embedded in `-EncodedCommand`; longer ones travel in an
 * environment variable, because Windows limits a whole command line to 32 767 characters and the
 * double encoding grows a command about 3.6 times.
 */
export const POWERSHELL_INLINE_LIMIT = 6_000;

/** The variable a long PowerShell command travels in (base64 of its UTF-8 bytes). */
export const POWERSHELL_COMMAND_VARIABLE = 'TOOLHOST_PWSH_COMMAND';

/**
 * The PowerShell script that runs a command: it forces UTF-8 output first (console code pages mangle
 * non-ASCII output and mislead the model into "fixing" correct files), then compiles the command as a
 * separate script block, so a syntax error in it is reported instead of breaking the UTF-8 set-up,
 * runs it in the script scope, and exits with its status: `exit N` inside the command wins; else the
 * last native exit code; else 1 when the last statement failed.
 *
 * `inlineCommand`: the command's UTF-8 base64, or `undefined` to read it from
 * {@link POWERSHELL_COMMAND_VARIABLE}.
 */
export function buildPowerShellScript(inlineCommand: string | undefined): string {
  const source =
    inlineCommand === undefined
      ? `[System.Environment]::GetEnvironmentVariable('${POWERSHELL_COMMAND_VARIABLE}')`
      : `'${inlineCommand}'`;
  return [
    "$ErrorActionPreference = 'Continue'",
    "$ProgressPreference = 'SilentlyContinue'",
    '$__toolhostUtf8 = New-Object System.Text.UTF8Encoding $false',
    'try { [Console]::OutputEncoding = $__toolhostUtf8 } catch { }',
    '$OutputEncoding = $__toolhostUtf8',
    `$__toolhostSource = [System.Text.Encoding]::UTF8.GetString([System.Convert]::FromBase64String(${source}))`,
    `[System.Environment]::SetEnvironmentVariable('${POWERSHELL_COMMAND_VARIABLE}', $null)`,
    'try { $__toolhostBlock = [ScriptBlock]::Create($__toolhostSource) }',
    'catch { [Console]::Error.WriteLine($_.Exception.Message); exit 1 }',
    '$global:LASTEXITCODE = 0',
    '. $__toolhostBlock',
    'if (-not $?) { if ($global:LASTEXITCODE) { exit $global:LASTEXITCODE } else { exit 1 } }',
    'exit $global:LASTEXITCODE',
  ].join('\n');
}

/** `-EncodedCommand` takes base64 of the script's UTF-16LE bytes. */
export function encodePowerShellCommand(script: string): string {
  return Buffer.from(script, 'utf16le').toString('base64');
}

/**
 * `pwsh -NoLogo -NoProfile -NonInteractive -EncodedCommand <UTF-16LE base64>` around
 * {@link buildPowerShellScript}: no quoting problems whatever the command contains, no profile, no
 * prompts.
 */
export function buildPowerShellInvocation(command: string, executable = 'pwsh'): ShellInvocation {
  const payload = Buffer.from(command, 'utf8').toString('base64');
  const inline = Buffer.byteLength(command, 'utf8') <= POWERSHELL_INLINE_LIMIT;
  const script = buildPowerShellScript(inline ? payload : undefined);
  return {
    file: executable,
    args: ['-NoLogo', '-NoProfile', '-NonInteractive', '-EncodedCommand', encodePowerShellCommand(script)],
    env: inline ? {} : { [POWERSHELL_COMMAND_VARIABLE]: payload },
    shell: 'pwsh',
  };
}

/** The invocation for a shell. */
export function buildShellInvocation(
  shell: JobShell,
  command: string,
  executables: ShellExecutables = {},
): ShellInvocation {
  return shell === 'bash'
    ? buildBashInvocation(command, executables.bash)
    : buildPowerShellInvocation(command, executables.pwsh);
}
