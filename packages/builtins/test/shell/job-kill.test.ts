import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processesMatching, resultText, shellFixture, uniqueTag, waitUntil } from './shell-helpers.js';

describe('createJobKillTool', () => {
  it('kills a running job: "[status: killed]" at once, the tree gone afterwards (JK-1)', async (t) => {
    const shell = shellFixture(t, { jobs: { killGraceMs: 500 } });
    const tag = uniqueTag(t);
    const started = await shell.call('bash', {
      command: `setsid sleep ${tag} & (trap '' TERM; sleep ${tag}) & sleep ${tag}`,
      run_in_background: true,
    });
    assert.ok(started.ok);
    await waitUntil('three sleepers run', () => processesMatching(`sleep ${tag}`).length === 3);
    const killed = await shell.call('job_kill', { job_id: 'bash-1', reason: 'no longer needed' });
    assert.ok(killed.ok);
    assert.equal(resultText(killed), 'Requested cancellation of job "bash-1".\n[status: killed]');
    const status = await shell.call('job_output', { job_id: 'bash-1' });
    assert.match(resultText(status), /\[status: killed\]$/, 'an immediate job_output reports killed');
    await shell.jobs.wait('bash-1');
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
    assert.equal(shell.jobs.get('bash-1')?.killReason, 'no longer needed');
  });

  it('treats a finished or unknown job as a normal result (JK-2)', async (t) => {
    const shell = shellFixture(t);
    await shell.call('bash', { command: 'true', run_in_background: true });
    await shell.jobs.wait('bash-1');
    const finished = await shell.call('job_kill', { job_id: 'bash-1' });
    assert.ok(finished.ok);
    assert.equal(resultText(finished), 'Job "bash-1" had already finished or is unknown.');
    assert.equal(shell.jobs.get('bash-1')?.state, 'done', 'a finished job keeps its state');
    const unknown = await shell.call('job_kill', { job_id: 'bash-77' });
    assert.ok(unknown.ok);
    assert.equal(resultText(unknown), 'Job "bash-77" had already finished or is unknown.');
    const odd = await shell.call('job_kill', { job_id: 'rm -rf /' });
    assert.ok(odd.ok);
    assert.equal(
      resultText(odd),
      'Job with that id had already finished or is unknown.',
      'odd input is not echoed',
    );
  });

  it('requires job_id and accepts an optional reason (JK-3)', async (t) => {
    const shell = shellFixture(t);
    const missing = await shell.call('job_kill', {});
    assert.ok(!missing.ok);
    assert.equal(missing.error.code, 'ARGUMENT_VALIDATION');
    const schema = shell.tools.get('job_kill')!.modelTool.inputSchema as {
      required: string[];
      properties: object;
    };
    assert.deepEqual(schema.required, ['job_id']);
    assert.deepEqual(Object.keys(schema.properties).sort(), ['job_id', 'reason']);
  });
});
