import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import { type Json, makeProject, runToolhost, SessionDriver } from './helpers.js';

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real 2x2 RGBA PNG. */
function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header[8] = 8;
  header[9] = 6;
  const rows = Buffer.alloc(2 * (1 + 2 * 4), 0x7f);
  rows[0] = 0;
  rows[9] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function assertImageLine(line: Json, bytes: Buffer): void {
  assert.equal(line.status, 'ok', line.output);
  assert.equal(line.output, '[image: image/png, 2x2] pixel.png');
  assert.deepEqual(line.content, [
    { type: 'text', text: '[image: image/png, 2x2] pixel.png' },
    { type: 'image', mimeType: 'image/png', data: bytes.toString('base64') },
  ]);
}

describe('view_image results on the JSON lines', () => {
  it('carries the image as {type:"image", mimeType, data} next to the text in toolhost session', async () => {
    const bytes = png();
    const project = await makeProject({ 'pixel.png': bytes, 'notes.txt': 'text\n' });
    const session = SessionDriver.start([], { cwd: project.root });
    try {
      assertImageLine(
        await session.send({ id: 1, name: 'view_image', arguments: { path: 'pixel.png' } }),
        bytes,
      );
      const batch = await session.send({
        batch: [{ id: 2, name: 'view_image', arguments: { path: 'pixel.png' } }],
      });
      assertImageLine(batch.batch[0], bytes);
      // Text-only results keep the line exactly as before: no content field.
      const text = await session.send({ id: 3, name: 'read_file', arguments: { path: 'notes.txt' } });
      assert.equal('content' in text, false);
      const exit = await session.close();
      assert.equal(exit.code, 0, session.stderr);
    } finally {
      session.kill();
      await project.cleanup();
    }
  });

  it('carries it in toolhost call --json', async () => {
    const bytes = png();
    const project = await makeProject({ 'pixel.png': bytes });
    try {
      const run = await runToolhost(['call', 'view_image', '{"path":"pixel.png"}', '--json'], {
        cwd: project.root,
      });
      assert.equal(run.code, 0, run.stderr);
      assertImageLine(JSON.parse(run.stdout), bytes);
    } finally {
      await project.cleanup();
    }
  });
});
