// Requirements cited: EDIT-1..EDIT-11 (EDIT-5: metadata-only changes are deliberately not stale).
// See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createMutationLocks, createObservationStore, encodeText } from '@toolhost/read-evidence';
import { errorOf, fileTools, numberedLines, okText } from './file-helpers.js';

describe('edit_file', () => {
  it('refuses a file never read in this session with FS_NOT_OBSERVED and leaves it unchanged (EDIT-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'alpha\nbeta\n');
    const error = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'gamma' }),
    );
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    assert.equal(
      error.text,
      'FS_NOT_OBSERVED: a.txt has not been observed in this session; read any window of the file with read_file, then retry',
    );
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'alpha\nbeta\n');
  });

  it('edits anywhere after a one-line window and shows a diff and where the change landed (EDIT-2, READ-4)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(40));
    okText(await files.call('read_file', { path: 'a.txt', offset: 39, limit: 1 }));
    const text = okText(
      await files.call('edit_file', { path: 'a.txt', old_string: 'line 5\n', new_string: 'five\n' }),
    );
    assert.equal(
      text,
      [
        'edited a.txt: replaced line 5; the new text is at line 5',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -2,7 +2,7 @@',
        ' line 2',
        ' line 3',
        ' line 4',
        '-line 5',
        '+five',
        ' line 6',
        ' line 7',
        ' line 8',
        '',
      ].join('\n'),
    );
    assert.match(await readFile(join(files.root, 'a.txt'), 'utf8'), /line 4\nfive\nline 6/);
  });

  it('allows consecutive edits without re-reading because the observation advances (EDIT-3)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'one\ntwo\nthree\n');
    okText(await files.call('read_file', { path: 'a.txt', limit: 1 }));
    okText(await files.call('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'ONE' }));
    okText(await files.call('edit_file', { path: 'a.txt', old_string: 'three', new_string: 'THREE' }));
    okText(await files.call('edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' }));
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'ONE\nTWO\nTHREE\n');
  });

  it('fails with FS_STALE_VERSION after an external change that restored the mtime, naming the lines; re-reading recovers (EDIT-4)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.txt');
    await writeFile(file, 'alpha\nbeta\ngamma\n');
    const before = await stat(file);
    okText(await files.call('read_file', { path: 'a.txt' }));
    await writeFile(file, 'alpha\nBETA\ngamma\n');
    await utimes(file, before.atime, before.mtime);
    const error = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'gamma', new_string: 'delta' }),
    );
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.equal(
      error.text,
      'FS_STALE_VERSION: a.txt changed after it was read: its content changed (line 2 in the current file); read it again, then retry',
    );
    assert.equal(await readFile(file, 'utf8'), 'alpha\nBETA\ngamma\n');
    okText(await files.call('read_file', { path: 'a.txt', limit: 1 }));
    okText(await files.call('edit_file', { path: 'a.txt', old_string: 'gamma', new_string: 'delta' }));
    assert.equal(await readFile(file, 'utf8'), 'alpha\nBETA\ndelta\n');
  });

  it('is not stale after chmod, touch or an identical rewrite (EDIT-5)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.sh');
    await writeFile(file, 'echo one\n');
    okText(await files.call('read_file', { path: 'a.sh' }));
    await chmod(file, 0o755);
    okText(await files.call('edit_file', { path: 'a.sh', old_string: 'one', new_string: 'two' }));
    assert.equal((await stat(file)).mode & 0o777, 0o755, 'the mode survives the atomic write');
    await utimes(file, new Date('2000-01-01'), new Date('2000-01-01'));
    okText(await files.call('edit_file', { path: 'a.sh', old_string: 'two', new_string: 'three' }));
    await writeFile(file, await readFile(file));
    okText(await files.call('edit_file', { path: 'a.sh', old_string: 'three', new_string: 'four' }));
    assert.equal(await readFile(file, 'utf8'), 'echo four\n');
  });

  it('loses no update when two agents edit from the same version: 50 rounds, exactly one FS_STALE_VERSION each (EDIT-6)', async (t) => {
    const root = (await fileTools(t)).root;
    const locks = createMutationLocks();
    const first = await fileTools(t, { root, locks, store: createObservationStore() });
    const second = await fileTools(t, { root, locks, store: createObservationStore() });
    for (let round = 0; round < 50; round++) {
      const path = `race-${round}.txt`;
      await writeFile(join(root, path), 'top: 0\nmiddle\nbottom: 0\n');
      okText(await first.call('read_file', { path }));
      okText(await second.call('read_file', { path }));
      const results = await Promise.all([
        first.call('edit_file', { path, old_string: 'top: 0', new_string: 'top: first' }),
        second.call('edit_file', { path, old_string: 'bottom: 0', new_string: 'bottom: second' }),
      ]);
      const failures = results.filter((result) => !result.ok);
      assert.equal(failures.length, 1, `round ${round}: exactly one edit wins`);
      assert.equal(errorOf(failures[0]!).code, 'FS_STALE_VERSION');
      const loser = results[0]!.ok ? second : first;
      const content = await readFile(join(root, path), 'utf8');
      assert.ok(
        content === 'top: first\nmiddle\nbottom: 0\n' || content === 'top: 0\nmiddle\nbottom: second\n',
        'the winner’s edit is in the file, whole',
      );
      // The loser re-reads and retries: both updates survive.
      okText(await loser.call('read_file', { path, limit: 1 }));
      okText(
        await loser.call(
          'edit_file',
          loser === first
            ? { path, old_string: 'top: 0', new_string: 'top: first' }
            : { path, old_string: 'bottom: 0', new_string: 'bottom: second' },
        ),
      );
      assert.equal(await readFile(join(root, path), 'utf8'), 'top: first\nmiddle\nbottom: second\n');
    }
  });

  it('names up to five matching lines when old_string is not unique, counting overlaps (EDIT-7)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x = 1\ny = 2\nx = 1\naaa\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const twice = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'x = 1', new_string: 'x = 3' }),
    );
    assert.equal(twice.code, 'EDIT_NOT_UNIQUE');
    assert.equal(
      twice.text,
      'EDIT_NOT_UNIQUE: old_string is not unique in a.txt (2 matches, at lines 1, 3); add nearby unique lines to old_string, not just repeated separator lines',
    );
    const overlapping = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'aa', new_string: 'b' }),
    );
    assert.equal(overlapping.code, 'EDIT_NOT_UNIQUE');
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'x = 1\ny = 2\nx = 1\naaa\n');
  });

  it('reports no match with the re-read advice and the most similar line in the output, not the message (EDIT-7)', async (t) => {
    const files = await fileTools(t);
    await writeFile(
      join(files.root, 'a.ts'),
      'function handleRequest(request) {\n  return respond(request);\n}\n',
    );
    okText(await files.call('read_file', { path: 'a.ts' }));
    const error = errorOf(
      await files.call('edit_file', {
        path: 'a.ts',
        old_string: 'function handleRequests(req) {',
        new_string: 'x',
      }),
    );
    assert.equal(error.code, 'EDIT_NOT_FOUND');
    assert.match(
      error.text,
      /^EDIT_NOT_FOUND: old_string not found in a\.ts \(the most similar line is line 1, \d+% similar\); re-read the current file before retrying; if several related edits target the same area, combine the final replacements in one multi_edit call$/,
    );
    assert.doesNotMatch(error.text, /handleRequest/, 'the error message never quotes file content');
    assert.equal(error.output, 'most similar line (1):\n1→function handleRequest(request) {');
    const nothing = errorOf(
      await files.call('edit_file', { path: 'a.ts', old_string: 'zzzz qqqq', new_string: 'x' }),
    );
    assert.equal(
      nothing.text,
      'EDIT_NOT_FOUND: old_string not found in a.ts; re-read the current file before retrying; if several related edits target the same area, combine the final replacements in one multi_edit call',
    );
  });

  it('matches an LF old_string in a CRLF file and keeps CRLF and the BOM (EDIT-8)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'win.txt');
    await writeFile(file, '\ufeffone\r\ntwo\r\nthree\r\n');
    okText(await files.call('read_file', { path: 'win.txt' }));
    okText(
      await files.call('edit_file', {
        path: 'win.txt',
        old_string: 'one\ntwo\n',
        new_string: 'uno\ndos\nextra\n',
      }),
    );
    assert.equal(await readFile(file, 'utf8'), '\ufeffuno\r\ndos\r\nextra\r\nthree\r\n');
  });

  it('rejects an empty old_string before touching the file (EDIT-9)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const bySchema = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: '', new_string: 'y' }),
    );
    assert.equal(bySchema.code, 'ARGUMENT_VALIDATION');
    const tool = files.tools.get('edit_file')!;
    const direct = await tool.execute(
      { path: 'a.txt', old_string: '', new_string: 'y' },
      {
        callId: 'c',
        toolName: 'edit_file',
        signal: new AbortController().signal,
        invocation: { kind: 'direct' },
      },
    );
    assert.equal(
      errorOf(direct).text,
      'ARGUMENT_VALIDATION: old_string is required (it is empty); fix the listed parameters and call again',
    );
    assert.equal(await readFile(join(files.root, 'a.txt'), 'utf8'), 'x\n');
  });

  it('applies a unique fuzzy match (trailing whitespace, tabs, copied N→ prefixes) and says so (EDIT-10)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'a.py');
    await writeFile(file, 'def f():   \n\treturn 1\n\ndef g():\n    return 2\n');
    okText(await files.call('read_file', { path: 'a.py' }));
    const text = okText(
      await files.call('edit_file', {
        path: 'a.py',
        old_string: '1→def f():\n2→    return 1\n',
        new_string: 'def f():\n    return 10\n',
      }),
    );
    assert.match(text, /^edited a\.py \(fuzzy match\): replaced lines 1-2; the new text is at lines 1-2\n/);
    assert.equal(await readFile(file, 'utf8'), 'def f():\n    return 10\n\ndef g():\n    return 2\n');
  });

  it('refuses an ambiguous fuzzy match with EDIT_NOT_UNIQUE (EDIT-10)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'end  \nmiddle\nend\t\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    const error = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'end \n', new_string: 'END\n' }),
    );
    assert.equal(error.code, 'EDIT_NOT_UNIQUE');
    assert.match(error.text, /comparing whole lines.*\(2 matches, at lines 1, 3\)/);
  });

  it('keeps UTF-16 and GBK files in their encoding', async (t) => {
    const files = await fileTools(t);
    const utf16 = join(files.root, 'u16.txt');
    await writeFile(
      utf16,
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('alpha\nbeta\n', 'utf16le').swap16()]),
    );
    okText(await files.call('read_file', { path: 'u16.txt' }));
    okText(await files.call('edit_file', { path: 'u16.txt', old_string: 'beta', new_string: 'βeta' }));
    assert.deepEqual(
      await readFile(utf16),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('alpha\nβeta\n', 'utf16le').swap16()]),
    );
    const gbk = join(files.root, 'gbk.txt');
    const encode = (text: string) => {
      const encoded = encodeText(text, { name: 'gbk', bom: false });
      assert.ok(encoded.ok);
      return encoded.value;
    };
    await writeFile(gbk, encode('第一行：中文内容用于编码检测。\n第二行：编辑工具必须保留原始编码。\n'));
    okText(await files.call('read_file', { path: 'gbk.txt' }));
    okText(await files.call('edit_file', { path: 'gbk.txt', old_string: '第二行', new_string: '第二段' }));
    assert.deepEqual(
      await readFile(gbk),
      encode('第一行：中文内容用于编码检测。\n第二段：编辑工具必须保留原始编码。\n'),
    );
  });

  it('reports a file removed after it was read as stale, and a never-read missing file as not found', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    await rm(join(files.root, 'a.txt'));
    const removed = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'x', new_string: 'y' }),
    );
    assert.equal(removed.code, 'FS_STALE_VERSION');
    assert.match(removed.text, /was removed after it was observed/);
    const never = errorOf(await files.call('edit_file', { path: 'b.txt', old_string: 'x', new_string: 'y' }));
    assert.equal(never.code, 'FS_NOT_FOUND');
  });

  it('refuses protected paths even after reading them (EDIT-11)', async (t) => {
    const files = await fileTools(t);
    await mkdir(join(files.root, '.git'));
    await writeFile(join(files.root, '.git', 'config'), '[core]\n');
    okText(await files.call('read_file', { path: '.git/config' }));
    const error = errorOf(
      await files.call('edit_file', { path: '.git/config', old_string: '[core]', new_string: '[x]' }),
    );
    assert.equal(error.code, 'PATH_PROTECTED');
    assert.equal(await readFile(join(files.root, '.git', 'config'), 'utf8'), '[core]\n');
  });

  it('refuses an edit whose old_string equals new_string with EDIT_INVALID', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    okText(await files.call('read_file', { path: 'a.txt' }));
    assert.equal(
      errorOf(await files.call('edit_file', { path: 'a.txt', old_string: 'x', new_string: 'x' })).code,
      'EDIT_INVALID',
    );
  });

  it('declares write access, sequential non-abortable execution and destructive annotations', async (t) => {
    const files = await fileTools(t);
    const tool = files.tools.get('edit_file')!;
    assert.equal(tool.group, 'editing_builtins');
    assert.equal(tool.category, 'write');
    assert.deepEqual(tool.execution, { mode: 'sequential', timeoutMs: 120_000, abortable: false });
    assert.deepEqual(tool.annotations, {
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: false,
    });
    assert.deepEqual(tool.permission?.paths?.({ path: 'a.txt' }), [
      { argument: 'path', path: 'a.txt', access: 'write' },
    ]);
  });
});
