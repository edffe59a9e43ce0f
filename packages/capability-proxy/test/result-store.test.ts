import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  createResultStore,
  type ResultStore,
  TOOL_RESULT_PAGE_DEFAULT_BYTES,
  TOOL_RESULT_PAGE_MAX_BYTES,
  type ToolResultPageHeader,
} from '../src/index.js';
import { resultRefOf, toolResultRecipe } from '../src/result-store.js';
import { tempDir } from './helpers.js';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A body of `bytes` UTF-8 bytes mixing 1-, 2-, 3- and 4-byte characters. */
function mixedBody(bytes: number): string {
  const unit = 'ascii line é ü € 漢字 🙂 end\n';
  let out = unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
  while (Buffer.byteLength(out) > bytes) out = out.slice(0, -1);
  return out;
}

function readAll(store: ResultStore, callId: string, resultRef?: string, limit?: number) {
  const pages: string[] = [];
  const headers: ToolResultPageHeader[] = [];
  let offset = 0;
  for (;;) {
    const page = store.page({
      toolCallId: callId,
      ...(resultRef ? { resultRef } : {}),
      offset,
      ...(limit ? { limit } : {}),
    });
    assert.ok(page.ok, page.ok ? '' : page.error.toModelText());
    const [headerLine, ...rest] = page.value.text.split('\n');
    const header = JSON.parse(headerLine!) as ToolResultPageHeader;
    assert.deepEqual(header, page.value.header);
    assert.equal(rest.join('\n'), page.value.page);
    pages.push(page.value.page);
    headers.push(header);
    if (header.complete) break;
    assert.ok(header.next_offset > offset, 'every page makes progress');
    offset = header.next_offset;
  }
  return { body: pages.join(''), headers };
}

describe('resultRefOf', () => {
  it('is "tr-" plus 24 lowercase hex of SHA-256(callId NUL body) and stable (CP-RES-1)', () => {
    const ref = resultRefOf('call_1', 'body text');
    assert.match(ref, /^tr-[0-9a-f]{24}$/);
    assert.equal(ref, `tr-${sha256('call_1\0body text').slice(0, 24)}`);
    assert.equal(resultRefOf('call_1', 'body text'), ref);
    assert.notEqual(resultRefOf('call_2', 'body text'), ref);
  });
});

describe('toolResultRecipe', () => {
  it('is the exact use_capability call that pages the result', () => {
    assert.equal(
      toolResultRecipe({ callId: 'call_9', resultRef: 'tr-0123456789abcdef01234567' }),
      'use_capability(action="call", capability_id="session:tool_result", arguments={"tool_call_id":"call_9","result_ref":"tr-0123456789abcdef01234567"})',
    );
  });
});

describe('createResultStore', () => {
  it('returns the content-derived ref, size and whole-body sha256 from put (CP-RES-1)', () => {
    const store = createResultStore();
    const body = mixedBody(50_000);
    const put = store.put({ callId: 'c1', toolName: 'bash', body });
    assert.equal(put.resultRef, resultRefOf('c1', body));
    assert.equal(put.totalBytes, Buffer.byteLength(body));
    assert.equal(put.sha256, sha256(body));
    assert.deepEqual(
      store.put({ callId: 'c1', toolName: 'bash', body }),
      put,
      'the same body is stored once',
    );
    assert.equal(store.entries().length, 1);
    store.close();
  });

  it('pages 16384 bytes by default and reconstructs the body with every header hashing the whole (CP-RES-2, CP-RES-3)', () => {
    const store = createResultStore();
    const body = mixedBody(100_003);
    const { resultRef } = store.put({ callId: 'c1', toolName: 'grep', body });
    const { body: joined, headers } = readAll(store, 'c1', resultRef);
    assert.equal(joined, body);
    assert.equal(sha256(joined), sha256(body));
    for (const header of headers) {
      assert.equal(header.sha256, sha256(body));
      assert.equal(header.total_bytes, Buffer.byteLength(body));
      assert.equal(header.result_ref, resultRef);
      assert.ok(header.next_offset - header.offset <= TOOL_RESULT_PAGE_DEFAULT_BYTES);
    }
    assert.ok(headers[0]!.next_offset > TOOL_RESULT_PAGE_DEFAULT_BYTES - 4, 'a default page is about 16 KiB');
    assert.deepEqual(Object.keys(headers[0]!), [
      'result_ref',
      'offset',
      'next_offset',
      'total_bytes',
      'sha256',
      'complete',
    ]);
    store.close();
  });

  it('never ends a page inside a character, for every limit from 4 to 9 (CP-RES-4)', () => {
    const store = createResultStore();
    const body = '€🙂a漢é'.repeat(40);
    store.put({ callId: 'c1', toolName: 'read_file', body });
    for (let limit = 4; limit <= 9; limit++) {
      const { body: joined } = readAll(store, 'c1', undefined, limit);
      assert.equal(joined, body, `limit ${limit}`);
    }
    // At offset 3 the next character is the 4-byte emoji: a 3-byte page cannot hold it.
    const tooSmall = store.page({ toolCallId: 'c1', offset: 3, limit: 3 });
    assert.ok(!tooSmall.ok);
    assert.equal(tooSmall.error.code, 'RESULT_RANGE_INVALID');
    assert.match(tooSmall.error.message, /limit 3 ends inside the next UTF-8 character; increase limit/);
    store.close();
  });

  it('rejects an offset inside a character and returns an empty complete page at total_bytes (CP-RES-4)', () => {
    const store = createResultStore();
    const body = 'a€b';
    store.put({ callId: 'c1', toolName: 'bash', body });
    const inside = store.page({ toolCallId: 'c1', offset: 2 });
    assert.ok(!inside.ok);
    assert.equal(inside.error.code, 'RESULT_RANGE_INVALID');
    assert.match(inside.error.message, /inside a UTF-8 character/);
    const end = store.page({ toolCallId: 'c1', offset: Buffer.byteLength(body) });
    assert.ok(end.ok);
    assert.equal(end.value.page, '');
    assert.equal(end.value.header.complete, true);
    assert.equal(end.value.header.next_offset, Buffer.byteLength(body));
    const beyond = store.page({ toolCallId: 'c1', offset: Buffer.byteLength(body) + 1 });
    assert.ok(!beyond.ok);
    assert.equal(beyond.error.code, 'RESULT_RANGE_INVALID');
    store.close();
  });

  it('rejects limit 0, limit 24577, a negative offset and non-integers with RESULT_RANGE_INVALID (CP-RES-2)', () => {
    const store = createResultStore();
    store.put({ callId: 'c1', toolName: 'bash', body: 'x'.repeat(40_000) });
    const maxPage = store.page({ toolCallId: 'c1', limit: TOOL_RESULT_PAGE_MAX_BYTES });
    assert.ok(maxPage.ok);
    assert.equal(maxPage.value.header.next_offset, TOOL_RESULT_PAGE_MAX_BYTES);
    for (const bad of [
      { limit: 0 },
      { limit: TOOL_RESULT_PAGE_MAX_BYTES + 1 },
      { offset: -1 },
      { offset: 1.5 },
      { limit: 10.5 },
    ]) {
      const page = store.page({ toolCallId: 'c1', ...bad });
      assert.ok(!page.ok, JSON.stringify(bad));
      assert.equal(page.error.code, 'RESULT_RANGE_INVALID', JSON.stringify(bad));
    }
    store.close();
  });

  it('asks for result_ref when one call id has several results and lists the refs (CP-RES-5)', () => {
    const store = createResultStore();
    const first = store.put({ callId: 'dup', toolName: 'bash', body: 'first run' });
    const second = store.put({ callId: 'dup', toolName: 'bash', body: 'second run' });
    const ambiguous = store.page({ toolCallId: 'dup' });
    assert.ok(!ambiguous.ok);
    assert.equal(ambiguous.error.code, 'RESULT_NOT_FOUND');
    assert.match(ambiguous.error.message, /ambiguous/);
    assert.ok(ambiguous.error.message.includes(first.resultRef));
    assert.ok(ambiguous.error.message.includes(second.resultRef));
    const exact = store.page({ toolCallId: 'dup', resultRef: second.resultRef });
    assert.ok(exact.ok);
    assert.equal(exact.value.page, 'second run');
    const wrongRef = store.page({ toolCallId: 'dup', resultRef: 'tr-000000000000000000000000' });
    assert.ok(!wrongRef.ok);
    assert.equal(wrongRef.error.code, 'RESULT_NOT_FOUND');
    store.close();
  });

  it('refuses an sa_ subagent reference and names read_subagent_result with the exact call', () => {
    const store = createResultStore();
    store.put({ callId: 'c1', toolName: 'bash', body: 'x' });
    for (const result of [
      store.page({ toolCallId: 'sa_0123456789abcdef01234567' }),
      store.get({ toolCallId: 'sa_0123456789abcdef01234567' }),
    ]) {
      assert.ok(!result.ok);
      assert.equal(result.error.code, 'RESULT_NOT_FOUND');
      assert.equal(result.error.details.reason, 'subagent_reference');
      assert.match(result.error.toModelText(), /with read_subagent_result/);
      assert.match(result.error.toModelText(), /capability_id="tool:read_subagent_result"/);
      assert.ok(!result.error.toModelText().includes('0123456789abcdef'), 'the reference is not echoed');
    }
    store.close();
  });

  it('redirects sa_ subagent references and reports unknown or missing ids as RESULT_NOT_FOUND (CP-RES-5)', () => {
    const store = createResultStore();
    store.put({ callId: 'c1', toolName: 'bash', body: 'x' });
    const subagent = store.page({ toolCallId: 'sa_123' });
    assert.ok(!subagent.ok);
    assert.equal(subagent.error.code, 'RESULT_NOT_FOUND');
    assert.match(subagent.error.message, /subagent/);
    for (const toolCallId of ['', '   ', 'never-stored']) {
      const page = store.page({ toolCallId });
      assert.ok(!page.ok);
      assert.equal(page.error.code, 'RESULT_NOT_FOUND');
    }
    const otherCall = store.page({ toolCallId: 'never-stored', resultRef: store.entries()[0]!.resultRef });
    assert.ok(!otherCall.ok, "a ref of another call does not open this call's result");
    store.close();
  });

  it('spills bodies beyond the memory budget to 0600 files and removes them on close', () => {
    const store = createResultStore({ maxMemoryBytes: 100_000, spillBytes: 60_000 });
    const bodies = [mixedBody(50_000), mixedBody(50_001), mixedBody(50_002), mixedBody(200_000)];
    const refs = bodies.map((body, index) => store.put({ callId: `c${index}`, toolName: 'bash', body }));
    for (const [index, body] of bodies.entries()) {
      const got = store.get({ toolCallId: `c${index}` });
      assert.ok(got.ok);
      assert.equal(got.value.body, body);
      assert.equal(readAll(store, `c${index}`, refs[index]!.resultRef).body, body);
    }
    const spilled = store.entries().length;
    assert.equal(spilled, 4);
    // Find the private spill directory through a spilled body's file.
    const dirs = readdirSync('/tmp').filter((name) => name.startsWith('toolhost-results-'));
    const mine = dirs.find((name) => existsSync(join('/tmp', name, `${refs[3]!.resultRef}.txt`)));
    assert.ok(mine, 'the large body went to a file');
    const file = join('/tmp', mine, `${refs[3]!.resultRef}.txt`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join('/tmp', mine)).mode & 0o777, 0o700);
    store.close();
    assert.equal(existsSync(join('/tmp', mine)), false, 'close removes the spill directory');
    const after = store.page({ toolCallId: 'c0' });
    assert.ok(!after.ok);
  });

  it('resumes every result from a durable directory and skips a torn index line', (t) => {
    const dir = tempDir(t);
    const first = createResultStore({ dir });
    const body = mixedBody(70_000);
    const put = first.put({ callId: 'c1', toolName: 'bash', body });
    first.put({ callId: 'c2', toolName: 'grep', body: 'small body' });
    first.close();
    assert.equal(statSync(join(dir, 'index.jsonl')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, `${put.resultRef}.txt`)).mode & 0o777, 0o600);
    appendFileSync(join(dir, 'index.jsonl'), '{"resultRef":"tr-torn');
    const second = createResultStore({ dir });
    assert.deepEqual(
      second.entries().map((entry) => entry.callId),
      ['c1', 'c2'],
    );
    assert.equal(readAll(second, 'c1', put.resultRef).body, body);
    second.close();
    assert.ok(existsSync(join(dir, `${put.resultRef}.txt`)), 'a durable directory is kept on close');
  });

  it('drops an index entry whose body file is missing or has the wrong size', (t) => {
    const dir = tempDir(t);
    const first = createResultStore({ dir });
    const a = first.put({ callId: 'a', toolName: 'bash', body: 'aaaa' });
    const b = first.put({ callId: 'b', toolName: 'bash', body: 'bbbb' });
    first.close();
    writeFileSync(join(dir, `${b.resultRef}.txt`), 'bb');
    const second = createResultStore({ dir });
    assert.deepEqual(
      second.entries().map((entry) => entry.resultRef),
      [a.resultRef],
    );
    assert.equal(readFileSync(join(dir, 'index.jsonl'), 'utf8').split('\n').filter(Boolean).length, 2);
    second.close();
  });
});
