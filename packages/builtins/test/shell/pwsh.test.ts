import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { findPowerShellChainOperator } from '../../src/index.js';
import { resultText, shellFixture } from './shell-helpers.js';

const hasPwsh = spawnSync('pwsh', ['-NoProfile', '-Command', 'exit 0'], { stdio: 'ignore' }).status === 0;

describe('createPwshTool', () => {
  it('requires a description (PS-2)', async (t) => {
    const shell = shellFixture(t, { platform: 'windows' });
    const result = await shell.call('pwsh', { command: 'Get-Location' });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'ARGUMENT_VALIDATION');
    const schema = shell.tools.get('pwsh')!.modelTool.inputSchema as { required: string[] };
    assert.deepEqual(schema.required, ['command', 'description']);
  });

  it('refuses && and || on Windows PowerShell 5.1 with guidance, running nothing (PS-3)', async (t) => {
    const shell = shellFixture(t, { platform: 'windows', tools: { powershellEdition: 'desktop' } });
    const and = await shell.call('pwsh', { command: 'npm ci && npm test', description: 'Install and test' });
    assert.ok(!and.ok);
    assert.equal(and.error.code, 'ARGUMENT_VALIDATION');
    assert.equal(
      and.error.toModelText(),
      'ARGUMENT_VALIDATION: Windows PowerShell 5.1 does not support the && operator; nothing was run; separate the commands with ";" and run the second only on success: first; if ($?) { second }',
    );
    const or = await shell.call('pwsh', { command: 'Test-Path x || New-Item x', description: 'Make x' });
    assert.ok(!or.ok);
    assert.match(or.error.toModelText(), /the \|\| operator.*if \(-not \$\?\) \{ second \}/);
    assert.equal(shell.jobs.list().length, 0);
  });

  it('passes && through to PowerShell 7, which supports it', {
    skip: hasPwsh && 'pwsh is installed',
  }, async (t) => {
    const shell = shellFixture(t, { platform: 'windows' });
    const result = await shell.call('pwsh', { command: 'echo a && echo b', description: 'Echo twice' });
    // Without pwsh installed the launch itself fails: the command got past the 5.1 check.
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'EXECUTION_ERROR');
    assert.match(result.error.message, /the shell could not be started/);
  });

  it('runs a command in pwsh with UTF-8 output and pwsh-<n> ids', {
    skip: !hasPwsh && 'pwsh is not installed',
  }, async (t) => {
    const shell = shellFixture(t, { platform: 'windows' });
    const result = await shell.call('pwsh', { command: 'Write-Output "héllo ✓"', description: 'Say hello' });
    assert.ok(result.ok);
    assert.equal(resultText(result), 'héllo ✓');
    assert.equal(result.output.details?.jobId, 'pwsh-1');
    const failed = await shell.call('pwsh', { command: 'Write-Output x; exit 5', description: 'Fail' });
    assert.ok(!failed.ok);
    assert.equal(failed.error.details.exitCode, 5);
  });
});

describe('findPowerShellChainOperator', () => {
  it('finds && and || only where PowerShell parses them as operators (PS-3)', () => {
    const cases: Array<[string, '&&' | '||' | undefined]> = [
      ['a && b', '&&'],
      ['a || b', '||'],
      ['a; if ($?) { b }', undefined],
      ["echo 'a && b'", undefined],
      ["echo 'it''s && fine'", undefined],
      ['echo "a || b"', undefined],
      ['echo "say `"hi`" && more"', undefined],
      ['echo "x" && echo y', '&&'],
      ['# a && b\necho c', undefined],
      ['echo a#b && c', '&&'],
      ['<# a && b #> echo c', undefined],
      ["@'\nx && y\n'@ | Out-Host", undefined],
      ['@"\nx || y\n"@; a || b', '||'],
      ['echo `&`& b', undefined],
      ['a | b', undefined],
      ['Start-Job { a } &', undefined],
    ];
    for (const [command, expected] of cases) {
      assert.equal(findPowerShellChainOperator(command)?.operator, expected, command);
    }
    assert.equal(findPowerShellChainOperator('ab && c')?.index, 3);
  });
});
