import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lazyRequire } from '../src/lazy-require.js';

declare global {
  var __lazyRequireLoads: number | undefined;
}

describe('lazyRequire', () => {
  it('INT-LAZY-1: loads nothing until the first call, then the module once, resolved from the caller', async () => {
    const { from } = await import('./fixtures/lazy/caller.js');
    globalThis.__lazyRequireLoads = 0;
    const counted = lazyRequire<{ answer: number }>(from, './counted.cjs');
    assert.equal(globalThis.__lazyRequireLoads, 0, 'nothing is loaded when the getter is made');
    assert.equal(counted().answer, 42);
    assert.equal(counted(), counted(), 'the same module every time');
    assert.equal(globalThis.__lazyRequireLoads, 1);
    // From this test's own location the same specifier names nothing.
    assert.throws(() => lazyRequire(import.meta.url, './counted.cjs')(), /Cannot find module/);
  });
});
