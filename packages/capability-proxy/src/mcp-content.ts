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

/** Where a `resources/read` or `prompts/get` result came from, for `details`. */
export interface McpContentOrigin {
  readonly server: string;
  readonly capabilityId: string;
}

/** Blob MIME types shown as image content (what providers accept as images); others are summarised. */
const IMAGE_MIME_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The largest blob passed on as image content, in decoded bytes (larger ones are summarised). */
export const MCP_IMAGE_RESOURCE_MAX_BYTES = 5 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function shortUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri === '') return '(no uri)';
  return uri.length > 512 ? `${uri.slice(0, 509)}...` : uri;
}

function shortMime(mime: unknown): string | undefined {
  return typeof mime === 'string' && mime !== '' ? mime.slice(0, 128) : undefined;
}

/**
 * Turns a `resources/read` result into neutral content: each text content becomes text headed by
 * its URI and MIME type (the host shapes it like any result: cut at its budget, the whole kept for
 * `session:tool_result`); a blob whose MIME type is a common image type (at most
 * {@link MCP_IMAGE_RESOURCE_MAX_BYTES}) becomes image content; any other blob becomes a value-free
 * note with its size and MIME type, and a resource link. Always `untrusted: true`.
 */
export function toResourceOutput(result: unknown, origin: McpContentOrigin): ToolOutput {
  const record = isJsonObject(result) ? result : {};
  const items = Array.isArray(record.contents) ? record.contents : [];
  const content: ContentBlock[] = [];
  const types: string[] = [];
  let textBytes = 0;
  let blobBytes = 0;
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    const uri = shortUri(item.uri);
    const mimeType = shortMime(item.mimeType);
    const label = `${uri}${mimeType ? ` (${mimeType})` : ''}`;
    if (typeof item.text === 'string') {
      types.push('text');
      textBytes += Buffer.byteLength(item.text, 'utf8');
      content.push({ type: 'text', text: `[resource ${label}]\n${item.text}` });
    } else if (typeof item.blob === 'string') {
      const size = base64Bytes(item.blob);
      blobBytes += size;
      if (
        mimeType !== undefined &&
        IMAGE_MIME_TYPES.has(mimeType.toLowerCase()) &&
        size <= MCP_IMAGE_RESOURCE_MAX_BYTES &&
        BASE64.test(item.blob)
      ) {
        types.push('image');
        content.push({ type: 'text', text: `[image resource ${label}, ${size} bytes]` });
        content.push({ type: 'image', mimeType: mimeType.toLowerCase(), data: item.blob });
      } else {
        types.push('blob');
        content.push({
          type: 'text',
          text: `[binary resource ${label}, ${size} bytes, not shown: its bytes are not text]`,
        });
        if (typeof item.uri === 'string' && item.uri !== '') {
          content.push({ type: 'resource_link', uri: item.uri, ...(mimeType ? { mimeType } : {}) });
        }
      }
    } else {
      types.push('empty');
      content.push({ type: 'text', text: `[resource ${label}: neither text nor blob]` });
    }
  }
  if (content.length === 0) content.push({ type: 'text', text: '(the resource has no contents)' });
  return {
    content,
    untrusted: true,
    details: {
      server: origin.server,
      capabilityId: origin.capabilityId,
      contents: types.length,
      contentTypes: types,
      textBytes,
      blobBytes,
      remoteDispatched: true,
    },
  };
}

/**
 * Turns a `prompts/get` result into neutral content: its description, then each message headed by
 * its role, with the message's content converted as a tool result's is (text, images, embedded
 * resources as text or a note). Always `untrusted: true`: a prompt is third-party text.
 */
export function toPromptOutput(
  result: unknown,
  origin: McpContentOrigin & { readonly prompt: string },
): ToolOutput {
  const record = isJsonObject(result) ? result : {};
  const messages = Array.isArray(record.messages) ? record.messages : [];
  const content: ContentBlock[] = [];
  const head = `[prompt ${origin.prompt.slice(0, 128)} of MCP server "${origin.server}", ${messages.length} message${messages.length === 1 ? '' : 's'}]`;
  const description = typeof record.description === 'string' ? record.description.trim().slice(0, 2_048) : '';
  content.push({ type: 'text', text: description ? `${head}\n${description}` : head });
  const roles: string[] = [];
  for (const message of messages) {
    if (!isJsonObject(message)) continue;
    const role = message.role === 'user' || message.role === 'assistant' ? message.role : 'unknown';
    roles.push(role);
    const converted = toToolOutput(
      { content: isJsonObject(message.content) ? [message.content] : [] },
      { server: origin.server, tool: origin.prompt, capabilityId: origin.capabilityId },
    ).content;
    const [first, ...others] = converted;
    if (first?.type === 'text') content.push({ type: 'text', text: `[${role}]\n${first.text}` }, ...others);
    else content.push({ type: 'text', text: `[${role}]` }, ...converted);
  }
  return {
    content,
    untrusted: true,
    details: {
      server: origin.server,
      prompt: origin.prompt,
      capabilityId: origin.capabilityId,
      messages: roles.length,
      roles,
      remoteDispatched: true,
    },
  };
}
