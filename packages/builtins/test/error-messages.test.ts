import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createDiscoveryTools } from '../src/index.js';
import { callTool, errorOf, fileTools } from './files/file-helpers.js';

// Finding 4 of issue 15: errors echoed the path argument (quoted, up to 160 characters). Now an
// error names the argument and the rule; a path is shown only as the display path of something that
// exists inside the roots (or that this agent observed there), bounded.

const MARKER = 'MADE-UP-BY-THE-MODEL';

describe('file tool errors', () => {
  it('never echo the path argument (regression: errors echoed the path argument up to 160 characters)', async (t) => {
    const files = await fileTools(t);
    await mkdir(path.join(files.root, '.git'), { recursive: true });
    await writeFile(path.join(files.root, 'real.txt'), 'text\n');
    await writeFile(path.join(files.root, 'taken.txt'), 'text\n');
    const discovery = new Map(
      createDiscoveryTools({ pathPolicy: files.policy }).map((tool) => [tool.name, tool]),
    );
    const long = `${MARKER}/${'x'.repeat(300)}`;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['read_file', { path: `${MARKER}.txt` }, 'path'],
      ['read_file', { path: `../${MARKER}/secret.txt` }, 'path'],
      ['read_file', { path: `/etc/${MARKER}` }, 'path'],
      ['read_file', { path: `${MARKER}/.env` }, 'path'],
      ['read_file', { path: long }, 'path'],
      ['read_file', { path: `${MARKER}\u0000` }, 'path'],
      ['write_file', { path: `.git/${MARKER}`, content: 'x' }, 'path'],
      ['write_file', { path: `../${MARKER}.txt`, content: 'x' }, 'path'],
      ['write_file', { path: `real.txt/${MARKER}`, content: 'x' }, 'path'],
      ['edit_file', { path: `${MARKER}.txt`, old_string: 'a', new_string: 'b' }, 'path'],
      ['multi_edit', { path: `${MARKER}/x.txt`, edits: [{ old_string: 'a', new_string: 'b' }] }, 'path'],
      ['delete_range', { path: `${MARKER}.txt`, start_anchor: 'a', end_anchor: 'b' }, 'path'],
      ['move_file', { source: `${MARKER}.txt`, destination: 'new.txt' }, 'source'],
      ['move_file', { source: 'real.txt', destination: `../${MARKER}.txt` }, 'destination'],
      ['move_file', { source: 'real.txt', destination: `.git/${MARKER}` }, 'destination'],
    ];
    for (const [name, args, argument] of cases) {
      const error = errorOf(await files.call(name, args));
      assert.ok(!error.text.includes(MARKER), `${name} ${JSON.stringify(args)}: ${error.text}`);
      assert.ok(!error.text.includes(files.root), error.text);
      if (argument !== 'path')
        assert.ok(error.text.includes(`"${argument}"`), `${name}: ${error.text} names no argument`);
    }
    for (const [name, args] of [
      ['view_image', { path: `${MARKER}.png` }],
      ['ls', { path: MARKER }],
      ['ls', { path: `../${MARKER}` }],
      ['glob', { pattern: '*', path: `${MARKER}/x` }],
      ['grep', { pattern: 'a', path: `${MARKER}` }],
    ] as const) {
      const result = await callTool(discovery.get(name)!, args);
      const error = errorOf(result);
      assert.ok(!error.text.includes(MARKER), `${name} ${JSON.stringify(args)}: ${error.text}`);
    }
    // A file that exists inside the root is named by its display path.
    await files.call('read_file', { path: 'real.txt' });
    const taken = errorOf(await files.call('move_file', { source: 'real.txt', destination: 'taken.txt' }));
    assert.match(taken.text, /^FS_ALREADY_EXISTS: taken\.txt already exists/);
  });
});
