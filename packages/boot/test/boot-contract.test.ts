import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { canonicalSchemaJson, type JsonObject } from '@toolhost/contracts';
import { DIALECT_NAMES, type DialectName, getDialect } from '@toolhost/provider-dialects';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
  hosts.push(created);
  return created;
}
beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

/** Name, description and parameters of one tool in a request body, whatever the dialect's wrapping. */
function wireTools(
  dialect: DialectName,
  body: JsonObject,
): { name: string; description: string; schema: unknown }[] {
  const tools = (
    dialect === 'gemini'
      ? ((body.tools as JsonObject[] | undefined)?.[0]?.functionDeclarations ?? [])
      : (body.tools ?? [])
  ) as JsonObject[];
  return tools.map((tool) => {
    switch (dialect) {
      case 'openai-chat': {
        const fn = tool.function as JsonObject;
        return { name: String(fn.name), description: String(fn.description), schema: fn.parameters };
      }
      case 'openai-responses':
        return { name: String(tool.name), description: String(tool.description), schema: tool.parameters };
      case 'anthropic':
        return { name: String(tool.name), description: String(tool.description), schema: tool.input_schema };
      default:
        return {
          name: String(tool.name),
          description: String(tool.description),
          schema: tool.parametersJsonSchema ?? tool.parameters,
        };
    }
  });
}

// reasonix-notes §1.6 / §10 behaviour 9, the seed's TestBootToolContractMatchesProviderVisibleSurface:
// every tool in a real compiled request has a contract entry with the same trimmed description and
// byte-identical canonical schema.
describe('TestBootToolContractMatchesProviderVisibleSurface', () => {
  for (const surface of ['lean', 'full'] as const) {
    for (const dialect of DIALECT_NAMES) {
      it(`holds for the ${surface} surface in a real ${dialect} request`, async () => {
        const h = await host({ surface, sandbox: 'workspace_write' });
        const compiled = h.providerTools(dialect);
        const request = getDialect(dialect).buildRequest({
          model: 'test-model',
          messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
          tools: compiled,
        });
        // The built-in surface compiles without a single lossy step in every dialect, so the bytes
        // below can be compared exactly; a built-in schema a provider cannot take shows up here.
        assert.deepEqual(compiled.report, []);
        const sent = wireTools(dialect, request.body);
        assert.equal(sent.length, h.surfaceNames().length, 'every surface tool is sent, nothing else');
        for (const tool of sent) {
          const neutral = compiled.nameMap.fromWire[tool.name] ?? tool.name;
          const entry = h.registry.get(neutral);
          assert.ok(entry, `${tool.name} has a contract entry`);
          assert.equal(tool.description, entry.definition.modelTool.description.trim());
          assert.equal(JSON.stringify(tool.schema), entry.canonicalSchemaJson, `${tool.name} schema bytes`);
          assert.equal(canonicalSchemaJson(tool.schema), entry.canonicalSchemaJson);
        }
        // Runtime facts never leave the host: each wire tool has only its dialect's own keys.
        const allowed: Record<DialectName, string[]> = {
          'openai-chat': ['type', 'function', 'name', 'description', 'parameters', 'strict'],
          'openai-responses': ['type', 'name', 'description', 'parameters', 'strict'],
          anthropic: ['name', 'description', 'input_schema', 'cache_control'],
          gemini: ['name', 'description', 'parametersJsonSchema', 'parameters'],
        };
        const wire = (
          dialect === 'gemini'
            ? ((request.body.tools as JsonObject[])[0]?.functionDeclarations ?? [])
            : request.body.tools
        ) as JsonObject[];
        for (const tool of wire) {
          const keys = [
            ...Object.keys(tool),
            ...Object.keys((tool.function as JsonObject | undefined) ?? {}),
          ];
          assert.deepEqual(
            keys.filter((key) => !allowed[dialect].includes(key)),
            [],
            JSON.stringify(keys),
          );
        }
        const bytes = JSON.stringify(request.body.tools);
        assert.ok(!bytes.includes('connect_tool_source'));
      });
    }
  }

  it('marks the read-only flags the scheduler relies on', async () => {
    const h = await host({ sandbox: 'workspace_write' });
    assert.equal(h.registry.get('read_file')?.definition.annotations.readOnly, true);
    assert.equal(h.registry.get('write_file')?.definition.annotations.readOnly, false);
    assert.equal(h.registry.get('use_capability')?.definition.annotations.readOnly, true);
  });
});
