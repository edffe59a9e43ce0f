// Every truncated result can be paged whole (issue 25): a grep answer over the model cap is kept in
// the session's result store and session:tool_result returns all of it, as for glob.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createHost, type DispatchResult, type Host, MAX_MODEL_RESULT_BYTES } from '../src/index.js';
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

/** Follows the marker's recipe from offset 0 to the end and returns the whole body. */
async function pageWhole(host: Host, result: DispatchResult): Promise<string> {
  const recipe =
    /use_capability\(action="call", capability_id="session:tool_result", arguments=(\{[^}]*\})\)/.exec(
      result.output,
    );
  assert.ok(recipe, 'the marker carries the recipe');
  let offset = 0;
  let body = '';
  for (let page = 0; page < 100; page++) {
    const read = await host.dispatch({
      id: `page-${page}`,
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'session:tool_result',
        arguments: { ...JSON.parse(recipe[1] as string), offset },
      },
    });
    assert.equal(read.status, 'ok', read.output);
    const newline = read.output.indexOf('\n');
    const header = JSON.parse(read.output.slice(0, newline));
    body += read.output.slice(newline + 1);
    offset = header.next_offset;
    if (header.complete) return body;
  }
  throw new Error('the pages did not end');
}

describe('session:tool_result pages', () => {
  it('hold every file of a grep count answer beyond the model cap (issue 25: count mode stopped at 28 KiB)', async () => {
    const expected: string[] = [];
    for (let index = 0; index < 1645; index++) {
      const directory = `src/module-${String(index).padStart(4, '0')}`;
      mkdirSync(join(root.dir, directory), { recursive: true });
      writeFileSync(join(root.dir, directory, 'component.ts'), 'export const value = 1;\n');
      expected.push(`${directory}/component.ts:1`);
    }
    const host = await createHost({ root: root.dir, config: false });
    hosts.push(host);
    for (const output_mode of ['count', 'files_with_matches'] as const) {
      const result = await host.dispatch({
        id: `grep-${output_mode}`,
        name: 'tool:grep',
        arguments: { pattern: 'export', output_mode, limit: 2000 },
      });
      assert.equal(result.status, 'ok', result.output);
      assert.equal(result.truncated, true);
      assert.ok(Buffer.byteLength(result.output) <= MAX_MODEL_RESULT_BYTES);
      const body = await pageWhole(host, result);
      const lines = body.split('\n');
      assert.deepEqual(lines, output_mode === 'count' ? expected : expected.map((line) => line.slice(0, -2)));
    }
  });
});
