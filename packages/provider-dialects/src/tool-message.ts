import type { ContentBlock, ToolResult } from '@toolhost/contracts';
import type { ToolMessage, ToolResultContentPart } from './ir.js';

/** Options of {@link toToolMessage}. */
export interface ToToolMessageOptions {
  readonly toolCallId: string;
  /** The neutral tool name. */
  readonly toolName: string;
  readonly result: ToolResult;
}

/**
 * Turns a contract `ToolResult` into the neutral tool message: text and image blocks are kept,
 * resource links become a text line; a failure becomes `isError: true` with the error's model
 * text (`CODE: cause; recovery`) first, followed by any output the failure carried.
 */
export function toToolMessage(options: ToToolMessageOptions): ToolMessage {
  const { result } = options;
  const content: ToolResultContentPart[] = [];
  if (!result.ok) content.push({ type: 'text', text: result.error.toModelText() });
  for (const block of result.output?.content ?? []) {
    const part = partOf(block);
    if (part) content.push(part);
  }
  return {
    role: 'tool',
    toolCallId: options.toolCallId,
    toolName: options.toolName,
    isError: !result.ok,
    content,
  };
}

function partOf(block: ContentBlock): ToolResultContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', mimeType: block.mimeType, data: block.data };
    case 'resource_link':
      return { type: 'text', text: `Resource: ${block.name ?? block.uri} <${block.uri}>` };
    default:
      return undefined;
  }
}
