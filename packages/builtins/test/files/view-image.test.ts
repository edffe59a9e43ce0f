import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { createViewImageTool } from '../../src/index.js';
import { call, failure, makeTree, type Tree, writeTree } from '../grep/grep-fixtures.js';

// Real image files, built byte by byte: a decodable PNG, and JPEG / GIF / WebP / BMP files whose
// headers are what encoders write.

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGBA PNG of the given size (IDAT holds real pixel rows unless `headerOnly`). */
function png(width: number, height: number, headerOnly = false): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = headerOnly ? Buffer.alloc(0) : Buffer.alloc(height * (1 + width * 4), 0x7f);
  if (!headerOnly) for (let row = 0; row < height; row += 1) rows[row * (1 + width * 4)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function jpeg(width: number, height: number): Buffer {
  const frame = Buffer.from([
    0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
  ]);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, frame, Buffer.from([0xff, 0xd9])]);
}

function gif(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return Buffer.concat([header, Buffer.from([0x3b])]);
}

function webp(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.write('RIFF', 0, 'latin1');
  bytes.writeUInt32LE(22, 4);
  bytes.write('WEBP', 8, 'latin1');
  bytes.write('VP8X', 12, 'latin1');
  bytes.writeUInt32LE(10, 16);
  bytes.writeUIntLE(width - 1, 24, 3);
  bytes.writeUIntLE(height - 1, 27, 3);
  return bytes;
}

function bmp(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(54);
  bytes.write('BM', 0, 'latin1');
  bytes.writeUInt32LE(54, 2);
  bytes.writeUInt32LE(40, 14);
  bytes.writeInt32LE(width, 18);
  bytes.writeInt32LE(height, 22);
  return bytes;
}

describe('createViewImageTool', () => {
  let tree: Tree;
  const view = (args: Record<string, unknown>, signal?: AbortSignal) =>
    call(createViewImageTool({ pathPolicy: tree.policy }), args, signal);

  before(async () => {
    tree = await makeTree({
      'img/pixel.png': png(2, 3),
      'img/photo.jpg': jpeg(640, 480),
      'img/anim.gif': gif(16, 9),
      'img/pic.webp': webp(300, 200),
      'img/really-a-jpeg.png': jpeg(10, 20),
      'img/old.bmp': bmp(4, 4),
      'img/notes.txt': 'not an image\n',
      'img/huge-canvas.png': png(10_000, 5_000, true),
      'img/too-big.png': Buffer.concat([png(1, 1), Buffer.alloc(3 * 1024 * 1024)]),
      'certs/logo.pem': png(1, 1),
    });
  });
  after(() => tree.remove());

  it('returns the header "[image: <mime>, <W>x<H>] <path>" and the image as base64', async () => {
    const result = await view({ path: 'img/pixel.png' });
    assert.ok(result.ok);
    assert.deepEqual(result.output.content, [
      { type: 'text', text: '[image: image/png, 2x3] img/pixel.png' },
      { type: 'image', mimeType: 'image/png', data: png(2, 3).toString('base64') },
    ]);
    assert.deepEqual(result.output.details, {
      path: 'img/pixel.png',
      mimeType: 'image/png',
      width: 2,
      height: 3,
      bytes: png(2, 3).length,
    });
  });

  it('reads JPEG, GIF and WebP, taking the format from the file header, not its name', async () => {
    const cases: Array<[string, string]> = [
      ['img/photo.jpg', '[image: image/jpeg, 640x480] img/photo.jpg'],
      ['img/anim.gif', '[image: image/gif, 16x9] img/anim.gif'],
      ['img/pic.webp', '[image: image/webp, 300x200] img/pic.webp'],
      ['img/really-a-jpeg.png', '[image: image/jpeg, 10x20] img/really-a-jpeg.png'],
    ];
    for (const [file, header] of cases) {
      const result = await view({ path: file });
      assert.ok(result.ok, file);
      assert.deepEqual(result.output.content[0], { type: 'text', text: header });
      assert.equal(result.output.content[1]?.type, 'image');
    }
  });

  it('refuses other formats and text with FILE_UNSUPPORTED', async () => {
    const bmpRefusal = failure(await view({ path: 'img/old.bmp' }));
    assert.equal(bmpRefusal.code, 'FILE_UNSUPPORTED');
    assert.match(bmpRefusal.text, /not a PNG, JPEG, GIF or WebP image \(found a BMP header\)/);
    const text = failure(await view({ path: 'img/notes.txt' }));
    assert.equal(text.code, 'FILE_UNSUPPORTED');
    assert.match(text.text, /no known image header/);
  });

  it('refuses files over 3 MiB and images over 40 million pixels with FILE_TOO_LARGE', async () => {
    const big = failure(await view({ path: 'img/too-big.png' }));
    assert.equal(big.code, 'FILE_TOO_LARGE');
    assert.match(big.text, /at most 3145728 bytes/);
    const canvas = failure(await view({ path: 'img/huge-canvas.png' }));
    assert.equal(canvas.code, 'FILE_TOO_LARGE');
    assert.match(canvas.text, /10000x5000 pixels/);
  });

  it('refuses directories, missing files, secret files and paths outside the project', async () => {
    assert.equal(failure(await view({ path: 'img' })).code, 'NOT_A_FILE');
    assert.equal(failure(await view({ path: 'img/none.png' })).code, 'FS_NOT_FOUND');
    assert.equal(failure(await view({ path: 'certs/logo.pem' })).code, 'PATH_PROTECTED');
    assert.equal(failure(await view({ path: '../x.png' })).code, 'PATH_OUTSIDE_ROOT');
    const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-outside-')));
    try {
      await writeFile(path.join(outside, 'out.png'), png(1, 1));
      await writeTree(tree.root, { 'img/link.png': { symlink: path.join(outside, 'out.png') } });
      assert.equal(failure(await view({ path: 'img/link.png' })).code, 'PATH_OUTSIDE_ROOT');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('views an image through a symbolic link inside the project, named by its real path', async () => {
    await writeTree(tree.root, { 'alias.png': { symlink: 'img/pixel.png' } });
    const result = await view({ path: 'alias.png' });
    assert.ok(result.ok);
    assert.deepEqual(result.output.content[0], {
      type: 'text',
      text: '[image: image/png, 2x3] img/pixel.png',
    });
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(failure(await view({ path: 'img/pixel.png' }, controller.signal)).code, 'ABORTED');
  });
});
