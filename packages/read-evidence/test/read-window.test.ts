// Requirements cited: RE-8 (version from the handle, confirmed after reading), RE-15, RE-17 (bounded windows),
// RE-19 (small local files read synchronously, with the streaming read's result), RE-23 (known bytes take their hash).
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { type ReadTextWindowOptions, readTextWindow, sha256Of } from '../src/index.js';
import { DEFAULT_SYNC_READ_LIMIT, readSmallFileSync } from '../src/read-small-file.js';
import { mkfifo } from './fifo.js';
import { changeAtFirstCheck, expectError, expectOk, localTempDir, tempDir } from './helpers.js';

function numbered(count: number, ending = '\n'): string {
  let text = '';
  for (let line = 1; line <= count; line++) text += `line ${line}${ending}`;
  return text;
}

describe('readTextWindow', () => {
  it('skips offset lines and returns limit lines with an exact count for small files', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, numbered(100));
    const window = expectOk(await readTextWindow(file, { offset: 10, limit: 5 }));
    assert.deepEqual(window.lines, ['line 11', 'line 12', 'line 13', 'line 14', 'line 15']);
    assert.equal(window.offset, 10);
    assert.equal(window.totalLines, 100);
    assert.equal(window.hasMore, true);
    assert.equal(window.cut, undefined);
  });

  it('counts a final line without a terminator and does not count a trailing newline as a line', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'with.txt'), 'a\nb\nc\nd\n');
    await writeFile(join(directory, 'without.txt'), 'a\nb\nc\nd');
    await writeFile(join(directory, 'empty.txt'), '');
    await writeFile(join(directory, 'blank.txt'), '\n');
    assert.equal(expectOk(await readTextWindow(join(directory, 'with.txt'))).totalLines, 4);
    assert.deepEqual(expectOk(await readTextWindow(join(directory, 'without.txt'))).lines, [
      'a',
      'b',
      'c',
      'd',
    ]);
    const empty = expectOk(await readTextWindow(join(directory, 'empty.txt')));
    assert.deepEqual([empty.lines.length, empty.totalLines, empty.hasMore], [0, 0, false]);
    assert.deepEqual(expectOk(await readTextWindow(join(directory, 'blank.txt'))).lines, ['']);
  });

  it('strips CR from CRLF lines, splits CR-only files, and strips a UTF-8 BOM', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'crlf.txt'), '\ufeffone\r\ntwo\r\n');
    await writeFile(join(directory, 'cr.txt'), 'one\rtwo\rthree');
    const crlf = expectOk(await readTextWindow(join(directory, 'crlf.txt')));
    assert.deepEqual(crlf.lines, ['one', 'two']);
    assert.deepEqual(crlf.encoding, { name: 'utf-8', bom: true });
    assert.deepEqual(expectOk(await readTextWindow(join(directory, 'cr.txt'))).lines, [
      'one',
      'two',
      'three',
    ]);
  });

  it('reads UTF-16 and legacy encodings line by line (RE-15)', async (t) => {
    const directory = await tempDir(t);
    const utf16 = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('α\r\nβ\r\nγ', 'utf16le').swap16()]);
    await writeFile(join(directory, 'u16.txt'), utf16);
    assert.deepEqual(expectOk(await readTextWindow(join(directory, 'u16.txt'), { offset: 1 })).lines, [
      'β',
      'γ',
    ]);
    const chinese =
      '第一行：中文内容用于编码检测。\n第二行：编辑工具必须保留原始编码。\n第三行：读取、修改、写回。\n';
    await writeFile(join(directory, 'gbk.txt'), iconv.encode(chinese, 'gbk'));
    const gbk = expectOk(await readTextWindow(join(directory, 'gbk.txt'), { offset: 1, limit: 1 }));
    assert.deepEqual(gbk.lines, ['第二行：编辑工具必须保留原始编码。']);
    assert.equal(gbk.encoding.name, 'gb18030');
  });

  it('hashes files within the hash limit and leaves larger ones metadata-only (RE-3, RE-5)', async (t) => {
    const directory = await tempDir(t);
    const text = numbered(50);
    await writeFile(join(directory, 'small.txt'), text);
    const small = expectOk(await readTextWindow(join(directory, 'small.txt'), { limit: 1 }));
    assert.equal(small.version.sha256, sha256Of(Buffer.from(text)));
    assert.equal(small.content?.toString(), text);
    const large = expectOk(await readTextWindow(join(directory, 'small.txt'), { limit: 1, hashLimit: 100 }));
    assert.equal(large.version.sha256, null);
    assert.equal(large.totalLines, undefined, 'a large file is not read past the window');
    assert.equal(large.hasMore, true);
  });

  it('takes the hash of known bytes for a file that holds exactly them, and hashes any other bytes (RE-23, issue 25)', async (t) => {
    const directory = await tempDir(t);
    const file = join(directory, 'a.txt');
    const text = numbered(200);
    await writeFile(file, text);
    // A made-up hash proves it was taken, not computed; equal bytes are the only condition.
    const known = { bytes: Buffer.from(text), sha256: 'f'.repeat(64) };
    for (const syncReadLimit of [DEFAULT_SYNC_READ_LIMIT, 0]) {
      const same = expectOk(await readTextWindow(file, { limit: 3, knownContent: known, syncReadLimit }));
      assert.equal(same.version.sha256, known.sha256, `sync limit ${syncReadLimit}`);
      assert.equal(same.content, known.bytes, 'the known buffer itself is the content');
      const other = { bytes: Buffer.from(text.replace('line 200', 'line 20X')), sha256: 'f'.repeat(64) };
      const differs = expectOk(await readTextWindow(file, { limit: 3, knownContent: other, syncReadLimit }));
      assert.equal(differs.version.sha256, sha256Of(Buffer.from(text)), `sync limit ${syncReadLimit}`);
      assert.equal(differs.content?.toString(), text);
      const shorter = { bytes: Buffer.from(text.slice(0, -1)), sha256: 'f'.repeat(64) };
      const sized = expectOk(await readTextWindow(file, { limit: 3, knownContent: shorter, syncReadLimit }));
      assert.equal(sized.version.sha256, sha256Of(Buffer.from(text)));
    }
  });

  it('compares a streamed multi-chunk file with known bytes chunk by chunk, hashing from the first difference (RE-23, issue 25)', async (t) => {
    const file = join(await tempDir(t), 'big.txt');
    const text = numbered(400_000);
    await writeFile(file, text);
    const bytes = Buffer.from(text);
    assert.ok(bytes.length > 3 * 1024 * 1024, 'several chunks');
    const fake = 'e'.repeat(64);
    const same = expectOk(await readTextWindow(file, { limit: 1, knownContent: { bytes, sha256: fake } }));
    assert.equal(same.version.sha256, fake);
    for (const at of [0, 1024 * 1024 - 1, 1024 * 1024, bytes.length - 2]) {
      const changed = Buffer.from(bytes);
      changed[at] = 0x21;
      const read = expectOk(
        await readTextWindow(file, { limit: 1, knownContent: { bytes: changed, sha256: fake } }),
      );
      assert.equal(read.version.sha256, sha256Of(bytes), `a difference at byte ${at}`);
    }
  });

  it('reports an offset past the end with the exact line count', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, numbered(7));
    const window = expectOk(await readTextWindow(file, { offset: 50, hashLimit: 0 }));
    assert.deepEqual([window.lines.length, window.totalLines, window.hasMore], [0, 7, false]);
  });

  it('reads a window across chunk boundaries of a multi-MiB file (RE-17)', async (t) => {
    const file = join(await tempDir(t), 'big.txt');
    await writeFile(file, numbered(400_000));
    const window = expectOk(await readTextWindow(file, { offset: 399_990, limit: 20, hashLimit: 0 }));
    assert.equal(window.lines.length, 10);
    assert.equal(window.lines[0], 'line 399991');
    assert.equal(window.lines.at(-1), 'line 400000');
    assert.equal(window.totalLines, 400_000);
    assert.equal(window.hasMore, false);
  });

  it('fails a first line over the line limit with FILE_TOO_LARGE and cuts the window before a later one', async (t) => {
    const file = join(await tempDir(t), 'long.txt');
    await writeFile(file, `short\n${'x'.repeat(3000)}\nafter\n`);
    const cut = expectOk(await readTextWindow(file, { maxLineBytes: 1024 }));
    assert.deepEqual(cut.lines, ['short']);
    assert.deepEqual(cut.cut, { reason: 'long-line', nextOffset: 1 });
    assert.equal(cut.hasMore, true);
    const error = expectError(await readTextWindow(file, { offset: 1, maxLineBytes: 1024 }));
    assert.equal(error.code, 'FILE_TOO_LARGE');
    assert.match(error.message, /line 2 of .* is longer than the 1 KiB line limit/);
    const skipped = expectOk(await readTextWindow(file, { offset: 2, maxLineBytes: 1024 }));
    assert.deepEqual(skipped.lines, ['after']);
  });

  it('cuts a window whose text would pass the window byte limit, naming the next offset', async (t) => {
    const file = join(await tempDir(t), 'page.txt');
    await writeFile(file, `${'a'.repeat(600)}\n`.repeat(10));
    const window = expectOk(await readTextWindow(file, { maxWindowBytes: 2000 }));
    assert.equal(window.lines.length, 3);
    assert.deepEqual(window.cut, { reason: 'window-bytes', nextOffset: 3 });
  });

  it('refuses binary files, directories and symlinks at the final component', async (t) => {
    const directory = await tempDir(t);
    await writeFile(join(directory, 'bin'), Buffer.from([1, 2, 0, 3, 4]));
    await mkdir(join(directory, 'dir'));
    await writeFile(join(directory, 'target.txt'), 'x');
    await symlink(join(directory, 'target.txt'), join(directory, 'link.txt'));
    assert.equal(expectError(await readTextWindow(join(directory, 'bin'))).code, 'FILE_BINARY');
    const dir = expectError(await readTextWindow(join(directory, 'dir')));
    assert.equal(dir.code, 'NOT_A_FILE');
    assert.match(dir.message, /is a directory/);
    assert.equal(expectError(await readTextWindow(join(directory, 'link.txt'))).code, 'PATH_INVALID');
    assert.equal(expectError(await readTextWindow(join(directory, 'missing.txt'))).code, 'FS_NOT_FOUND');
  });

  it('fails with FS_STALE_VERSION when the file changes while it is read (RE-8)', async (t) => {
    const file = join(await tempDir(t), 'growing.txt');
    await writeFile(file, numbered(300_000));
    let checks = 0;
    // The reader looks at the signal between chunks; use that moment to change the file mid-read.
    const signal = {
      get aborted() {
        if (++checks === 1) appendFileSync(file, 'appended while reading\n');
        return false;
      },
    } as AbortSignal;
    const error = expectError(await readTextWindow(file, { offset: 299_000, hashLimit: 0, signal }));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(error.message, /changed while it was being read/);
    assert.ok(checks >= 1);
  });

  it('stops with ABORTED when the signal fires', async (t) => {
    const file = join(await tempDir(t), 'a.txt');
    await writeFile(file, numbered(400_000));
    const controller = new AbortController();
    controller.abort();
    assert.equal(
      expectError(await readTextWindow(file, { offset: 399_000, signal: controller.signal })).code,
      'ABORTED',
    );
  });

  it('returns the same window, version and content from a synchronous read as from the streaming read (RE-19)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    const chinese = '第一行：中文内容用于编码检测。\n第二行：编辑工具必须保留原始编码。\n';
    const cases: ReadonlyArray<readonly [string, string | Buffer, ReadTextWindowOptions]> = [
      ['lf', numbered(100), { offset: 10, limit: 5 }],
      ['crlf with a BOM', '\ufeffone\r\ntwo\r\n', {}],
      ['cr only', 'one\rtwo\rthree', {}],
      ['no final newline', 'a\nb\nc', {}],
      ['empty', '', {}],
      ['one blank line', '\n', {}],
      [
        'utf-16be with a BOM',
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('α\r\nβ\r\nγ', 'utf16le').swap16()]),
        { offset: 1 },
      ],
      ['utf-16le without a BOM', Buffer.from('hello\nworld\n', 'utf16le'), {}],
      ['gbk', iconv.encode(chinese, 'gbk'), { offset: 1, limit: 1 }],
      ['windows-1252', iconv.encode('café crème\nna\u00efve\n', 'windows-1252'), {}],
      ['a long line that cuts the window', `short\n${'x'.repeat(3000)}\nafter\n`, { maxLineBytes: 1024 }],
      [
        'a first line over the line limit',
        `short\n${'x'.repeat(3000)}\nafter\n`,
        { offset: 1, maxLineBytes: 1024 },
      ],
      ['a window over the byte limit', `${'a'.repeat(600)}\n`.repeat(10), { maxWindowBytes: 2000 }],
      ['an offset past the end', numbered(7), { offset: 50 }],
      ['a file over the hash limit', numbered(50), { limit: 1, hashLimit: 100 }],
      ['a file over the content limit', numbered(50), { contentLimit: 10 }],
      ['the end of a 200 KiB file', numbered(20_000), { offset: 19_990 }],
      ['binary', Buffer.from([1, 2, 0, 3, 4]), {}],
    ];
    for (const [name, content, options] of cases) {
      const file = join(directory, `${name.replaceAll(' ', '-')}.txt`);
      writeFileSync(file, content);
      assert.ok(
        readSmallFileSync(file, { displayPath: name, limit: DEFAULT_SYNC_READ_LIMIT }),
        `${name}: the default read takes the synchronous path`,
      );
      const synchronous = await readTextWindow(file, options);
      const streamed = await readTextWindow(file, { ...options, syncReadLimit: 0 });
      assert.deepEqual(synchronous, streamed, name);
    }
  });

  it('reads a file of exactly the synchronous limit and one a byte larger with the streaming result (RE-19)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    const line = `${'z'.repeat(1023)}\n`;
    const atLimit = line.repeat(DEFAULT_SYNC_READ_LIMIT / line.length);
    assert.equal(atLimit.length, DEFAULT_SYNC_READ_LIMIT);
    for (const [name, text] of [
      ['at.txt', atLimit],
      ['over.txt', `${atLimit}!`],
    ] as const) {
      const file = join(directory, name);
      writeFileSync(file, text);
      const window = expectOk(await readTextWindow(file, { offset: 250, limit: 10 }));
      assert.deepEqual(
        window,
        expectOk(await readTextWindow(file, { offset: 250, limit: 10, syncReadLimit: 0 })),
      );
      assert.equal(window.totalLines, name === 'at.txt' ? 256 : 257);
      assert.equal(window.version.size, text.length);
      assert.equal(window.version.sha256, sha256Of(Buffer.from(text)));
      assert.equal(window.content?.toString(), text);
    }
    // Which path each took: a change at the synchronous read's check point is seen only at the limit.
    for (const [name, path] of [
      ['at.txt', 'synchronous'],
      ['over.txt', 'streaming'],
    ] as const) {
      const signal = changeAtFirstCheck(() => appendFileSync(join(directory, name), 'grown\n'));
      const result = await readTextWindow(join(directory, name), { offset: 250, limit: 10, signal });
      if (path === 'synchronous') assert.equal(expectError(result).code, 'FS_STALE_VERSION');
      else assert.equal(signal.checks, 0, 'a one-chunk streaming read never asks the signal');
    }
  });

  it('fails with FS_STALE_VERSION when a small file grows between the stat of its descriptor and the read (RE-8)', async (t) => {
    const directory = await localTempDir(t);
    if (!directory) return t.skip('no local file system for temp files');
    const file = join(directory, 'small.txt');
    writeFileSync(file, numbered(200));
    const signal = changeAtFirstCheck(() => appendFileSync(file, 'appended while reading\n'));
    const error = expectError(await readTextWindow(file, { offset: 0, limit: 40, signal }));
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.match(error.message, /changed while it was being read/);
    assert.equal(signal.checks, 1);
  });

  it('refuses a FIFO with NOT_A_FILE without blocking on it (RE-8)', async (t) => {
    const fifo = join(await tempDir(t), 'pipe');
    if (!(await mkfifo(fifo))) return t.skip('mkfifo is not available');
    assert.equal(expectError(await readTextWindow(fifo)).code, 'NOT_A_FILE');
  });
});
