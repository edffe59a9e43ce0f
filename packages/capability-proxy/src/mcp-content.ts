import { type ContentBlock, isJsonObject, type ToolOutput } from '@toolhost/contracts';

/** Where an MCP result came from, for `details`. */
export interface McpResultOrigin {
  readonly server: string;
  readonly tool: string;
  readonly capabilityId: string;
}

/**
 * Turns an MCP `tools/call` result into neutral content: text stays text, images stay images,
 * resource links stay links, an embedded text resource becomes text headed by its URI, and binary
 * payloads (audio, blob resources) become a short text note rather than base64 the model cannot
 * read. `structuredContent` is kept as is; when the server sent only structured content, its JSON
 * is added as text so the model sees it. Always `untrusted: true`: it is third-party text.
 */
export function toToolOutput(result: unknown, origin: McpResultOrigin): ToolOutput {
  const record = isJsonObject(result) ? result : {};
  const content: ContentBlock[] = [];
  const types: string[] = [];
  const items = Array.isArray(record.content) ? record.content : [];
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    const type = typeof item.type === 'string' ? item.type : 'unknown';
    types.push(type);
    if (type === 'text' && typeof item.text === 'string') {
      content.push({ type: 'text', text: item.text });
    } else if (type === 'image' && typeof item.data === 'string' && typeof item.mimeType === 'string') {
      content.push({ type: 'image', mimeType: item.mimeType, data: item.data });
    } else if (type === 'resource_link' && typeof item.uri === 'string') {
      content.push({
        type: 'resource_link',
        uri: item.uri,
        ...(typeof item.name === 'string' ? { name: item.name } : {}),
        ...(typeof item.mimeType === 'string' ? { mimeType: item.mimeType } : {}),
        ...(typeof item.description === 'string' ? { description: item.description } : {}),
      });
    } else if (type === 'resource' && isJsonObject(item.resource)) {
      const resource = item.resource;
      const uri = typeof resource.uri === 'string' ? resource.uri : '(no uri)';
      const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
      if (typeof resource.text === 'string') {
        content.push({
          type: 'text',
          text: `[resource ${uri}${mimeType ? ` (${mimeType})` : ''}]\n${resource.text}`,
        });
      } else {
        const size = typeof resource.blob === 'string' ? base64Bytes(resource.blob) : 0;
        content.push({
          type: 'text',
          text: `[binary resource ${uri}${mimeType ? ` (${mimeType})` : ''}, ${size} bytes, not shown]`,
        });
        content.push({ type: 'resource_link', uri, ...(mimeType ? { mimeType } : {}) });
      }
    } else if (type === 'audio') {
      const size = typeof item.data === 'string' ? base64Bytes(item.data) : 0;
      const mimeType = typeof item.mimeType === 'string' ? item.mimeType : 'audio';
      content.push({ type: 'text', text: `[audio (${mimeType}), ${size} bytes, not shown]` });
    } else {
      content.push({
        type: 'text',
        text: `[content of type ${JSON.stringify(type).slice(0, 40)} not shown]`,
      });
    }
  }
  const structuredContent = record.structuredContent;
  // Protocol revisions before content blocks returned `toolResult`.
  if (items.length === 0 && record.toolResult !== undefined) {
    content.push({ type: 'text', text: stringify(record.toolResult) });
    types.push('toolResult');
  }
  if (content.length === 0 && structuredContent !== undefined) {
    content.push({ type: 'text', text: stringify(structuredContent) });
  }
  if (content.length === 0) content.push({ type: 'text', text: '(the MCP tool returned no content)' });
  return {
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    untrusted: true,
    details: {
      server: origin.server,
      tool: origin.tool,
      capabilityId: origin.capabilityId,
      isError: record.isError === true,
      contentTypes: types,
      remoteDispatched: true,
    },
  };
}

function stringify(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
