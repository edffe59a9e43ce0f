import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createToolRegistry, schemaFingerprint } from '../src/index.js';
import { sampleTool } from './helpers.js';

describe('createToolRegistry', () => {
  // CT-REG-1
  it('throws when a name is registered twice', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('read_file'));
    assert.throws(() => registry.register(sampleTool('read_file')), /already registered/);
  });

  it('throws when an alias collides with a name or another alias', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('job_output', { aliases: ['bash_output'] }));
    assert.throws(() => registry.register(sampleTool('bash_output')), /already registered/);
    assert.throws(
      () => registry.register(sampleTool('other', { aliases: ['job_output'] })),
      /already registered/,
    );
    assert.throws(() => registry.register(sampleTool('third', { aliases: ['x', 'x'] })), /repeats an alias/);
  });

  it('throws when modelTool.name differs from the tool name', () => {
    const registry = createToolRegistry();
    const tool = sampleTool('read_file');
    assert.throws(
      () => registry.register({ ...tool, modelTool: { ...tool.modelTool, name: 'read' } }),
      /must equal the tool name/,
    );
  });

  const badBuiltinNames = [
    '',
    '1read',
    'read.file',
    'mcp/server/tool',
    'has space',
    'a'.repeat(65),
    'ünïcode',
  ];
  for (const name of badBuiltinNames) {
    it(`rejects the built-in name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}`, () => {
      assert.throws(() => createToolRegistry().register(sampleTool(name)), /does not match/);
    });
  }

  const goodBuiltinNames = ['read_file', '_private', 'a', 'job-kill', `a${'b'.repeat(63)}`];
  for (const name of goodBuiltinNames) {
    it(`accepts the built-in name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…` : name)}`, () => {
      assert.equal(createToolRegistry().register(sampleTool(name)).name, name);
    });
  }

  it('accepts MCP names with dots and slashes but not control characters', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('server.tool/v1', { source: 'mcp' }));
    assert.throws(() => registry.register(sampleTool('bad\nname', { source: 'mcp' })), /does not match/);
  });

  it('rejects a non-positive timeout and an unknown group', () => {
    assert.throws(
      () =>
        createToolRegistry().register(
          sampleTool('x', { execution: { mode: 'parallel', timeoutMs: 0, abortable: true } }),
        ),
      /timeoutMs/,
    );
    assert.throws(
      // biome-ignore lint/suspicious/noExplicitAny: deliberately wrong input
      () => createToolRegistry().register(sampleTool('x', { group: 'nope' as any })),
      /unknown group/,
    );
  });

  it('lists in the fixed group order and by name inside each group, whatever the registration order', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('bash', { group: 'shell_builtins' }));
    registry.register(sampleTool('write_file', { group: 'editing_builtins' }));
    registry.register(sampleTool('read_file'));
    registry.register(sampleTool('use_capability', { group: 'utility_builtins' }));
    registry.register(sampleTool('edit_file', { group: 'editing_builtins' }));
    registry.register(sampleTool('grep'));
    assert.deepEqual(
      registry.list().map((tool) => tool.name),
      ['use_capability', 'grep', 'read_file', 'edit_file', 'write_file', 'bash'],
    );
  });

  it('keeps hidden tools out of the default listing but finds them by name', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('job_output'));
    registry.register(sampleTool('bash_output', { visibility: 'hidden' }));
    assert.deepEqual(
      registry.list().map((tool) => tool.name),
      ['job_output'],
    );
    assert.deepEqual(
      registry.list({ visibility: 'hidden' }).map((tool) => tool.name),
      ['bash_output'],
    );
    assert.deepEqual(
      registry.list({ visibility: 'all' }).map((tool) => tool.name),
      ['bash_output', 'job_output'],
    );
    assert.equal(registry.get('bash_output')?.name, 'bash_output');
    assert.equal(registry.size, 2);
  });

  it('looks tools up by alias and says which alias matched', () => {
    const registry = createToolRegistry();
    registry.register(sampleTool('job_kill', { aliases: ['stop_job'] }));
    assert.equal(registry.lookup('job_kill')?.alias, undefined);
    assert.equal(registry.lookup('stop_job')?.tool.name, 'job_kill');
    assert.equal(registry.lookup('stop_job')?.alias, 'stop_job');
    assert.equal(registry.has('stop_job'), true);
    assert.equal(registry.lookup('nope'), undefined);
  });

  it('canonicalises each schema once, freezes it and records its fingerprint', () => {
    const registry = createToolRegistry();
    const tool = registry.register(sampleTool('read_file'));
    assert.equal(tool.canonicalSchemaJson, '{"properties":{"path":{"type":"string"}},"type":"object"}');
    assert.equal(tool.schemaFingerprint, schemaFingerprint(tool.definition.modelTool.inputSchema));
    assert.equal(tool.schemaHash.slice(0, 16), tool.schemaFingerprint);
    assert.equal(Object.isFrozen(tool.canonicalSchema), true);
    assert.equal(Object.isFrozen(tool.canonicalSchema.properties), true);
  });
});
