// Requirements cited: READ-1..READ-6. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { knownTextBytes } from '@toolhost/contracts';
import { createObservationStore, encodeText } from '@toolhost/read-evidence';
import { formatReadWindow } from '../../src/files/read-file.js';
import { errorOf, fileTools, numberedLines, okText } from './file-helpers.js';

function gbk(text: string): Buffer {
  const encoded = encodeText(text, { name: 'gbk', bom: false });
  if (!encoded.ok) throw new Error(encoded.error.message);
  return encoded.value;
}

describe('read_file', () => {
  it('prints right-aligned 1-based numbers, →, and the text; default window 2000 lines (READ-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(2500));
    const text = okText(await files.call('read_file', { path: 'a.txt' }));
    const lines = text.split('\n');
    assert.equal(lines[0], '   1→line 1');
    assert.equal(lines[1999], '2000→line 2000');
    assert.equal(
      lines[2000],
      '[PARTIAL view: showing lines 1-2000 of 2500; pass offset=2000 to continue. A partial window may be sufficient for local work.]',
    );
    assert.equal(lines.length, 2001);
  });

  it('numbers every window like padStart to the widest number, across 9/10, 99/100 and 999/1000 (READ-2)', () => {
    for (const [offset, count] of [
      [0, 1],
      [0, 9],
      [0, 10],
      [5, 10],
      [8, 3],
      [95, 10],
      [990, 20],
      [9998, 4],
      [123_456, 2],
    ] as const) {
      const lines = Array.from({ length: count }, (_, index) => `text ${index} →`);
      const width = String(offset + count).length;
      const expected = lines
        .map((line, index) => `${String(offset + index + 1).padStart(width)}→${line}`)
        .join('\n');
      const text = formatReadWindow(
        {
          lines,
          offset,
          totalLines: offset + count,
          hasMore: false,
          cut: undefined,
          encoding: { name: 'utf-8', bom: false },
          version: { size: 0, mtimeNs: '0', ctimeNs: '0', mode: 0, ino: '0', dev: '0', sha256: null },
          content: undefined,
        },
        'a.txt',
      );
      assert.equal(text, expected, `offset ${offset}, ${count} lines`);
    }
  });

  it('treats offset as lines skipped: offset=10, limit=5 on 100 lines shows 11-15 and says pass offset=15 (READ-2)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(100));
    const text = okText(await files.call('read_file', { path: 'a.txt', offset: 10, limit: 5 }));
    assert.equal(
      text,
      [
        '11→line 11',
        '12→line 12',
        '13→line 13',
        '14→line 14',
        '15→line 15',
        '[PARTIAL view: showing lines 11-15 of 100; pass offset=15 to continue. A partial window may be sufficient for local work.]',
      ].join('\n'),
    );
  });

  it('says "(empty file)" and names the line count for an offset past the end (READ-1)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'empty.txt'), '');
    await writeFile(join(files.root, 'four.txt'), 'a\nb\nc\nd\n');
    assert.equal(okText(await files.call('read_file', { path: 'empty.txt' })), '(empty file)');
    assert.equal(
      okText(await files.call('read_file', { path: 'four.txt', offset: 9 })),
      '(offset 9 is past EOF — four.txt has 4 lines)',
    );
    const whole = okText(await files.call('read_file', { path: 'four.txt' }));
    assert.equal(whole, '1→a\n2→b\n3→c\n4→d', 'a trailing newline is not an extra line, and no trailer');
  });

  it('shows CRLF as plain lines and strips a UTF-8 BOM (READ-3)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'win.txt'), '\ufeffone\r\ntwo\r\n');
    assert.equal(okText(await files.call('read_file', { path: 'win.txt' })), '1→one\n2→two');
  });

  it('refuses binary files with FILE_BINARY but reads UTF-16 and legacy encodings (READ-3)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
    await writeFile(
      join(files.root, 'u16.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\n', 'utf16le')]),
    );
    await writeFile(
      join(files.root, 'gbk.txt'),
      gbk('第一行：中文内容用于编码检测。\n第二行：编辑工具必须保留原始编码。\n'),
    );
    const binary = errorOf(await files.call('read_file', { path: 'image.png' }));
    assert.equal(binary.code, 'FILE_BINARY');
    assert.equal(okText(await files.call('read_file', { path: 'u16.txt' })), '1→hi');
    assert.equal(
      okText(await files.call('read_file', { path: 'gbk.txt', offset: 1 })),
      '2→第二行：编辑工具必须保留原始编码。',
    );
  });

  it('records an observation from any window, even one line (READ-4)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(50));
    assert.equal(files.store.lookup(join(files.root, 'a.txt')).state, 'unseen');
    okText(await files.call('read_file', { path: 'a.txt', offset: 40, limit: 1 }));
    assert.equal(files.store.lookup(join(files.root, 'a.txt')).state, 'present');
  });

  it('returns FS_NOT_FOUND for a missing file and records it absent (READ-5)', async (t) => {
    const files = await fileTools(t);
    const error = errorOf(await files.call('read_file', { path: 'missing.txt' }));
    assert.equal(error.code, 'FS_NOT_FOUND');
    // The missing path is named by its argument, never echoed (finding 4 of issue 15).
    assert.match(error.text, /^FS_NOT_FOUND: the path given as "path" does not exist; /);
    assert.deepEqual(files.store.lookup(join(files.root, 'missing.txt')), { state: 'absent' });
  });

  it('refuses a directory with NOT_A_FILE and a path outside the root with PATH_OUTSIDE_ROOT', async (t) => {
    const files = await fileTools(t);
    await mkdir(join(files.root, 'src'));
    await symlink('/etc/hostname', join(files.root, 'escape'));
    const directory = errorOf(await files.call('read_file', { path: 'src' }));
    assert.equal(directory.code, 'NOT_A_FILE');
    assert.match(directory.text, /ls/);
    assert.equal(
      errorOf(await files.call('read_file', { path: '../outside.txt' })).code,
      'PATH_OUTSIDE_ROOT',
    );
    assert.equal(errorOf(await files.call('read_file', { path: 'escape' })).code, 'PATH_OUTSIDE_ROOT');
    assert.equal(files.store.size, 0, 'refusals record nothing');
  });

  it('rejects intent=range without offset or limit, and reads one bounded window for intent=full (READ-6)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(3000));
    const range = errorOf(await files.call('read_file', { path: 'a.txt', intent: 'range' }));
    assert.equal(range.code, 'ARGUMENT_VALIDATION');
    assert.match(range.text, /intent=range requires an explicit offset or limit/);
    assert.match(
      okText(await files.call('read_file', { path: 'a.txt', intent: 'range', limit: 2 })),
      /^1→line 1\n2→line 2\n/,
    );
    const full = okText(await files.call('read_file', { path: 'a.txt', intent: 'full' }));
    assert.match(full, /showing lines 1-2000 of 3000; pass offset=2000/);
    const unknown = errorOf(await files.call('read_file', { path: 'a.txt', intent: 'everything' }));
    assert.equal(unknown.code, 'ARGUMENT_VALIDATION');
  });

  it('accepts a legacy cursor as an offset hint and ignores one it cannot use', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), numberedLines(10));
    assert.match(
      okText(await files.call('read_file', { path: 'a.txt', cursor: 'offset=8' })),
      /^ 9→line 9\n10→line 10$/,
    );
    assert.match(
      okText(await files.call('read_file', { path: 'a.txt', cursor: '7', limit: 1 })),
      /^8→line 8\n/,
    );
    assert.match(
      okText(await files.call('read_file', { path: 'a.txt', cursor: 'opaque-token', limit: 1 })),
      /^\(cursor ignored: it is not a line offset; pass offset instead\)\n1→line 1\n/,
    );
  });

  it('bounds a line over the line limit and a page over the page limit with clear messages', async (t) => {
    const files = await fileTools(t, { limits: { maxLineBytes: 1024, maxPageBytes: 4096 } });
    await writeFile(join(files.root, 'long.txt'), `first\n${'x'.repeat(5000)}\nlast\n`);
    assert.equal(
      okText(await files.call('read_file', { path: 'long.txt' })),
      '1→first\n[line 2 is longer than the line limit, so the window stops before it; pass offset=2 to skip it, or inspect it with a command.]',
    );
    const tooLong = errorOf(await files.call('read_file', { path: 'long.txt', offset: 1 }));
    assert.equal(tooLong.code, 'FILE_TOO_LARGE');
    assert.match(
      tooLong.text,
      /line 2 of long\.txt is longer than the 1 KiB line limit; skip it with offset=2/,
    );
    await writeFile(join(files.root, 'page.txt'), `${'y'.repeat(1000)}\n`.repeat(10));
    assert.match(
      okText(await files.call('read_file', { path: 'page.txt' })),
      /\n\[read_file local safety page: the window reached its byte limit after line 4; pass offset=4 to continue\.\]$/,
    );
  });

  it('says "of at least" when a large file was not read past the window', async (t) => {
    const files = await fileTools(t);
    const root = files.root;
    const small = await fileTools(t, { root, store: createObservationStore({ hashLimit: 16 }) });
    await writeFile(join(root, 'a.txt'), numberedLines(100));
    assert.match(
      okText(await small.call('read_file', { path: 'a.txt', limit: 3 })),
      /showing lines 1-3 of at least 4; pass offset=3/,
    );
  });

  it('declares read access, parallel and abortable execution, the read result shape and read-only annotations', async (t) => {
    const files = await fileTools(t);
    const tool = files.tools.get('read_file')!;
    assert.equal(tool.group, 'read_only_builtins');
    assert.deepEqual(tool.execution, { mode: 'parallel', timeoutMs: 120_000, abortable: true });
    assert.equal(tool.resultShape, 'read');
    assert.deepEqual(tool.annotations, {
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    assert.deepEqual(tool.permission?.paths?.({ path: 'a.txt' }), [
      { argument: 'path', path: 'a.txt', access: 'read' },
    ]);
  });

  it('stops with ABORTED when its signal fires', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'big.txt'), numberedLines(300_000));
    const controller = new AbortController();
    controller.abort();
    assert.equal(
      errorOf(await files.call('read_file', { path: 'big.txt', offset: 299_000 }, controller.signal)).code,
      'ABORTED',
    );
  });

  it('returns FS_STALE_VERSION and records nothing when a small file grows between its stat and its read (read-evidence RE-8)', async (t) => {
    const files = await fileTools(t);
    const file = join(files.root, 'small.txt');
    await writeFile(file, numberedLines(200));
    let checks = 0;
    // The synchronous read of a small file asks the signal once, between the stat of its descriptor
    // and the read: grow the file at that moment.
    const signal = {
      get aborted() {
        if (++checks === 1) appendFileSync(file, 'appended while reading\n');
        return false;
      },
    } as AbortSignal;
    const result = await files.call('read_file', { path: 'small.txt', limit: 40 }, signal);
    if (checks === 0) return t.skip('small files are streamed on this file system');
    const error = errorOf(result);
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(error.text, /^FS_STALE_VERSION: small\.txt changed while it was being read; /);
    assert.equal(files.store.lookup(file).state, 'unseen', 'a read that saw a change records nothing');
    assert.equal(files.store.size, 0);
    assert.match(okText(await files.call('read_file', { path: 'small.txt', limit: 1 })), /^1→line 1\n/);
    assert.equal(files.store.lookup(file).state, 'present');
  });

  it('hands the shaper the exact UTF-8 byte count of its text for UTF-8 and UTF-16 windows, and none it cannot know (issue 25: reads in flight)', async (t) => {
    const files = await fileTools(t, { limits: { maxLineBytes: 1024, maxPageBytes: 4096 } });
    const utf8 = (name: string, content: string | Buffer) => writeFile(join(files.root, name), content);
    await utf8('ascii.txt', numberedLines(120));
    await utf8('multi.txt', 'é\n中文\n😀 emoji\n→ arrow\n\nlast without newline');
    await utf8('crlf.txt', 'one\r\ntwo\r\n\r\nthree\r\n');
    await utf8('cr.txt', 'one\rtwo\rthree\r');
    await utf8('mixed.txt', 'a\r\nb\nc\r\n');
    await utf8('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('bom\nline 2\n')]));
    await utf8('u16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\n中\n😀\n', 'utf16le')]));
    await utf8('long.txt', `first\n${'x'.repeat(5000)}\nlast\n`);
    await utf8('page.txt', `${'ü'.repeat(500)}\n`.repeat(10));
    await utf8(
      'invalid.txt',
      Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xc3, 0x28, 0x0a]), Buffer.from('ok\n')]),
    );
    await utf8('gbk.txt', gbk('第一行：中文内容用于编码检测。\n第二行：编辑工具必须保留原始编码。\n'));
    const cases: [string, Record<string, unknown>][] = [
      ['ascii.txt', {}],
      ['ascii.txt', { offset: 5, limit: 7 }],
      ['ascii.txt', { offset: 95, limit: 10 }],
      ['ascii.txt', { limit: 1, cursor: 'not an offset' }],
      ['multi.txt', {}],
      ['multi.txt', { offset: 2, limit: 2 }],
      ['crlf.txt', {}],
      ['cr.txt', {}],
      ['mixed.txt', {}],
      ['bom.txt', {}],
      ['u16.txt', {}],
      ['long.txt', {}],
      ['page.txt', {}],
    ];
    for (const [path, extra] of cases) {
      const result = await files.call('read_file', { path, ...extra });
      const text = okText(result);
      assert.ok(result.ok);
      assert.equal(
        knownTextBytes(result.output),
        Buffer.byteLength(text, 'utf8'),
        `${path} ${JSON.stringify(extra)}`,
      );
    }
    // Invalid UTF-8 decodes with U+FFFD and a legacy encoding is transcoded: counted by the shaper.
    for (const path of ['invalid.txt', 'gbk.txt']) {
      const result = await files.call('read_file', { path });
      assert.ok(result.ok, path);
      assert.equal(knownTextBytes(result.output), undefined, path);
    }
    const past = await files.call('read_file', { path: 'ascii.txt', offset: 500 });
    assert.ok(past.ok);
    assert.equal(knownTextBytes(past.output), undefined);
  });
});
