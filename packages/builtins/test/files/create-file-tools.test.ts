// Requirements cited: FILE-1..FILE-3. See ../REQUIREMENTS.md.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createToolRegistry, ERROR_CODES, type ToolCallContext } from '@toolhost/contracts';
import { createPathPolicy } from '@toolhost/path-policy';
import { createObservationStore, EVIDENCE_ERROR_CODES, type ObservationStore } from '@toolhost/read-evidence';
import {
  createDiscoveryTools,
  createFileTools,
  editFileArgumentsSchema,
  readFileArgumentsSchema,
} from '../../src/index.js';
import { callTool, errorOf, fileTools, okText, tempProject } from './file-helpers.js';

describe('createFileTools', () => {
  it('creates the six file tools in their groups with honest annotations', async (t) => {
    const files = await fileTools(t);
    const tools = [...files.tools.values()];
    assert.deepEqual(
      tools.map((tool) => [
        tool.name,
        tool.group,
        tool.category,
        tool.execution.mode,
        tool.execution.abortable,
      ]),
      [
        ['read_file', 'read_only_builtins', 'read', 'parallel', true],
        ['write_file', 'editing_builtins', 'write', 'sequential', false],
        ['edit_file', 'editing_builtins', 'write', 'sequential', false],
        ['multi_edit', 'editing_builtins', 'write', 'sequential', false],
        ['delete_range', 'editing_builtins', 'write', 'sequential', false],
        ['move_file', 'editing_builtins', 'write', 'sequential', false],
      ],
    );
    for (const tool of tools) {
      assert.equal(tool.source, 'builtin');
      assert.equal(tool.modelTool.name, tool.name);
      assert.ok(tool.modelTool.description.length > 80, `${tool.name} explains itself`);
      assert.equal(tool.annotations.openWorld, false);
      assert.equal(tool.annotations.readOnly, tool.name === 'read_file');
      assert.ok(tool.permission?.paths, `${tool.name} declares its paths for the permission step`);
    }
    assert.equal(files.tools.get('read_file')!.modelTool.inputSchema, readFileArgumentsSchema);
    assert.equal(files.tools.get('edit_file')!.modelTool.inputSchema, editFileArgumentsSchema);
    const registry = createToolRegistry();
    for (const tool of tools) registry.register(tool);
    assert.equal(registry.list().length, 6);
  });

  it('uses the configured timeouts and path access', async (t) => {
    const root = await tempProject(t);
    const tools = createFileTools({
      pathPolicy: createPathPolicy({ mode: 'current_project', root }),
      observations: createObservationStore(),
      limits: { readTimeoutMs: 5_000, writeTimeoutMs: 7_000 },
      pathAccess: 'allowed_roots',
    });
    assert.deepEqual(
      tools.map((tool) => [tool.execution.timeoutMs, tool.pathAccess]),
      [[5_000, 'allowed_roots'], ...Array.from({ length: 5 }, () => [7_000, 'allowed_roots'])],
    );
    assert.throws(
      () => createFileTools({ observations: createObservationStore() } as never),
      /pathPolicy is required/,
    );
    assert.throws(
      () => createFileTools({ pathPolicy: createPathPolicy({ mode: 'current_project', root }) } as never),
      /observations is required/,
    );
  });

  it('returns only contract error codes from the mechanisms', () => {
    for (const code of EVIDENCE_ERROR_CODES) assert.ok(code in ERROR_CODES, `${code} is a contract code`);
  });

  it('keeps observations per agent: a child agent’s read does not authorise the parent’s edit (FILE-1)', async (t) => {
    const root = await tempProject(t);
    await writeFile(join(root, 'a.txt'), 'x\n');
    const stores = new Map<string, ObservationStore>([
      ['parent', createObservationStore()],
      ['child', createObservationStore()],
    ]);
    const tools = createFileTools({
      pathPolicy: createPathPolicy({ mode: 'current_project', root }),
      observations: (context: ToolCallContext) => stores.get(context.callId.split(':')[0]!)!,
    });
    const call = (agent: string, name: string, args: Record<string, unknown>) =>
      tools
        .find((tool) => tool.name === name)!
        .execute(args, {
          callId: `${agent}:1`,
          toolName: name,
          signal: new AbortController().signal,
          invocation: { kind: 'direct' },
        });
    okText(await call('child', 'read_file', { path: 'a.txt' }));
    const error = errorOf(
      await call('parent', 'edit_file', { path: 'a.txt', old_string: 'x', new_string: 'y' }),
    );
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    okText(await call('child', 'edit_file', { path: 'a.txt', old_string: 'x', new_string: 'y' }));
  });

  it('gives no other tool a way to observe: ls, glob and grep leave edits unauthorised (FILE-2)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'needle\n');
    const discovery = new Map(
      createDiscoveryTools({ pathPolicy: files.policy }).map((tool) => [tool.name, tool]),
    );
    okText(await callTool(discovery.get('ls')!, {}));
    okText(await callTool(discovery.get('glob')!, { pattern: '*.txt' }));
    okText(await callTool(discovery.get('grep')!, { pattern: 'needle' }));
    assert.equal(files.store.size, 0);
    const error = errorOf(
      await files.call('edit_file', { path: 'a.txt', old_string: 'needle', new_string: 'pin' }),
    );
    assert.equal(error.code, 'FS_NOT_OBSERVED');
  });

  it('prints every failure as "CODE: cause; recovery" (FILE-3)', async (t) => {
    const files = await fileTools(t);
    await writeFile(join(files.root, 'a.txt'), 'x\n');
    for (const result of [
      await files.call('read_file', { path: 'nope.txt' }),
      await files.call('edit_file', { path: 'a.txt', old_string: 'x', new_string: 'y' }),
      await files.call('write_file', { path: '../escape.txt', content: '' }),
    ]) {
      const { code, text } = errorOf(result);
      assert.match(text, new RegExp(`^${code}: [^;]+(; .+)?$`));
    }
  });
});
