import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type Host } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

describe('Host shell output', () => {
  it('stores shell output over 64 KiB whole: seq 1 30000 pages back all of its bytes with session:tool_result', async () => {
    const host = await createHost({ root: root.dir, config: false });
    hosts.push(host);
    const result = await host.dispatch({ id: 'seq1', name: 'bash', arguments: { command: 'seq 1 30000' } });
    assert.equal(result.status, 'ok', result.output);
    assert.equal(result.truncated, true, 'the model sees a cut of it');
    assert.ok(result.resultRef);
    const expected = Array.from({ length: 30_000 }, (_, index) => String(index + 1)).join('\n');
    let offset = 0;
    let body = '';
    let header: { total_bytes: number; next_offset: number; complete: boolean; sha256: string } | undefined;
    for (let page = 0; page < 100 && !header?.complete; page++) {
      const paged = await host.dispatch({
        name: 'use_capability',
        arguments: {
          action: 'call',
          capability_id: 'session:tool_result',
          arguments: { tool_call_id: 'seq1', result_ref: result.resultRef, offset, limit: 24_576 },
        },
      });
      assert.equal(paged.status, 'ok', paged.output);
      const newline = paged.output.indexOf('\n');
      header = JSON.parse(paged.output.slice(0, newline));
      body += paged.output.slice(newline + 1);
      offset = header!.next_offset;
    }
    assert.equal(header?.complete, true);
    assert.equal(header?.total_bytes, Buffer.byteLength(expected), 'the stored result is the whole output');
    assert.equal(body, expected);
  });
});
