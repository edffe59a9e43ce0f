import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPathPolicy } from '@toolhost/path-policy';
import { createShellTools } from '../../src/index.js';
import { shellFixture } from './shell-helpers.js';

describe('createShellTools', () => {
  it('registers bash on POSIX and pwsh on Windows, never both (ST-1)', (t) => {
    const posix = shellFixture(t, { platform: 'posix' });
    assert.deepEqual(
      [...posix.tools.keys()],
      ['bash', 'job_output', 'job_kill', 'bash_output', 'kill_shell', 'wait'],
    );
    const windows = shellFixture(t, { platform: 'windows' });
    assert.deepEqual(
      [...windows.tools.keys()],
      ['pwsh', 'job_output', 'job_kill', 'bash_output', 'kill_shell', 'wait'],
    );
  });

  it('declares the contract facts of every shell tool (ST-2)', (t) => {
    const shell = shellFixture(t);
    for (const tool of shell.tools.values()) {
      assert.equal(tool.group, 'shell_builtins', tool.name);
      assert.equal(tool.source, 'builtin', tool.name);
      assert.equal(tool.category, 'shell', tool.name);
      assert.equal(tool.execution.abortable, true, tool.name);
      assert.equal(tool.modelTool.name, tool.name);
      assert.ok(tool.modelTool.description.length > 40, tool.name);
    }
    const bash = shell.tools.get('bash')!;
    assert.deepEqual(bash.annotations, { destructive: true, openWorld: true });
    assert.equal(bash.execution.mode, 'sequential');
    assert.ok(
      bash.execution.timeoutMs > 600_000,
      'the host timeout leaves room for the 600 s command timeout',
    );
    assert.equal(bash.resultShape, 'shell');
    assert.equal(bash.visibility, 'listed');
    const output = shell.tools.get('job_output')!;
    assert.equal(output.annotations.readOnly, true);
    assert.equal(output.annotations.destructive, false);
    const kill = shell.tools.get('job_kill')!;
    assert.equal(kill.annotations.readOnly, false);
    assert.equal(kill.visibility, 'listed');
  });

  it('validates the configuration', (t) => {
    const shell = shellFixture(t);
    const pathPolicy = createPathPolicy({ mode: 'current_project', root: shell.root });
    assert.throws(
      () => createShellTools({ jobs: shell.jobs, pathPolicy, platform: 'beos' as 'posix' }),
      /platform must be "posix" or "windows"/,
    );
    assert.throws(
      () => createShellTools({ jobs: shell.jobs, pathPolicy, platform: 'posix', defaultTimeoutMs: 600_001 }),
      /defaultTimeoutMs/,
    );
  });

  it('rejects a timeout_ms outside 1..600000 before running anything (SH-3)', async (t) => {
    const shell = shellFixture(t);
    for (const timeout_ms of [0, 600_001, 2.5]) {
      const result = await shell.call('bash', { command: 'true', timeout_ms });
      assert.ok(!result.ok);
      assert.equal(result.error.code, 'ARGUMENT_VALIDATION');
    }
    const empty = await shell.call('bash', { command: '' });
    assert.ok(!empty.ok);
    assert.equal(shell.jobs.list().length, 0);
  });
});
