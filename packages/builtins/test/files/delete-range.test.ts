// Requirements cited: DEL-1..DEL-3. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { errorOf, fileTools, type FileToolsFixture, okText } from './file-helpers.js';

async function observed(files: FileToolsFixture, name: string, content: string): Promise<string> {
  const file = join(files.root, name);
  await writeFile(file, content);
  okText(await files.call('read_file', { path: name, limit: 1 }));
  return file;
}

describe('delete_range', () => {
  it('deletes from the start anchor to the end anchor inclusive by default, with a diff (DEL-1)', async (t) => {
    const files = await fileTools(t);
    const file = await observed(files, 'a.txt', 'keep 1\nstart\nmiddle\nend\nkeep 2\n');
    const text = okText(
      await files.call('delete_range', { path: 'a.txt', start_anchor: 'start', end_anchor: 'end' }),
    );
    assert.equal(
      text,
      'deleted lines 2-4 of a.txt (3 lines)\n--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,2 @@\n keep 1\n-start\n-middle\n-end\n keep 2\n',
    );
    assert.equal(await readFile(file, 'utf8'), 'keep 1\nkeep 2\n');
  });

  it('keeps the anchor lines with inclusive=false, and keeps CRLF (DEL-1)', async (t) => {
    const files = await fileTools(t);
    const file = await observed(files, 'win.txt', 'a\r\n{\r\nx\r\ny\r\n}\r\nb\r\n');
    okText(
      await files.call('delete_range', {
        path: 'win.txt',
        start_anchor: '{',
        end_anchor: '}',
        inclusive: false,
      }),
    );
    assert.equal(await readFile(file, 'utf8'), 'a\r\n{\r\n}\r\nb\r\n');
  });

  it('keeps a missing final newline when the range reaches the end of the file (DEL-1)', async (t) => {
    const files = await fileTools(t);
    const file = await observed(files, 'a.txt', 'one\ntwo\nthree');
    okText(await files.call('delete_range', { path: 'a.txt', start_anchor: 'two', end_anchor: 'three' }));
    assert.equal(await readFile(file, 'utf8'), 'one');
    const kept = await observed(files, 'b.txt', 'one\ntwo\nthree\n');
    okText(await files.call('delete_range', { path: 'b.txt', start_anchor: 'three', end_anchor: 'three' }));
    assert.equal(await readFile(kept, 'utf8'), 'one\ntwo\n');
  });

  it('requires each anchor to match exactly one whole line (DEL-2)', async (t) => {
    const files = await fileTools(t);
    const file = await observed(files, 'a.txt', '}\nbody\n}\nstart here\n');
    const ambiguous = errorOf(
      await files.call('delete_range', { path: 'a.txt', start_anchor: 'body', end_anchor: '}' }),
    );
    assert.equal(ambiguous.code, 'EDIT_NOT_UNIQUE');
    assert.match(ambiguous.text, /end_anchor matches 2 lines of a\.txt \(lines 1, 3\)/);
    const partial = errorOf(
      await files.call('delete_range', { path: 'a.txt', start_anchor: 'start', end_anchor: 'body' }),
    );
    assert.equal(partial.code, 'EDIT_NOT_FOUND', 'a part of a line is not an anchor');
    const multiLine = errorOf(
      await files.call('delete_range', { path: 'a.txt', start_anchor: 'body\n}', end_anchor: 'start here' }),
    );
    assert.equal(multiLine.code, 'EDIT_INVALID');
    assert.equal(await readFile(file, 'utf8'), '}\nbody\n}\nstart here\n');
  });

  it('refuses a start after the end, and nothing between adjacent anchors with inclusive=false (DEL-3)', async (t) => {
    const files = await fileTools(t);
    await observed(files, 'a.txt', 'a\nb\nc\n');
    const reversed = errorOf(
      await files.call('delete_range', { path: 'a.txt', start_anchor: 'c', end_anchor: 'a' }),
    );
    assert.equal(reversed.code, 'EDIT_INVALID');
    assert.match(reversed.text, /start_anchor \(line 3\) comes after end_anchor \(line 1\)/);
    const same = errorOf(
      await files.call('delete_range', {
        path: 'a.txt',
        start_anchor: 'b',
        end_anchor: 'b',
        inclusive: false,
      }),
    );
    assert.equal(same.code, 'EDIT_INVALID');
    const adjacent = errorOf(
      await files.call('delete_range', {
        path: 'a.txt',
        start_anchor: 'a',
        end_anchor: 'b',
        inclusive: false,
      }),
    );
    assert.equal(adjacent.code, 'EDIT_INVALID');
  });

  it('accepts anchors with a copied "N→" prefix or different trailing whitespace', async (t) => {
    const files = await fileTools(t);
    const file = await observed(files, 'a.txt', 'a\n  start  \nb\nend\nc\n');
    const text = okText(
      await files.call('delete_range', { path: 'a.txt', start_anchor: '2→  start', end_anchor: '4→end' }),
    );
    assert.match(text, /^deleted lines 2-4 of a\.txt \(3 lines\) \(fuzzy match\)/);
    assert.equal(await readFile(file, 'utf8'), 'a\nc\n');
  });

  it('requires an observation', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'a\nb\n');
    assert.equal(
      errorOf(await files.call('delete_range', { path: 'a.txt', start_anchor: 'a', end_anchor: 'b' })).code,
      'FS_NOT_OBSERVED',
    );
  });
});
