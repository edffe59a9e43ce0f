import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { canonicalSchemaJson, type JsonObject } from '@toolhost/contracts';
import { DIALECT_NAMES, type DialectName, getDialect } from '@toolhost/provider-dialects';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { tempRoot, thrower } from './helpers.js';

const thrower2 = () => ({
  ...thrower(),
  name: 'test_throw2',
  modelTool: { ...thrower().modelTool, name: 'test_throw2' },
});

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

// BT-SURF-6, the seed's TestBootToolContractMatchesProviderVisibleSurface:
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

  const expected: Record<string, string[]> = {
    'posix read_only lean': ['bash', 'job_kill', 'job_output', 'read_file', 'use_capability', 'view_image'],
    'posix workspace_write lean': [
      'bash',
      'edit_file',
      'job_kill',
      'job_output',
      'read_file',
      'use_capability',
      'view_image',
      'write_file',
    ],
    'posix read_only full': [
      'bash',
      'code_index',
      'create_goal',
      'get_goal',
      'glob',
      'grep',
      'job_kill',
      'job_output',
      'ls',
      'present',
      'read_file',
      'todo_write',
      'update_goal',
      'use_capability',
      'view_image',
      'web_fetch',
    ],
    'posix workspace_write full': [
      'bash',
      'code_index',
      'create_goal',
      'delete_range',
      'delete_symbol',
      'edit_file',
      'get_goal',
      'glob',
      'grep',
      'job_kill',
      'job_output',
      'ls',
      'move_file',
      'multi_edit',
      'notebook_edit',
      'present',
      'read_file',
      'todo_write',
      'update_goal',
      'use_capability',
      'view_image',
      'web_fetch',
      'write_file',
    ],
  };
  for (const [key, names] of Object.entries(expected)) {
    const [, sandbox, surface] = key.split(' ') as [string, 'read_only' | 'workspace_write', 'lean' | 'full'];
    for (const platform of ['posix', 'windows'] as const) {
      const want =
        platform === 'posix' ? names : names.map((name) => (name === 'bash' ? 'pwsh' : name)).sort();
      it(`offers exactly ${want.join(', ')} on ${platform}, ${sandbox}, ${surface} (BT-SURF-2)`, async () => {
        const h = await host({ platform, sandbox, surface });
        assert.deepEqual([...h.surfaceNames()], want);
        assert.deepEqual(
          h.modelTools().map((tool) => tool.name),
          want,
        );
        // Hidden legacy aliases and internal tools are registered (callable) but on no surface.
        for (const hidden of ['bash_output', 'kill_shell', 'wait']) {
          assert.ok(h.registry.get(hidden), `${hidden} is registered`);
          assert.ok(!h.surfaceNames().includes(hidden));
        }
        assert.ok(!h.surfaceNames().includes('connect_tool_source'));
      });
    }
  }

  it('never puts extra tools on the surface, whatever their source', async () => {
    const plain = await host({ surface: 'full' });
    const extra = await host({ surface: 'full', tools: [{ ...thrower(), source: 'builtin' }, thrower2()] });
    assert.deepEqual(extra.surfaceNames(), plain.surfaceNames());
    assert.ok(extra.registry.get('test_throw'));
  });

  it('keeps danger_full_access surfaces equal to workspace_write ones', async () => {
    for (const surface of ['lean', 'full'] as const) {
      const a = await host({ sandbox: 'danger_full_access', surface });
      const b = await host({ sandbox: 'workspace_write', surface });
      assert.equal(JSON.stringify(a.modelTools()), JSON.stringify(b.modelTools()));
    }
  });

  it('serialises the surface byte-identically across calls and hosts with the same options', async () => {
    const a = await host({ surface: 'full' });
    const b = await host({ surface: 'full' });
    assert.equal(JSON.stringify(a.modelTools()), JSON.stringify(b.modelTools()));
    assert.equal(a.surfaceFingerprint(), b.surfaceFingerprint());
    assert.match(a.surfaceFingerprint(), /^[0-9a-f]{16}$/);
    for (const dialect of DIALECT_NAMES) {
      assert.equal(a.providerTools(dialect), a.providerTools(dialect), 'computed once');
      assert.equal(
        JSON.stringify(a.providerTools(dialect).tools),
        JSON.stringify(b.providerTools(dialect).tools),
      );
    }
    assert.notEqual((await host({ surface: 'lean' })).surfaceFingerprint(), a.surfaceFingerprint());
    assert.ok(Object.isFrozen(a.modelTools()) && Object.isFrozen(a.providerTools('anthropic').tools));
  });

  it('marks the read-only flags the scheduler relies on', async () => {
    const h = await host({ sandbox: 'workspace_write' });
    assert.equal(h.registry.get('read_file')?.definition.annotations.readOnly, true);
    assert.equal(h.registry.get('write_file')?.definition.annotations.readOnly, false);
    assert.equal(h.registry.get('use_capability')?.definition.annotations.readOnly, true);
  });
});
