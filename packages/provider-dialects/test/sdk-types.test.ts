import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject } from '@toolhost/contracts';
import { compileTools } from '../src/index.js';
import { validateForProvider } from '../src/validate-for-provider.js';
import { testPath } from './helpers.js';
import { scenarios } from './request-scenarios.js';
import { BODIES, SCENARIO_COUNTS } from './sdk-types.generated.js';
import { sdkTypesSource } from './sdk-types-source.js';

describe('request bodies against the official SDK request types', () => {
  it('test/sdk-types.generated.ts holds exactly the bodies the dialects build now (regenerate with pnpm --filter @toolhost/provider-dialects gen:sdk-types)', () => {
    assert.equal(readFileSync(testPath('sdk-types.generated.ts'), 'utf8'), sdkTypesSource());
  });

  it('covers every scenario of every dialect and mode (the type check itself is the package typecheck)', () => {
    const all = scenarios();
    assert.equal(BODIES.length, all.length);
    assert.deepEqual(
      BODIES,
      all.map((scenario) => scenario.built.body),
    );
    for (const dialect of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const)
      assert.ok((SCENARIO_COUNTS as Record<string, number>)[dialect]! >= 9, dialect);
  });
});

describe('findings of the type-level check', () => {
  it("Gemini `parameters`: int64 counts (minLength, maxItems, ...) go out as decimal strings, the protos' canonical JSON that @google/genai's Schema declares, and validateForProvider flags a count that is neither", () => {
    const compiled = compileTools(
      [
        {
          name: 'f',
          description: 'F.',
          inputSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 256 },
              tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8 },
              meta: { type: 'object', properties: { a: { type: 'string' } }, minProperties: 1 },
            },
          },
        },
      ],
      { dialect: 'gemini', geminiSchema: 'openapi' },
    );
    const declaration = (compiled.tools[0]!.functionDeclarations as JsonObject[])[0]!;
    const properties = (declaration.parameters as JsonObject).properties as Record<string, JsonObject>;
    assert.deepEqual(
      [
        properties.name!.minLength,
        properties.name!.maxLength,
        properties.tags!.minItems,
        properties.tags!.maxItems,
        properties.meta!.minProperties,
      ],
      ['1', '256', '1', '8', '1'],
    );
    assert.deepEqual(validateForProvider(compiled.tools, 'gemini'), []);
    const declared = (schema: JsonObject) => [
      {
        functionDeclarations: [
          { name: 'g', description: 'G.', parameters: { type: 'OBJECT', properties: { x: schema } } },
        ],
      },
    ];
    assert.deepEqual(validateForProvider(declared({ type: 'STRING', minLength: 2 }), 'gemini'), []);
    for (const bad of ['two', '-1', 1.5, -3, true]) {
      assert.ok(
        validateForProvider(declared({ type: 'STRING', minLength: bad }), 'gemini').some(
          (violation) => violation.rule === 'gemini-int64',
        ),
        JSON.stringify(bad),
      );
    }
  });
});
