import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toToolOutput } from '../src/mcp-content.js';

const origin = { server: 's', tool: 't', capabilityId: 'mcp-tool:s/t' };

describe('toToolOutput', () => {
  it('keeps text, images, resource links and structured content, marked untrusted', () => {
    const output = toToolOutput(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          {
            type: 'resource',
            resource: { uri: 'file:///b.txt', mimeType: 'text/plain', text: 'inner text' },
          },
          { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAA' } },
          { type: 'audio', data: 'AAAAAA==', mimeType: 'audio/wav' },
        ],
        structuredContent: { answer: 42 },
      },
      origin,
    );
    assert.equal(output.untrusted, true);
    assert.deepEqual(output.structuredContent, { answer: 42 });
    assert.deepEqual(output.content, [
      { type: 'text', text: 'hello' },
      { type: 'image', mimeType: 'image/png', data: 'aGVsbG8=' },
      { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
      { type: 'text', text: '[resource file:///b.txt (text/plain)]\ninner text' },
      { type: 'text', text: '[binary resource file:///c.bin, 3 bytes, not shown]' },
      { type: 'resource_link', uri: 'file:///c.bin' },
      { type: 'text', text: '[audio (audio/wav), 4 bytes, not shown]' },
    ]);
    assert.equal(output.details?.remoteDispatched, true);
  });

  it('shows structured content as text when the server sent nothing else, and handles legacy and empty results', () => {
    assert.deepEqual(toToolOutput({ content: [], structuredContent: { a: 1 } }, origin).content, [
      { type: 'text', text: '{\n  "a": 1\n}' },
    ]);
    assert.deepEqual(toToolOutput({ toolResult: 'old style' }, origin).content, [
      { type: 'text', text: '"old style"' },
    ]);
    assert.deepEqual(toToolOutput({ content: [] }, origin).content, [
      { type: 'text', text: '(the MCP tool returned no content)' },
    ]);
  });
});
