// The baseline MCP server of the serve benchmark: the MCP SDK's own low-level server over stdio with
// one read_file tool that reads the file raw and numbers the window's lines, with no policy,
// validation, evidence or shaping. Whatever toolhost serve costs beyond this is toolhost's.
//
//   node bare-mcp-server.mjs ROOT
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const root = process.argv[2];
if (!root) throw new Error('usage: bare-mcp-server.mjs ROOT');
const server = new Server({ name: 'bare-read-file', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'read_file',
      description: 'Reads a window of lines of a file.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
        required: ['path'],
      },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { path, offset = 0, limit = 2000 } = request.params.arguments ?? {};
  const lines = (await readFile(join(root, String(path)), 'utf8')).split('\n');
  let text = '';
  for (let index = offset; index < offset + limit && index < lines.length; index += 1) {
    text += `${String(index + 1).padStart(6)}→${lines[index]}\n`;
  }
  return { content: [{ type: 'text', text }] };
});
await server.connect(new StdioServerTransport());
