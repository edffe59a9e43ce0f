import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStormBreaker, type StormOutcome } from '../src/index.js';
import { stormCategory } from '../src/storm-breaker.js';

const fail = (toolName: string, code: string, message: string, signature?: string): StormOutcome => ({
  toolName,
  ok: false,
  error: { code, message, ...(signature ? { signature } : {}) },
});
const success = (toolName: string): StormOutcome => ({ toolName, ok: true });

describe('stormCategory', () => {
  it('normalises exit statuses and exit codes to one category (BT-STORM-1)', () => {
    assert.equal(
      stormCategory({ code: 'COMMAND_FAILED', message: 'command failed: exit status 1' }),
      'tool:exit:1',
    );
    assert.equal(
      stormCategory({ code: 'COMMAND_FAILED', message: 'the command exited with code 1' }),
      'tool:exit:1',
    );
    assert.equal(
      stormCategory({ code: 'COMMAND_FAILED', message: 'x', details: { exitCode: 1 } }),
      'tool:exit:1',
    );
  });

  it('normalises timeouts and deadlines to one transient category regardless of wording (BT-STORM-1)', () => {
    for (const message of ['timed out after 5 s', 'deadline exceeded', 'request timeout', 'did not finish']) {
      assert.equal(
        stormCategory({ code: message === 'did not finish' ? 'TIMEOUT' : 'EXECUTION_ERROR', message }),
        'tool:transient:timeout',
      );
    }
  });

  it('keeps argument_validation signatures and otherwise uses the error code', () => {
    const signature = 'argument_validation:read_file:0123456789abcdef:required';
    assert.equal(stormCategory({ code: 'ARGUMENT_VALIDATION', message: 'anything', signature }), signature);
    assert.equal(
      stormCategory({ code: 'FS_NOT_FOUND', message: 'a.txt does not exist' }),
      'tool:FS_NOT_FOUND',
    );
    assert.equal(
      stormCategory({ code: 'EXECUTION_ERROR', message: 'connect ECONNREFUSED 127.0.0.1' }),
      'tool:transient:connection',
    );
    assert.equal(stormCategory({ code: 'EXECUTION_ERROR', message: '3 tests failed' }), 'tool:test_failure');
  });
});

describe('createStormBreaker', () => {
  it('is silent for two equivalent failed batches and speaks on the third (BT-STORM-2)', () => {
    const breaker = createStormBreaker();
    assert.equal(
      breaker.observe([fail('bash', 'COMMAND_FAILED', 'exit status 1 while building a')]),
      undefined,
    );
    assert.equal(
      breaker.observe([fail('bash', 'COMMAND_FAILED', 'exit code 1 while building b')]),
      undefined,
    );
    const notice = breaker.observe([fail('bash', 'COMMAND_FAILED', 'exit status 1 while building c')]);
    assert.ok(notice);
    assert.equal(notice.kind, 'failed');
    assert.equal(notice.count, 3);
    assert.match(notice.text, /^\[loop guard\] "bash" has now failed 3 times in a row/);
    assert.match(
      notice.text,
      /COMMAND_FAILED: exit status 1 while building c/,
      'the original error is quoted',
    );
  });

  it('counts different argument values with the same validation keyword as equivalent (BT-STORM-3)', () => {
    const breaker = createStormBreaker();
    const signature = 'argument_validation:read_file:0123456789abcdef:type';
    assert.equal(
      breaker.observe([fail('read_file', 'ARGUMENT_VALIDATION', 'value 1', signature)]),
      undefined,
    );
    assert.equal(
      breaker.observe([fail('read_file', 'ARGUMENT_VALIDATION', 'value 2', signature)]),
      undefined,
    );
    const notice = breaker.observe([fail('read_file', 'ARGUMENT_VALIDATION', 'value 3', signature)]);
    assert.ok(notice);
    assert.match(notice.text, /report that tool argument generation failed/);
  });

  it('resets on a batch with any success and restarts at 1 on a different signature (BT-STORM-4)', () => {
    const breaker = createStormBreaker();
    breaker.observe([fail('grep', 'FS_NOT_FOUND', 'x')]);
    breaker.observe([fail('grep', 'FS_NOT_FOUND', 'x')]);
    assert.equal(breaker.observe([fail('grep', 'FS_NOT_FOUND', 'x'), success('ls')]), undefined);
    assert.equal(breaker.streak, 0);
    breaker.observe([fail('grep', 'FS_NOT_FOUND', 'x')]);
    breaker.observe([fail('grep', 'FS_NOT_FOUND', 'x')]);
    assert.equal(breaker.observe([fail('glob', 'FS_NOT_FOUND', 'x')]), undefined);
    assert.equal(breaker.streak, 1);
  });

  it('advances by one per batch however many calls failed in it, and names the batch size (BT-STORM-5)', () => {
    const breaker = createStormBreaker();
    const batch = [fail('grep', 'FS_NOT_FOUND', 'a'), fail('grep', 'FS_NOT_FOUND', 'b')];
    assert.equal(breaker.observe(batch), undefined);
    assert.equal(breaker.streak, 1);
    assert.equal(breaker.observe(batch), undefined);
    const notice = breaker.observe(batch);
    assert.ok(notice);
    assert.match(notice.text, /this batch of 2 tool calls has now failed 3 times/);
  });

  it('keeps a separate streak for batches that were all blocked by policy', () => {
    const breaker = createStormBreaker();
    breaker.observe([fail('write_file', 'PERMISSION_DENIED', 'no')]);
    breaker.observe([fail('write_file', 'PERMISSION_DENIED', 'no')]);
    const notice = breaker.observe([fail('write_file', 'PERMISSION_DENIED', 'no')]);
    assert.ok(notice);
    assert.equal(notice.kind, 'blocked');
    assert.match(notice.text, /been blocked or failed 3 times in a row with the same host response/);
    assert.match(notice.text, /Choose a different approach/);
  });

  it('storm breaker blocked streak over different tools and codes says so instead of claiming the same host response', () => {
    const breaker = createStormBreaker();
    breaker.observe([fail('write_file', 'PERMISSION_DENIED', 'no')]);
    breaker.observe([fail('edit_file', 'PERMISSION_DENIED', 'no')]);
    const notice = breaker.observe([fail('bash', 'APPROVAL_REQUIRED', 'needs approval')]);
    assert.ok(notice);
    assert.equal(notice.kind, 'blocked');
    assert.doesNotMatch(notice.text, /same host response/);
    assert.match(
      notice.text,
      /refused your tool calls 3 turns in a row \(most recently "bash": APPROVAL_REQUIRED/,
    );
  });

  it('repeated identical successful calls: the fourth identical call with the same output gets a repeated-call notice', () => {
    const breaker = createStormBreaker();
    const same = (output = 'contents'): StormOutcome => ({
      toolName: 'read_file',
      ok: true,
      argumentsKey: '{"path":"a.txt"}',
      output,
    });
    for (let round = 0; round < 3; round++) assert.equal(breaker.observe([same()]), undefined);
    const notice = breaker.observe([same()]);
    assert.equal(notice?.kind, 'repeated');
    assert.match(
      notice?.text ?? '',
      /"read_file" has now been called 4 times in a row with the same arguments/,
    );
    // Other work in between, or a changed output, restarts the count.
    const other = createStormBreaker();
    other.observe([same()]);
    other.observe([same()]);
    other.observe([{ toolName: 'ls', ok: true, argumentsKey: '{}', output: 'x' }]);
    other.observe([same()]);
    assert.equal(other.observe([same()]), undefined);
    assert.equal(other.observe([same('changed')]), undefined);
  });

  it('keeps speaking while the streak continues and stays silent after reset()', () => {
    const breaker = createStormBreaker({ threshold: 2 });
    breaker.observe([fail('a', 'EXECUTION_ERROR', 'x')]);
    assert.ok(breaker.observe([fail('a', 'EXECUTION_ERROR', 'x')]));
    assert.equal(breaker.observe([fail('a', 'EXECUTION_ERROR', 'x')])?.count, 3);
    breaker.reset();
    assert.equal(breaker.observe([fail('a', 'EXECUTION_ERROR', 'x')]), undefined);
  });
});
