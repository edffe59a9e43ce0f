import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateSchemaModule, nullableAsAnyOf } from '../../../scripts/schema-gen.js';
import { defineTool, type JsonObject, textResult, validateArguments } from '../src/index.js';
import {
  sampleEditArgumentsSchema,
  sampleReadArgumentsSchema,
} from './fixtures/sample-arguments.generated.js';
import type { SampleReadArguments } from './fixtures/sample-arguments.js';

const typesFile = fileURLToPath(new URL('./fixtures/sample-arguments.ts', import.meta.url));
const outFile = fileURLToPath(new URL('./fixtures/sample-arguments.generated.ts', import.meta.url));

describe('generateSchemaModule', () => {
  it('writes a nullable value as anyOf of its type and null, annotations outside (Gemini rejects type arrays)', () => {
    const nested = {
      type: 'object',
      properties: {
        rounds: { description: 'How many.', type: ['integer', 'null'], minimum: 1 },
        plain: { type: 'string' },
        list: { type: 'array', items: { type: ['string', 'null'] } },
      },
    };
    assert.deepEqual(nullableAsAnyOf(nested), {
      type: 'object',
      properties: {
        rounds: { description: 'How many.', anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
        plain: { type: 'string' },
        list: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      },
    });
    const ok = validateArguments({
      toolName: 't',
      source: 'builtin',
      schema: nullableAsAnyOf(nested) as JsonObject,
      arguments: { rounds: null },
    });
    assert.equal(ok.ok, true);
    const bad = validateArguments({
      toolName: 't',
      source: 'builtin',
      schema: nullableAsAnyOf(nested) as JsonObject,
      arguments: { rounds: 0 },
    });
    assert.equal(bad.ok, false);
  });

  it('matches the committed generated schemas (regenerate with pnpm gen:schemas when this fails)', () => {
    const expected = generateSchemaModule({ typesFile, outFile, contractsImport: '../../src/index.js' });
    assert.equal(
      readFileSync(outFile, 'utf8'),
      expected,
      'test/fixtures/sample-arguments.generated.ts drifted: run `pnpm --filter @toolhost/contracts gen:schemas`',
    );
  });

  it('turns optional fields, JSDoc bounds and literal unions into schema keywords', () => {
    assert.deepEqual(sampleReadArgumentsSchema.required, ['path']);
    assert.equal(sampleReadArgumentsSchema.additionalProperties, false);
    const properties = sampleReadArgumentsSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(properties.limit, {
      description: 'Lines to return.',
      maximum: 2000,
      minimum: 1,
      type: 'integer',
    });
    assert.deepEqual([...((properties.intent?.enum as string[] | undefined) ?? [])].sort(), [
      'full',
      'inspect',
      'range',
    ]);
    const edits = (sampleEditArgumentsSchema.properties as Record<string, Record<string, unknown>>).edits;
    assert.equal(edits?.minItems, 1);
  });

  it('produces schemas that validate what the TypeScript type allows', () => {
    const schema = sampleReadArgumentsSchema;
    assert.equal(
      validateArguments({ toolName: 'sample', source: 'builtin', schema, arguments: { path: 'a', limit: 5 } })
        .ok,
      true,
    );
    assert.equal(
      validateArguments({ toolName: 'sample', source: 'builtin', schema, arguments: { path: 'a', limit: 0 } })
        .ok,
      false,
    );
    assert.equal(
      validateArguments({ toolName: 'sample', source: 'builtin', schema, arguments: { path: 'a', extra: 1 } })
        .ok,
      false,
    );
  });
});

describe('defineTool', () => {
  it("types the handler's arguments from the schema's declared type", async () => {
    const tool = defineTool({
      name: 'sample_read',
      source: 'builtin',
      group: 'read_only_builtins',
      category: 'read',
      annotations: { readOnly: true },
      execution: { mode: 'parallel', timeoutMs: 1000, abortable: true },
      pathAccess: 'current_project',
      visibility: 'listed',
      modelTool: { name: 'sample_read', description: 'Read.', inputSchema: sampleReadArgumentsSchema },
      execute: async (args) => {
        const typed: SampleReadArguments = args;
        // @ts-expect-error `path` is a string, so this assignment must not type-check.
        const wrong: number = args.path;
        return textResult(`${typed.path}:${String(wrong)}`);
      },
    });
    const controller = new AbortController();
    const result = await tool.execute(
      { path: 'x' },
      { callId: 'c', toolName: 'sample_read', signal: controller.signal, invocation: { kind: 'direct' } },
    );
    assert.deepEqual(result, { ok: true, output: { content: [{ type: 'text', text: 'x:x' }] } });
  });
});
