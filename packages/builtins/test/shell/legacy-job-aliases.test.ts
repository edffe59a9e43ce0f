import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createToolRegistry } from '@toolhost/contracts';
import { processesMatching, resultText, shellFixture, uniqueTag, waitUntil } from './shell-helpers.js';

describe('legacy job aliases', () => {
  it('are callable by name but hidden from every listing (LG-1)', (t) => {
    const shell = shellFixture(t);
    const registry = createToolRegistry();
    for (const tool of shell.tools.values()) registry.register(tool);
    const listed = registry.list().map((tool) => tool.name);
    assert.deepEqual(listed.sort(), ['bash', 'job_kill', 'job_output']);
    for (const name of ['bash_output', 'kill_shell', 'wait']) {
      assert.equal(shell.tools.get(name)?.visibility, 'hidden', name);
      assert.ok(registry.get(name), `${name} resolves by name`);
    }
  });

  it('bash_output prints "[<id>] <status>" and the new output, sharing job_output\'s cursor (LG-2)', async (t) => {
    const shell = shellFixture(t);
    await shell.call('bash', { command: 'echo one; echo two', run_in_background: true });
    await shell.jobs.wait('bash-1');
    const first = await shell.call('bash_output', { job_id: 'bash-1', filter: 'one' });
    assert.equal(resultText(first), '[bash-1] done\none');
    const shared = await shell.call('job_output', { job_id: 'bash-1' });
    assert.equal(resultText(shared), '(no new output)\n[status: done]');
    const invalid = await shell.call('bash_output', { job_id: 'bash-1', filter: '[' });
    assert.ok(!invalid.ok);
    assert.match(invalid.error.message, /^invalid filter regexp: /);
    const unknown = await shell.call('bash_output', { job_id: 'bash-9' });
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.code, 'JOB_NOT_FOUND');
  });

  it('kill_shell stops a running job and reports one that is not running (LG-3)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    await shell.call('bash', { command: `sleep ${tag}`, run_in_background: true });
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    const killed = await shell.call('kill_shell', { job_id: 'bash-1' });
    assert.equal(resultText(killed), 'Killed background job "bash-1".');
    await shell.jobs.wait('bash-1');
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
    const again = await shell.call('kill_shell', { job_id: 'bash-1' });
    assert.equal(resultText(again), 'Background job "bash-1" was not running (already finished or unknown).');
  });

  it('wait blocks until the jobs finish and prints one block per job (LG-4)', async (t) => {
    const shell = shellFixture(t);
    const none = await shell.call('wait', {});
    assert.equal(resultText(none), 'No background jobs to wait for.');
    await shell.call('bash', {
      command: 'sleep 0.3; echo first',
      run_in_background: true,
      description: 'first job',
    });
    await shell.call('bash', { command: 'sleep 0.5; echo second; exit 2', run_in_background: true });
    const result = await shell.call('wait', {});
    assert.ok(result.ok);
    assert.equal(
      resultText(result),
      '[bash-1 (first job)] done\nfirst\n\n[bash-2 (sleep 0.5; echo second; exit 2)] failed\nsecond',
    );
    const listed = await shell.call('wait', { job_ids: ['bash-2', 'bash-9'] });
    assert.equal(
      resultText(listed),
      '[bash-2 (sleep 0.5; echo second; exit 2)] failed\n(no new output)\n\n[bash-9] unknown job',
    );
  });

  it('wait gives up after timeout_seconds and leaves the job running (LG-4)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    await shell.call('bash', { command: `echo up; sleep ${tag}`, run_in_background: true });
    const result = await shell.call('wait', { job_ids: ['bash-1'], timeout_seconds: 1 });
    assert.ok(result.ok);
    assert.equal(resultText(result), `[bash-1 (echo up; sleep ${tag})] running\nup`);
    assert.equal(processesMatching(`sleep ${tag}`).length, 1);
    const invalid = await shell.call('wait', { timeout_seconds: 0 });
    assert.ok(!invalid.ok);
    assert.equal(invalid.error.code, 'ARGUMENT_VALIDATION');
  });
});
