import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { MAX_MODEL_RESULT_BYTES } from '../src/index.js';
import { type ResultStore, type StoredResult, shapeResultText } from '../src/shape-result.js';

function memoryStore(): ResultStore & { bodies: Map<string, string> } {
  const bodies = new Map<string, string>();
  return {
    bodies,
    put({ callId, body }): StoredResult {
      const resultRef = `tr-${createHash('sha256').update(`${callId}\0${body}`).digest('hex').slice(0, 24)}`;
      bodies.set(resultRef, body);
      return {
        resultRef,
        totalBytes: Buffer.byteLength(body),
        sha256: createHash('sha256').update(body).digest('hex'),
      };
    },
  };
}

function recipeOffset(text: string): number {
  const match = /"offset":(\d+)/.exec(text);
  assert.ok(match, 'the marker carries a recipe with an offset');
  return Number(match[1]);
}

describe('shapeResultText', () => {
  it('passes a result of at most 32 KiB through byte-identical without storing it (BT-SHAPE-1)', async () => {
    const store = memoryStore();
    const text = `${'é'.repeat(MAX_MODEL_RESULT_BYTES / 2 - 1)}ab`;
    assert.equal(Buffer.byteLength(text), MAX_MODEL_RESULT_BYTES);
    const shaped = await shapeResultText({
      text,
      shape: 'shell',
      failed: false,
      callId: 'c1',
      toolName: 'bash',
      store,
    });
    assert.equal(shaped.text, text);
    assert.equal(shaped.truncated, false);
    assert.equal(shaped.resultRef, null);
    assert.equal(store.bodies.size, 0);
  });

  it('cuts a larger shell result to head and tail with a marker and keeps the whole body', async () => {
    const store = memoryStore();
    const lines = Array.from({ length: 4000 }, (_, index) => `line ${index} ${'x'.repeat(20)}`);
    const text = lines.join('\n');
    const shaped = await shapeResultText({
      text,
      shape: 'shell',
      failed: false,
      callId: 'call-7',
      toolName: 'bash',
      store,
    });
    assert.equal(shaped.truncated, true);
    assert.ok(Buffer.byteLength(shaped.text) <= MAX_MODEL_RESULT_BYTES);
    assert.ok(shaped.text.startsWith('line 0 '));
    assert.ok(shaped.text.endsWith(lines.at(-1) as string));
    assert.ok(shaped.resultRef && /^tr-[0-9a-f]{24}$/.test(shaped.resultRef));
    assert.equal(store.bodies.get(shaped.resultRef), text, 'the full body is stored');
    for (const part of [
      'tool=bash',
      'call_id=call-7',
      `result_ref=${shaped.resultRef}`,
      `original_bytes=${Buffer.byteLength(text)}`,
      `kept_bytes=${shaped.keptBytes}`,
      'use_capability(action="call", capability_id="session:tool_result", arguments={"tool_call_id":"call-7"',
      'If use_capability is unavailable, re-run the original tool with narrower arguments',
    ]) {
      assert.ok(shaped.text.includes(part), part);
    }
    // The head ends on a line end and the recipe offset points at the first omitted byte.
    const offset = recipeOffset(shaped.text);
    assert.equal(
      Buffer.from(text).subarray(0, offset).toString(),
      shaped.text.slice(0, shaped.text.indexOf('\n\n[output truncated')),
    );
    assert.ok(shaped.keptBytes >= 15000 && shaped.keptBytes <= 16000, String(shaped.keptBytes));
  });

  it('gives a failed result at least a third of its budget as tail', async () => {
    const text = 'y'.repeat(40_000);
    const ok = await shapeResultText({
      text,
      shape: 'read',
      failed: false,
      callId: 'a',
      toolName: 'x',
      store: memoryStore(),
    });
    const search = await shapeResultText({
      text,
      shape: 'search',
      failed: true,
      callId: 'a',
      toolName: 'grep',
      store: memoryStore(),
    });
    const tail = search.text.length - search.text.lastIndexOf(']\n\n') - 3;
    assert.ok(tail >= Math.floor(11_000 / 3), String(tail));
    assert.ok(ok.truncated);
  });

  it('keeps a line-bounded read prefix with next_offset and an INCOMPLETE READ warning', async () => {
    const store = memoryStore();
    const lines = Array.from(
      { length: 3000 },
      (_, index) => `${String(index + 1).padStart(4)}→${'z'.repeat(30)}`,
    );
    const text = `${lines.join('\n')}\n`;
    const shaped = await shapeResultText({
      text,
      shape: 'read',
      failed: false,
      callId: 'r1',
      toolName: 'read_file',
      store,
    });
    assert.ok(shaped.truncated);
    assert.ok(Buffer.byteLength(shaped.text) <= MAX_MODEL_RESULT_BYTES);
    const prefix = shaped.text.slice(0, shaped.text.indexOf('\n[INCOMPLETE READ'));
    assert.ok(
      text.startsWith(prefix) && prefix.endsWith('\n'),
      'a contiguous prefix ending on a line boundary',
    );
    const lastShown = Number(/(\d+)→[z]+$/.exec(prefix.trimEnd())?.[1]);
    assert.ok(lastShown > 100);
    assert.equal(shaped.nextOffset, lastShown);
    assert.ok(shaped.text.includes(`read_file offset=${lastShown} (next_offset=${lastShown})`));
    assert.ok(shaped.text.includes('session:tool_result'));
    assert.ok(!shaped.text.includes(lines.at(-1) as string), 'no tail for reads');
  });

  it('never splits a multi-byte character', async () => {
    const text = '€'.repeat(20_000);
    const shaped = await shapeResultText({
      text,
      shape: 'default',
      failed: false,
      callId: 'u',
      toolName: 't',
      store: memoryStore(),
    });
    assert.ok(!shaped.text.includes('\uFFFD'));
    assert.ok(Buffer.byteLength(shaped.text) <= MAX_MODEL_RESULT_BYTES);
  });

  it('says so in the marker when the body could not be kept', async () => {
    const store: ResultStore = {
      put() {
        throw new Error('disk full');
      },
    };
    const shaped = await shapeResultText({
      text: 'q'.repeat(50_000),
      shape: 'default',
      failed: false,
      callId: 'c',
      toolName: 't',
      store,
    });
    assert.equal(shaped.resultRef, null);
    assert.equal(shaped.storeError, 'disk full');
    assert.match(shaped.text, /could not be kept; re-run the original tool with narrower arguments/);
  });

  it('bounds the call id and tool name shown in the marker', async () => {
    const longId = 'i'.repeat(300);
    const shaped = await shapeResultText({
      text: 'q'.repeat(50_000),
      shape: 'default',
      failed: false,
      callId: longId,
      toolName: 'n'.repeat(200),
      store: memoryStore(),
    });
    assert.ok(!shaped.text.includes(longId));
    assert.ok(shaped.text.includes('(call id too long to show)'));
    assert.ok(!shaped.text.includes('n'.repeat(129)));
  });

  it('takes a counted byte length instead of counting, and still reports exact byte counts for short texts (issue 25: pipeline overhead)', async () => {
    const store = memoryStore();
    // A short text (at most a third of the limit in UTF-16 units) passes; its count is exact when read.
    const short = `${'→'.repeat(100)}😀`;
    const passed = await shapeResultText({
      text: short,
      shape: 'read',
      failed: false,
      callId: 'c',
      toolName: 'read_file',
      store,
    });
    assert.equal(passed.text, short);
    assert.equal(passed.truncated, false);
    assert.equal(passed.originalBytes, Buffer.byteLength(short));
    assert.equal(passed.keptBytes, Buffer.byteLength(short));
    // A long text whose count the tool gave: shaped by that count, not by its own.
    const line = `${'é'.repeat(40)}\n`;
    const long = line.repeat(500);
    const bytes = Buffer.byteLength(long);
    assert.ok(long.length <= MAX_MODEL_RESULT_BYTES && bytes > MAX_MODEL_RESULT_BYTES);
    const counted = await shapeResultText({
      text: long,
      textBytes: bytes,
      shape: 'read',
      failed: false,
      callId: 'c',
      toolName: 'read_file',
      store,
    });
    assert.equal(counted.truncated, true);
    assert.equal(counted.originalBytes, bytes);
    assert.ok(Buffer.byteLength(counted.text) <= MAX_MODEL_RESULT_BYTES);
    const fits = line.repeat(300);
    const under = await shapeResultText({
      text: fits,
      textBytes: Buffer.byteLength(fits),
      shape: 'read',
      failed: false,
      callId: 'c',
      toolName: 'read_file',
      store,
    });
    assert.equal(under.text, fits);
    assert.equal(under.originalBytes, Buffer.byteLength(fits));
  });
});
