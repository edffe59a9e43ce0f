// Requirements cited: MEDIT-1..MEDIT-4. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { errorOf, fileTools, okText } from './file-helpers.js';

describe('multi_edit', () => {
  it('applies edits in order, each to the result of the previous one, and advances the observation', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.ts');
    await writeFile(file, 'let a = 1;\nlet b = 2;\nlet c = 3;\n');
    okText(await files.call('read_file', { path: 'a.ts', limit: 1 }));
    const text = okText(
      await files.call('multi_edit', {
        path: 'a.ts',
        edits: [
          { old_string: 'let a = 1;', new_string: 'let a = 10;' },
          { old_string: 'a = 10', new_string: 'alpha = 10' },
          { old_string: 'let', new_string: 'const', replace_all: true },
        ],
      }),
    );
    assert.match(
      text,
      /^multi_edit a\.ts: 3 edits applied \(5 total replacements\); the changes now span lines 1-3\n--- a\/a\.ts\n/,
    );
    assert.equal(await readFile(file, 'utf8'), 'const alpha = 10;\nconst b = 2;\nconst c = 3;\n');
    okText(await files.call('edit_file', { path: 'a.ts', old_string: 'b = 2', new_string: 'beta = 2' }));
  });

  it('is all or nothing: when edit 3 of 3 fails the file is unchanged and the error says "edit 3:" (MEDIT-1)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const error = errorOf(
      await files.call('multi_edit', {
        path: 'a.txt',
        edits: [
          { old_string: 'one', new_string: 'ONE' },
          { old_string: 'two', new_string: 'TWO' },
          { old_string: 'four', new_string: 'FOUR' },
        ],
      }),
    );
    assert.equal(error.code, 'EDIT_NOT_FOUND');
    assert.match(error.text, /^EDIT_NOT_FOUND: edit 3: old_string not found in a\.txt/);
    assert.equal(await readFile(file, 'utf8'), 'one\ntwo\nthree\n');
  });

  it('suggests replace_all when a step is not unique', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\nx\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const error = errorOf(
      await files.call('multi_edit', { path: 'a.txt', edits: [{ old_string: 'x', new_string: 'y' }] }),
    );
    assert.equal(
      error.text,
      'EDIT_NOT_UNIQUE: edit 1: old_string is not unique in a.txt (2 matches, at lines 1, 2); add nearby unique lines to old_string, not just repeated separator lines, or set replace_all if every match should change',
    );
  });

  it('rejects an empty old_string in any step before touching the file (MEDIT-2)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const args = {
      path: 'a.txt',
      edits: [
        { old_string: 'x', new_string: 'y' },
        { old_string: '', new_string: 'z' },
      ],
    };
    assert.equal(errorOf(await files.call('multi_edit', args)).code, 'ARGUMENT_VALIDATION');
    const direct = await files.tools.get('multi_edit')!.execute(args, {
      callId: 'c',
      toolName: 'multi_edit',
      signal: new AbortController().signal,
      invocation: { kind: 'direct' },
    });
    assert.match(errorOf(direct).text, /^ARGUMENT_VALIDATION: edit 2: old_string is required/);
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'x\n');
  });

  it('rejects an empty edits array by its schema (MEDIT-3)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    assert.equal(
      errorOf(await files.call('multi_edit', { path: 'a.txt', edits: [] })).code,
      'ARGUMENT_VALIDATION',
    );
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'x\n');
  });

  it('marks a fuzzy step and applies replace_all to fuzzy regions (MEDIT-4)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.txt');
    await writeFile(file, 'item  \nother\nitem\t\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const text = okText(
      await files.call('multi_edit', {
        path: 'a.txt',
        edits: [{ old_string: 'item\n', new_string: 'ITEM\n', replace_all: true }],
      }),
    );
    assert.match(text, /\(2 total replacements\) \(fuzzy match\)/);
    assert.equal(await readFile(file, 'utf8'), 'ITEM\nother\nITEM\n');
  });

  it('requires an observation like every structured write', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    const error = errorOf(
      await files.call('multi_edit', { path: 'a.txt', edits: [{ old_string: 'x', new_string: 'y' }] }),
    );
    assert.equal(error.code, 'FS_NOT_OBSERVED');
  });
});
