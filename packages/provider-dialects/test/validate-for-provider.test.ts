import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DialectName } from '../src/index.js';
import { validateForProvider } from '../src/validate-for-provider.js';

const rules = (tools: unknown, dialect: DialectName) =>
  validateForProvider(tools, dialect).map((violation) => violation.rule);

describe('validateForProvider', () => {
  it('accepts well-formed tool lists', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.deepEqual(
      rules([{ type: 'function', function: { name: 'a', parameters: schema } }], 'openai-chat'),
      [],
    );
    assert.deepEqual(
      rules(
        [{ type: 'function', name: 'a', parameters: schema, strict: false }, { type: 'web_search' }],
        'openai-responses',
      ),
      [],
    );
    assert.deepEqual(
      rules(
        [
          { name: 'a', input_schema: schema },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        'anthropic',
      ),
      [],
    );
    assert.deepEqual(
      rules(
        [
          { functionDeclarations: [{ name: 'a.b', description: 'A tool.', parametersJsonSchema: schema }] },
          { googleSearch: {} },
        ],
        'gemini',
      ),
      [],
    );
  });

  it('flags names, duplicates and non-object roots', () => {
    assert.deepEqual(
      rules(
        [
          { name: 'a.b', input_schema: { type: 'object' } },
          { name: 'x', input_schema: { type: 'string' } },
          { name: 'x', input_schema: { type: 'object' } },
        ],
        'anthropic',
      ),
      ['name-pattern', 'root-object', 'name-unique'],
    );
    assert.deepEqual(rules('nope', 'gemini'), ['tools-array']);
  });

  it('flags what Anthropic rejects: top-level combinators and invalid draft 2020-12', () => {
    const found = rules(
      [
        {
          name: 'a',
          input_schema: {
            type: 'object',
            anyOf: [{ type: 'object' }],
            required: ['x', 'x'],
            properties: {
              n: { type: 'number', minimum: '1' },
              t: { type: 'array', items: [{ type: 'string' }] },
              r: { $ref: '#/$defs/None' },
            },
          },
        },
      ],
      'anthropic',
    );
    assert.deepEqual(found.sort(), [
      'draft-2020-12',
      'draft-2020-12',
      'draft-2020-12',
      'ref-resolvable',
      'root-combinator',
    ]);
  });

  it('flags what OpenAI strict mode rejects', () => {
    const found = rules(
      [
        {
          type: 'function',
          name: 'a',
          strict: true,
          parameters: {
            type: 'object',
            properties: { a: { type: 'string', minLength: 1 }, b: {} },
            required: ['a'],
          },
        },
      ],
      'openai-responses',
    );
    assert.deepEqual(found.sort(), [
      'strict-additional-properties',
      'strict-keyword',
      'strict-required',
      'strict-type',
    ]);
    assert.deepEqual(
      rules(
        [
          {
            type: 'function',
            function: { name: 'a', parameters: { type: 'object', properties: { l: { type: 'array' } } } },
          },
        ],
        'openai-chat',
      ),
      ['array-items'],
    );
  });

  it('flags what Gemini parameters and parametersJsonSchema reject', () => {
    const openapi = rules(
      [
        {
          functionDeclarations: [
            {
              name: 'a',
              description: 'A tool.',
              parameters: {
                type: 'OBJECT',
                additionalProperties: false,
                properties: {
                  e: { type: 'INTEGER', enum: [1, 2] },
                  o: { type: 'OBJECT', properties: {} },
                  t: { type: ['STRING', 'NULL'] },
                },
              },
            },
          ],
        },
      ],
      'gemini',
    );
    assert.deepEqual(openapi.sort(), [
      'gemini-enum',
      'gemini-enum',
      'gemini-keyword',
      'gemini-object-properties',
      'gemini-type',
    ]);
    const json = rules(
      [
        {
          functionDeclarations: [
            {
              name: 'a',
              description: 'A tool.',
              parametersJsonSchema: {
                $schema: 'http://json-schema.org/draft-07/schema#',
                type: 'object',
                $defs: { D: { type: 'string' } },
                properties: {
                  r: { $ref: '#/$defs/D', minLength: 1 },
                  i: { type: 'array', items: { type: ['string', 'number'] } },
                },
              },
            },
          ],
        },
      ],
      'gemini',
    );
    assert.deepEqual(json.sort(), ['gemini-ref-siblings', 'gemini-schema-keyword', 'gemini-type-array']);
  });

  it('flags internal decode annotations that must never be sent', () => {
    assert.deepEqual(
      rules([{ name: 'a', input_schema: { type: 'object', 'x-toolhost-json': true } }], 'anthropic'),
      ['internal-annotation'],
    );
  });
});
