import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateArguments } from '@toolhost/contracts';
import { exampleFromSchema } from '../src/example-from-schema.js';

describe('exampleFromSchema', () => {
  it('builds an example that validates, from required properties only, using enum, const, default and bounds', () => {
    const schema = {
      type: 'object',
      required: ['path', 'mode', 'count', 'tags', 'options', 'kind'],
      properties: {
        path: { type: 'string' },
        mode: { enum: ['read', 'write'] },
        count: { type: 'integer', minimum: 3, maximum: 9 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        options: { type: 'object', required: ['deep'], properties: { deep: { type: 'boolean' } } },
        kind: { const: 'fixed' },
        optional: { type: 'string' },
      },
      additionalProperties: false,
    };
    const example = exampleFromSchema(schema);
    assert.deepEqual(example, {
      path: '<path>',
      mode: 'read',
      count: 3,
      tags: ['<tags item>', '<tags item>'],
      options: { deep: false },
      kind: 'fixed',
    });
    const checked = validateArguments({ toolName: 't', source: 'mcp', schema, arguments: example });
    assert.ok(checked.ok);
  });

  it('returns an empty object for a schema without required properties', () => {
    assert.deepEqual(exampleFromSchema({ type: 'object', properties: { a: { type: 'string' } } }), {});
  });
});
