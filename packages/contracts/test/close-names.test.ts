import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closeNames } from '../src/index.js';

describe('closeNames', () => {
  it('ranks equality ignoring case, then containment, then small edit distances, at most `limit`', () => {
    const names = ['Server.Close', 'Server', 'Client.Close', 'Helper', 'read_file'];
    assert.deepEqual(closeNames('server', names), ['Server', 'Server.Close']);
    assert.deepEqual(closeNames('Clsoe', ['Close', 'Helper']), ['Close']);
    assert.deepEqual(closeNames('read_fiel', names, 1), ['read_file']);
    assert.deepEqual(closeNames('zzzz', names), []);
  });
});
