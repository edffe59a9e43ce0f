// Measures use_capability list / search / inspect with 50 configured MCP servers whose caches hold
// 12 tools each, with and without RESOURCES resources (default 200), a tenth as many resource
// templates and prompts per server, side by side, and proves that no process starts.
//   pnpm --filter @toolhost/capability-proxy measure:content
//   RESOURCES=20 pnpm --filter @toolhost/capability-proxy measure:content
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createArgumentValidator, type ToolCallContext } from '@toolhost/contracts';
import { createCapabilityProxy, type McpServersConfig, parseMcpServers } from '../src/index.js';
import { normalizePrompts, normalizeResources, normalizeTemplates } from '../src/mcp-resources.js';
import { normalizeMcpTools, writeSchemaCache } from '../src/mcp-tools.js';

const SERVERS = 50;
const RESOURCES = Number(process.env.RESOURCES ?? 200);
const OTHERS = Math.max(1, Math.round(RESOURCES / 10));
const context = (callId: string): ToolCallContext => ({
  callId,
  toolName: 'use_capability',
  signal: new AbortController().signal,
  invocation: { kind: 'direct' },
});

function setUp(withContent: boolean): { stateDir: string; mcpServers: McpServersConfig } {
  const stateDir = mkdtempSync(join(tmpdir(), 'measure-content-'));
  const mcpServers: McpServersConfig = {};
  for (let index = 0; index < SERVERS; index++) {
    mcpServers[`server${index}`] = { command: '/nonexistent/never-started', args: [String(index)] };
  }
  const parsed = parseMcpServers(mcpServers);
  if (!parsed.ok) throw parsed.error;
  const validator = createArgumentValidator();
  for (const server of parsed.value) {
    const tools = normalizeMcpTools(
      Array.from({ length: 12 }, (_, index) => ({
        name: `tool_${index}`,
        description: `does thing ${index} for ${server.name}`,
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      })),
      validator,
    ).tools;
    const content = withContent
      ? {
          resources: normalizeResources(
            Array.from({ length: RESOURCES }, (_, index) => ({
              uri: `file:///docs/${server.name}/page-${index}.md`,
              name: `page-${index}.md`,
              mimeType: 'text/markdown',
              description: `documentation page ${index}`,
            })),
          ).items,
          templates: normalizeTemplates(
            Array.from({ length: OTHERS }, (_, index) => ({
              uriTemplate: `db://${server.name}/table${index}/{id}`,
              name: `table ${index} row`,
            })),
          ).items,
          prompts: normalizePrompts(
            Array.from({ length: OTHERS }, (_, index) => ({
              name: `prompt-${index}`,
              description: `a prompt about topic ${index}`,
              arguments: [{ name: 'topic', required: true }],
            })),
          ).items,
        }
      : undefined;
    writeSchemaCache(stateDir, server, tools, content);
  }
  return { stateDir, mcpServers };
}

async function median(label: string, withContent: boolean, args: Record<string, unknown>): Promise<number> {
  const { stateDir, mcpServers } = setUp(withContent);
  const times: number[] = [];
  let started = 0;
  try {
    for (let round = 0; round < 15; round++) {
      // A fresh proxy each round: the caches are read cold, as a new session reads them.
      const proxy = createCapabilityProxy({
        stateDir,
        mcpServers,
        authorize: async () => ({ allowed: true }),
      });
      const begin = process.hrtime.bigint();
      const result = await proxy.tool.execute(args as never, context(`c${round}`));
      times.push(Number(process.hrtime.bigint() - begin) / 1e6);
      if (!result.ok) throw new Error(`${label}: ${result.error.message}`);
      started += proxy.serverProcesses().length;
      await proxy.close();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  const value = times[Math.floor(times.length / 2)] as number;
  console.log(
    `${label.padEnd(52)} ${withContent ? 'with content' : 'tools only  '} median ${value.toFixed(2)} ms; processes started: ${started}`,
  );
  return value;
}

for (const [label, args] of [
  ['list (cold caches)', { action: 'list' }],
  ['search "documentation page 7" (cold caches)', { action: 'search', query: 'documentation page 7' }],
  ['inspect mcp-server:server7 (cold caches)', { action: 'inspect', capability_id: 'mcp-server:server7' }],
] as const) {
  const base = await median(label, false, args);
  const more = await median(label, true, args);
  console.log(`  ratio ${(more / base).toFixed(2)}x`);
}
