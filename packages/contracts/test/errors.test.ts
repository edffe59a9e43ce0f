import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, isErrorCode, ToolhostError, toToolhostError } from '../src/index.js';

describe('ToolhostError', () => {
  it('prints CODE: cause; recovery with the code table recovery by default', () => {
    const error = new ToolhostError({ code: 'FS_NOT_FOUND', message: 'src/x.ts does not exist' });
    assert.equal(
      error.toModelText(),
      `FS_NOT_FOUND: src/x.ts does not exist; ${ERROR_CODES.FS_NOT_FOUND.recovery}`,
    );
    assert.deepEqual(error.toJSON(), {
      code: 'FS_NOT_FOUND',
      message: `src/x.ts does not exist; ${ERROR_CODES.FS_NOT_FOUND.recovery}`,
      details: {},
    });
  });

  it('prints no recovery when it is null and a custom one when given', () => {
    assert.equal(
      new ToolhostError({ code: 'TIMEOUT', message: 'slow', recovery: null }).toModelText(),
      'TIMEOUT: slow',
    );
    assert.equal(
      new ToolhostError({ code: 'TIMEOUT', message: 'slow', recovery: 'wait' }).toModelText(),
      'TIMEOUT: slow; wait',
    );
  });

  it('keeps cause, details and signature', () => {
    const cause = new Error('inner');
    const error = new ToolhostError({
      code: 'EXECUTION_ERROR',
      message: 'm',
      cause,
      details: { a: 1 },
      signature: 's',
    });
    assert.equal(error.cause, cause);
    assert.deepEqual(error.details, { a: 1 });
    assert.equal(error.signature, 's');
    assert.ok(error instanceof Error);
  });

  it('recognises instances by a Symbol.for brand, so another installed copy agrees', () => {
    const error = new ToolhostError({ code: 'TIMEOUT', message: 'x' });
    assert.equal(ToolhostError.isInstance(error), true);
    const foreign = Object.assign(new Error('x'), { code: 'TIMEOUT' });
    Object.defineProperty(foreign, Symbol.for('toolhost.error'), { value: true });
    assert.equal(ToolhostError.isInstance(foreign), true);
    assert.equal(ToolhostError.isInstance(new Error('x')), false);
    assert.equal(ToolhostError.isInstance(null), false);
    assert.equal(ToolhostError.isInstance('TIMEOUT'), false);
  });
});

describe('ERROR_CODES', () => {
  it('holds the codes the black-box tests rely on', () => {
    const required = [
      'TOOL_NOT_FOUND',
      'ARGUMENT_VALIDATION',
      'PERMISSION_DENIED',
      'APPROVAL_DENIED',
      'APPROVAL_REQUIRED',
      'PATH_OUTSIDE_ROOT',
      'PATH_PROTECTED',
      'FS_NOT_FOUND',
      'FS_NOT_OBSERVED',
      'FS_STALE_VERSION',
      'FS_ALREADY_EXISTS',
      'NOT_A_FILE',
      'NOT_A_DIRECTORY',
      'FILE_BINARY',
      'EDIT_NOT_FOUND',
      'EDIT_NOT_UNIQUE',
      'COMMAND_FAILED',
      'TIMEOUT',
      'ABORTED',
      'EXECUTION_ERROR',
      'SANDBOX_UNAVAILABLE',
      'JOB_NOT_FOUND',
      'CAPABILITY_RESOLUTION_FAILED',
      'CAPABILITY_UNAVAILABLE',
      'MCP_CONNECT_FAILED',
      'MCP_CALL_FAILED',
      'RESULT_NOT_FOUND',
      'RESULT_RANGE_INVALID',
    ];
    for (const code of required) assert.equal(isErrorCode(code), true, code);
  });

  it('gives every code a SCREAMING_SNAKE name, a kind, a summary and a recovery', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      assert.match(code, /^[A-Z][A-Z0-9_]+$/);
      assert.ok(['invalid_call', 'blocked', 'state', 'execution', 'host'].includes(info.kind), code);
      assert.ok(info.summary.endsWith('.'), code);
      assert.ok(info.recovery.length > 0, code);
    }
    assert.equal(isErrorCode('NOT_A_CODE'), false);
    assert.equal(isErrorCode(42), false);
  });
});

describe('toToolhostError', () => {
  it('passes toolhost errors through and wraps anything else, keeping the cause', () => {
    const original = new ToolhostError({ code: 'TIMEOUT', message: 'x' });
    assert.equal(toToolhostError(original), original);
    const thrown = new RangeError('boom');
    const wrapped = toToolhostError(thrown);
    assert.equal(wrapped.code, 'EXECUTION_ERROR');
    assert.equal(wrapped.message, 'boom');
    assert.equal(wrapped.cause, thrown);
    assert.equal(toToolhostError('text', 'MCP_CALL_FAILED').code, 'MCP_CALL_FAILED');
    assert.equal(toToolhostError(undefined).message, 'unknown failure');
  });
});
