import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createResultStore } from '@toolhost/capability-proxy';
import { MAX_MODEL_RESULT_BYTES } from '../src/index.js';
import { shapeResultText } from '../src/shape-result.js';

describe('shapeResultText (a store that cannot keep the body)', () => {
  for (const shape of ['shell', 'read'] as const) {
    it(`names DISK_FULL in the ${shape} marker when the stored-results budget refuses the body, and still shows the head`, async () => {
      // A store whose whole disk budget is smaller than the body: put() throws DISK_FULL.
      const store = createResultStore({ maxDiskBytes: 50_000, spillBytes: 1_000, maxMemoryBytes: 1_000 });
      try {
        const text = Array.from({ length: 4_000 }, (_, index) => `line ${index} of a long output`).join('\n');
        const shaped = await shapeResultText({
          text,
          shape,
          failed: false,
          callId: 'call-disk',
          toolName: 'bash',
          store,
        });
        assert.equal(shaped.truncated, true);
        assert.equal(shaped.resultRef, null);
        assert.ok(Buffer.byteLength(shaped.text) <= MAX_MODEL_RESULT_BYTES);
        assert.match(shaped.text, /^line 0 of a long output/);
        assert.match(
          shaped.text,
          /The full original could not be kept \(DISK_FULL: this result \(\d+ bytes\) is larger than the host's whole budget for stored results \(50000 bytes\)/,
        );
        assert.match(shaped.storeError ?? '', /budget for stored results/);
      } finally {
        store.close();
      }
    });
  }
});
