import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createJobEnvironment } from '../src/index.js';
import {
  buildBashInvocation,
  buildPowerShellInvocation,
  buildShellInvocation,
  POWERSHELL_COMMAND_VARIABLE,
  POWERSHELL_INLINE_LIMIT,
} from '../src/shell-invocation.js';
import { manager, tempDir } from './helpers.js';

/** Decodes `-EncodedCommand`'s argument back into the script text. */
function decodeScript(args: readonly string[]): string {
  const index = args.indexOf('-EncodedCommand');
  assert.ok(index >= 0);
  return Buffer.from(args[index + 1]!, 'base64').toString('utf16le');
}

/** The user's command embedded in a script (base64 of its UTF-8 bytes, in single quotes). */
function embeddedCommand(script: string): string | undefined {
  const match = /FromBase64String\('([A-Za-z0-9+/=]*)'\)/.exec(script);
  return match ? Buffer.from(match[1]!, 'base64').toString('utf8') : undefined;
}

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const hasPwsh = spawnSync('pwsh', ['-NoProfile', '-Command', 'exit 0'], { stdio: 'ignore' }).status === 0;

describe('buildBashInvocation', () => {
  it('runs bash without start-up files', () => {
    assert.deepEqual(buildBashInvocation('echo hi'), {
      file: 'bash',
      args: ['--noprofile', '--norc', '-c', 'echo hi'],
      env: {},
      shell: 'bash',
    });
    assert.equal(buildShellInvocation('bash', 'x', { bash: '/bin/bash' }).file, '/bin/bash');
  });
});

describe('buildPowerShellInvocation', () => {
  it('launches -NoLogo -NoProfile -NonInteractive -EncodedCommand with UTF-16LE base64 (PS-1)', () => {
    const invocation = buildPowerShellInvocation('Get-ChildItem');
    assert.equal(invocation.file, 'pwsh');
    assert.deepEqual(invocation.args.slice(0, 4), [
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-EncodedCommand',
    ]);
    assert.equal(invocation.args.length, 5);
    assert.match(invocation.args[4]!, /^[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(invocation.env, {});
    assert.equal(buildShellInvocation('pwsh', 'x', { pwsh: 'powershell.exe' }).file, 'powershell.exe');
  });

  it('round-trips any command text, quotes and non-ASCII included (PS-1)', () => {
    for (const command of [
      `Write-Output 'it''s "quoted" $env:PATH \`n'`,
      'Write-Output "héllo wörld ✓ 日本語 🎉"',
      "@'\nhere-string\n'@ | Out-Host",
      'echo a; if ($?) { echo b }',
    ]) {
      const script = decodeScript(buildPowerShellInvocation(command).args);
      assert.equal(embeddedCommand(script), command);
    }
  });

  it('forces UTF-8 output before compiling the command as a separate script block (PS-1)', () => {
    const script = decodeScript(buildPowerShellInvocation('Write-Output x').args);
    const utf8 = script.indexOf('[Console]::OutputEncoding = $__toolhostUtf8');
    const outputEncoding = script.indexOf('$OutputEncoding = $__toolhostUtf8');
    const compile = script.indexOf('[ScriptBlock]::Create($__toolhostSource)');
    const run = script.indexOf('. $__toolhostBlock');
    assert.ok(utf8 > 0 && outputEncoding > utf8 && compile > outputEncoding && run > compile);
    assert.match(script, /New-Object System\.Text\.UTF8Encoding \$false/, 'UTF-8 without a byte-order mark');
    assert.match(script, /catch \{ \[Console\]::Error\.WriteLine\(\$_\.Exception\.Message\); exit 1 \}/);
    assert.match(script, /exit \$global:LASTEXITCODE$/);
  });

  it('moves a long command into an environment variable to respect the command-line limit (PS-1)', () => {
    const command = `Write-Output '${'x'.repeat(POWERSHELL_INLINE_LIMIT)}'`;
    const invocation = buildPowerShellInvocation(command);
    const script = decodeScript(invocation.args);
    assert.equal(embeddedCommand(script), undefined);
    assert.ok(script.includes(`GetEnvironmentVariable('${POWERSHELL_COMMAND_VARIABLE}')`));
    assert.equal(
      Buffer.from(invocation.env[POWERSHELL_COMMAND_VARIABLE]!, 'base64').toString('utf8'),
      command,
    );
    assert.ok(invocation.args.join(' ').length < 32_767);
    const short = buildPowerShellInvocation(`Write-Output '${'x'.repeat(POWERSHELL_INLINE_LIMIT - 20)}'`);
    assert.ok(
      short.args.join(' ').length < 32_767,
      'the largest inline command still fits a Windows command line',
    );
  });

  it('runs a command through pwsh with UTF-8 output and its exit code', {
    skip: !hasPwsh && 'pwsh is not installed',
  }, async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const started = await jobs.start({ shell: 'pwsh', command: 'Write-Output "héllo ✓"; exit 3', cwd: root });
    assert.ok(started.ok);
    assert.equal(started.value.id, 'pwsh-1');
    const waited = await jobs.wait(started.value.id);
    assert.ok(waited.ok);
    assert.equal(waited.value.snapshot.exitCode, 3);
    const read = await jobs.readNew(started.value.id);
    assert.ok(read.ok);
    assert.equal(read.value.text.trim(), 'héllo ✓');
  });
});

describe('the shell on PATH', () => {
  it('a danger_full_access job starts its shell once, the first executable regular file named bash on PATH (missing, non-directory, non-executable and directory entries skipped), also when the host inherited a descriptor', async (t) => {
    const root = tempDir(t);
    const realBash = spawnSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();
    assert.ok(realBash.startsWith('/'), 'bash is on the test PATH');
    const file = path.join(root, 'a-file');
    writeFileSync(file, '');
    const notExecutable = path.join(root, 'not-executable');
    mkdirSync(notExecutable);
    writeFileSync(path.join(notExecutable, 'bash'), '#!/bin/sh\necho wrong-bash\n');
    chmodSync(path.join(notExecutable, 'bash'), 0o644);
    const aDirectory = path.join(root, 'a-directory');
    mkdirSync(path.join(aDirectory, 'bash'), { recursive: true });
    // Every start of this bash says so: a second line means a second shell started (before, a host
    // with an inherited descriptor closed it through `bash -c 'exec 300>&-; exec "$@"'`, an extra
    // shell per danger_full_access job, although the shell's own BASH_ENV can close it).
    const wrapper = path.join(root, 'wrapper');
    mkdirSync(wrapper);
    writeFileSync(path.join(wrapper, 'bash'), `#!${realBash}\necho via-wrapper\nexec ${realBash} "$@"\n`, {
      mode: 0o755,
    });
    const searchPath = [
      path.join(root, 'missing'),
      file,
      notExecutable,
      aDirectory,
      '',
      wrapper,
      '/usr/bin',
      '/bin',
    ];
    const fixture = path.join(packageDir, 'test', 'fixtures', 'shell-lookup-host.ts');
    // The host is started by a shell that opened fd 300 without close-on-exec, as `cmd 300>file` does.
    const child = spawn(
      realBash,
      [
        '-c',
        'exec 300>/dev/null; exec "$NODE" --conditions=@toolhost/source --import tsx "$FIXTURE" "$ROOT" "$SEARCH"',
      ],
      {
        cwd: packageDir,
        env: {
          ...process.env,
          NODE: process.execPath,
          FIXTURE: fixture,
          ROOT: root,
          SEARCH: searchPath.join(path.delimiter),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, output);
    const result = JSON.parse(output) as { contained: boolean; exitCode: number; text: string };
    assert.equal(result.exitCode, 4);
    assert.equal(result.text, 'via-wrapper\nran\n', 'one shell, the wrapper found on PATH');
    assert.equal(result.contained, spawnSync('bwrap', ['--version']).status === 0);
  });
});

describe('createJobEnvironment', () => {
  it('passes the allowlist, drops everything else and secrets even by prefix (JOB-ENV-1, JOB-ENV-2)', () => {
    const environment = createJobEnvironment(
      {
        PATH: '/bin',
        HOME: '/home/me',
        LC_ALL: 'en_US.UTF-8',
        XDG_CONFIG_HOME: '/home/me/.config',
        NPM_CONFIG_REGISTRY: 'https://registry.example',
        NPM_CONFIG_AUTH_TOKEN: 'secret-1',
        GIT_AUTHOR_NAME: 'Me',
        ANTHROPIC_API_KEY: 'secret-2',
        SSH_AUTH_SOCK: '/tmp/agent',
        LD_PRELOAD: '/evil.so',
        BASH_ENV: '/evil.sh',
      },
      { pass: ['NPM_CONFIG_*', 'GIT_*'] },
    );
    assert.equal(environment.PATH, '/bin');
    assert.equal(environment.LC_ALL, 'en_US.UTF-8');
    assert.equal(environment.XDG_CONFIG_HOME, '/home/me/.config');
    assert.equal(environment.NPM_CONFIG_REGISTRY, 'https://registry.example');
    assert.equal(environment.GIT_AUTHOR_NAME, 'Me', 'AUTHOR is not AUTH');
    for (const name of [
      'NPM_CONFIG_AUTH_TOKEN',
      'ANTHROPIC_API_KEY',
      'SSH_AUTH_SOCK',
      'LD_PRELOAD',
      'BASH_ENV',
    ]) {
      assert.equal(environment[name], undefined, name);
    }
  });

  it('forces CI settings and a UTF-8 locale (JOB-ENV-3)', () => {
    const environment = createJobEnvironment({
      LANG: 'C',
      LC_ALL: 'POSIX',
      LC_CTYPE: 'de_DE.ISO-8859-1',
      TERM: 'xterm',
    });
    assert.equal(environment.LANG, 'C.UTF-8');
    assert.equal(environment.LC_ALL, undefined);
    assert.equal(environment.LC_CTYPE, undefined);
    assert.equal(environment.TERM, 'dumb');
    for (const [name, value] of Object.entries({
      CI: '1',
      NO_COLOR: '1',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GIT_TERMINAL_PROMPT: '0',
    })) {
      assert.equal(environment[name], value, name);
    }
    assert.equal(createJobEnvironment({ LANG: 'fr_FR.UTF-8' }).LANG, 'fr_FR.UTF-8', 'a UTF-8 locale is kept');
    assert.equal(
      createJobEnvironment({}, { set: { TERM: 'xterm-256color' } }).TERM,
      'xterm-256color',
      'configured values win',
    );
  });
});
