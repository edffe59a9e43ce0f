import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolhostError, ToolResult } from '@toolhost/contracts';
import { toToolMessage } from '../src/tool-message.js';

describe('toToolMessage', () => {
  it('keeps text and image blocks and turns resource links into text', () => {
    const result: ToolResult = {
      ok: true,
      output: {
        content: [
          { type: 'text', text: 'done' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' },
        ],
      },
    };
    assert.deepEqual(toToolMessage({ toolCallId: 'c1', toolName: 'read_file', result }), {
      role: 'tool',
      toolCallId: 'c1',
      toolName: 'read_file',
      isError: false,
      content: [
        { type: 'text', text: 'done' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'Resource: a.txt <file:///a.txt>' },
      ],
    });
  });

  it('marks a failure as an error and puts the error text first', () => {
    const error = {
      toModelText: () => 'COMMAND_FAILED: exit 1; read the output',
    } as unknown as ToolhostError;
    const message = toToolMessage({
      toolCallId: 'c2',
      toolName: 'bash',
      result: { ok: false, error, output: { content: [{ type: 'text', text: 'stderr tail' }] } },
    });
    assert.equal(message.isError, true);
    assert.deepEqual(message.content, [
      { type: 'text', text: 'COMMAND_FAILED: exit 1; read the output' },
      { type: 'text', text: 'stderr tail' },
    ]);
  });
});
