// Requirements cited: RE-15 (text codecs). See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import {
  convertLineEndings,
  decodeText,
  decodeTextForRewrite,
  detectTextEncoding,
  encodeEditedText,
  encodeText,
  lineLayoutOf,
} from '../src/index.js';
import { expectError, expectOk } from './helpers.js';

const chinese =
  '这是一个用于测试编码检测的中文文本文件。它包含多行内容。\n第二行：编辑工具必须保留原始编码。\n第三行：读取、修改、写回。\n';
const japanese =
  'これは文字コード検出のテスト用の日本語テキストです。\n二行目：編集ツールは元のエンコーディングを保持します。\n三行目：読み込み、変更、書き戻し。\n';

describe('decodeText', () => {
  it('decodes UTF-8 without a BOM and reports LF and the final newline (RE-15)', () => {
    const decoded = expectOk(decodeText(Buffer.from('a\nb\n')));
    assert.deepEqual(decoded.encoding, { name: 'utf-8', bom: false });
    assert.equal(decoded.text, 'a\nb\n');
    assert.equal(decoded.lineEnding, 'lf');
    assert.equal(decoded.finalNewline, true);
    assert.equal(decoded.mixed, false);
  });

  it('strips a UTF-8 BOM from the text and remembers it (RE-15)', () => {
    const decoded = expectOk(decodeText(Buffer.from('\ufeffhello\r\nworld', 'utf8')));
    assert.deepEqual(decoded.encoding, { name: 'utf-8', bom: true });
    assert.equal(decoded.text, 'hello\r\nworld');
    assert.equal(decoded.lineEnding, 'crlf');
    assert.equal(decoded.finalNewline, false);
  });

  it('decodes UTF-16 LE and BE with a BOM (RE-15)', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n', 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('héllo\n', 'utf16le').swap16()]);
    assert.deepEqual(expectOk(decodeText(le)), {
      text: 'héllo\n',
      encoding: { name: 'utf-16le', bom: true },
      lineEnding: 'lf',
      mixed: false,
      finalNewline: true,
    });
    assert.equal(expectOk(decodeText(be)).text, 'héllo\n');
    assert.deepEqual(expectOk(decodeText(be)).encoding, { name: 'utf-16be', bom: true });
  });

  it('detects UTF-16 LE without a BOM from its NUL pattern instead of calling it binary (RE-15)', () => {
    const decoded = expectOk(decodeText(Buffer.from('plain ascii text\nsecond line\n', 'utf16le')));
    assert.deepEqual(decoded.encoding, { name: 'utf-16le', bom: false });
    assert.equal(decoded.text, 'plain ascii text\nsecond line\n');
  });

  it('refuses a NUL byte in the first 8 KiB that is not UTF-16 as FILE_BINARY (RE-15)', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48]);
    assert.equal(expectError(decodeText(bytes)).code, 'FILE_BINARY');
    const late = Buffer.concat([Buffer.alloc(9000, 'a'), Buffer.from([0]), Buffer.from('b')]);
    assert.equal(
      expectOk(decodeText(late)).encoding.name,
      'utf-8',
      'a NUL after the first 8 KiB is not sniffed',
    );
  });

  it("refuses a small file with a NUL byte (printf 'ab\\0cd') as FILE_BINARY instead of decoding it as UTF-16 (RE-15)", () => {
    for (const bytes of [
      Buffer.from('ab\0cd', 'latin1'),
      Buffer.from('ab\0c', 'latin1'),
      Buffer.from('\0abc', 'latin1'),
      Buffer.from('x\0yz\0w', 'latin1'),
    ]) {
      assert.equal(
        expectError(decodeText(bytes)).code,
        'FILE_BINARY',
        JSON.stringify(bytes.toString('latin1')),
      );
    }
  });

  it('still detects real UTF-16 without a BOM: a tiny ASCII one, and one mixing CJK with ASCII (RE-15)', () => {
    for (const text of ['hi\n', 'a', '中文说明：这是测试文件。\nname = toolhost test\n']) {
      const le = expectOk(decodeText(Buffer.from(text, 'utf16le')));
      assert.deepEqual(le.encoding, { name: 'utf-16le', bom: false }, text);
      assert.equal(le.text, text);
      const be = expectOk(decodeText(Buffer.from(text, 'utf16le').swap16()));
      assert.deepEqual(be.encoding, { name: 'utf-16be', bom: false }, text);
      assert.equal(be.text, text);
    }
  });

  it('detects GB18030 (GBK) and Shift_JIS and decodes them (RE-15)', () => {
    const gbk = expectOk(decodeText(iconv.encode(chinese, 'gbk')));
    assert.equal(gbk.encoding.name, 'gb18030');
    assert.equal(gbk.text, chinese);
    const sjis = expectOk(decodeText(iconv.encode(japanese, 'shift_jis')));
    assert.equal(sjis.encoding.name, 'shift_jis');
    assert.equal(sjis.text, japanese);
  });

  it('keeps mixed line endings as found and reports the dominant style', () => {
    const decoded = expectOk(decodeText(Buffer.from('a\r\nb\r\nc\nd\re')));
    assert.equal(decoded.text, 'a\r\nb\r\nc\nd\re');
    assert.equal(decoded.lineEnding, 'crlf');
    assert.equal(decoded.mixed, true);
  });

  it('refuses UTF-32 as FILE_UNSUPPORTED', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0, 0, 0x61, 0, 0, 0]);
    assert.equal(expectError(decodeText(bytes)).code, 'FILE_UNSUPPORTED');
  });
});

describe('decodeTextForRewrite', () => {
  it('accepts files that round-trip byte for byte (RE-15)', () => {
    for (const bytes of [
      Buffer.from('\ufeffx\r\ny\r\n'),
      iconv.encode(chinese, 'gbk'),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('a\nb', 'utf16le').swap16()]),
    ]) {
      const decoded = expectOk(decodeTextForRewrite(bytes));
      assert.ok(expectOk(encodeText(decoded.text, decoded.encoding)).equals(bytes));
    }
  });

  it('reads UTF-8 with a stray invalid byte as UTF-8 but refuses to rewrite it', () => {
    const bytes = Buffer.concat([
      Buffer.from('line one ünïcödé\n'.repeat(40)),
      Buffer.from([0xff]),
      Buffer.from('\n'),
    ]);
    const decoded = expectOk(decodeText(bytes));
    assert.equal(decoded.encoding.name, 'utf-8');
    assert.ok(decoded.text.startsWith('line one ünïcödé\n'));
    assert.ok(decoded.text.endsWith('\ufffd\n'));
    const refused = expectError(decodeTextForRewrite(bytes));
    assert.equal(refused.code, 'FILE_UNSUPPORTED');
    assert.match(refused.message, /cannot be written back losslessly/);
  });
});

describe('encodeText', () => {
  it('writes BOMs back and encodes legacy encodings (RE-15)', () => {
    assert.deepEqual([...expectOk(encodeText('a', { name: 'utf-8', bom: true }))], [0xef, 0xbb, 0xbf, 0x61]);
    assert.deepEqual([...expectOk(encodeText('a', { name: 'utf-16be', bom: true }))], [0xfe, 0xff, 0, 0x61]);
    assert.deepEqual([...expectOk(encodeText('a', { name: 'utf-16le', bom: false }))], [0x61, 0]);
    assert.ok(
      expectOk(encodeText('中文', { name: 'gb18030', bom: false })).equals(iconv.encode('中文', 'gbk')),
    );
  });

  it('refuses characters the encoding cannot represent and unpaired surrogates', () => {
    assert.equal(
      expectError(encodeText('中文 😀 Ω', { name: 'shift_jis', bom: false })).code,
      'FILE_UNSUPPORTED',
    );
    assert.equal(
      expectError(encodeText('bad \ud800 surrogate', { name: 'utf-8', bom: false })).code,
      'FILE_UNSUPPORTED',
    );
  });
});

describe('detectTextEncoding', () => {
  it('tolerates a multi-byte character cut at the end of a partial sample', () => {
    const sample = Buffer.from('abc€').subarray(0, 5);
    assert.equal(expectOk(detectTextEncoding(sample, { complete: false })).name, 'utf-8');
  });
});

describe('lineLayoutOf', () => {
  it('reports CR-only files and files without line breaks', () => {
    assert.deepEqual(lineLayoutOf('a\rb\r'), { lineEnding: 'cr', mixed: false, finalNewline: true });
    assert.deepEqual(lineLayoutOf('abc'), { lineEnding: 'lf', mixed: false, finalNewline: false });
  });
});

describe('convertLineEndings', () => {
  it('rewrites every line break style to the requested one', () => {
    assert.equal(convertLineEndings('a\nb\r\nc\rd', 'crlf'), 'a\r\nb\r\nc\r\nd');
    assert.equal(convertLineEndings('a\r\nb', 'lf'), 'a\nb');
  });
});

describe('encodeEditedText', () => {
  it('gives the same bytes as encoding the whole edited text, for every encoding (RE-15)', () => {
    const base = 'alpha βeta 😀 gamma\r\nδ line two\r\n末尾\r\n';
    const encodings = [
      { name: 'utf-8', bom: true },
      { name: 'utf-8', bom: false },
      { name: 'utf-16le', bom: true },
      { name: 'utf-16be', bom: false },
      { name: 'gb18030', bom: false },
    ];
    let seed = 7;
    const random = (limit: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % limit;
    };
    for (const encoding of encodings) {
      const original = expectOk(encodeText(base, encoding));
      const decoded = { text: base, encoding, ...lineLayoutOf(base) };
      for (let round = 0; round < 200; round++) {
        const start = random(base.length + 1);
        const end = start + random(base.length - start + 1);
        const inserted = ['', 'X', 'ünï', '\r\nnew line\r\n', '中'][random(5)]!;
        const text = base.slice(0, start) + inserted + base.slice(end);
        const span = { prefixLength: start, suffixLength: base.length - end };
        const spliced = encodeEditedText(original, decoded, text, span);
        const whole = encodeText(text, encoding);
        assert.equal(spliced.ok, whole.ok, `${encoding.name} round ${round}`);
        if (spliced.ok && whole.ok)
          assert.ok(Buffer.concat(spliced.value).equals(whole.value), `${encoding.name} round ${round}`);
      }
    }
  });
});
