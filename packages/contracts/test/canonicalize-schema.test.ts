import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canonicalizeSchema, canonicalSchemaJson, schemaFingerprint } from '../src/index.js';

describe('canonicalizeSchema', () => {
  // CT-SCHEMA-1
  const emptyCases: Array<[string, unknown]> = [
    ['undefined', undefined],
    ['null', null],
    ['an empty object', {}],
    ['an empty string', ''],
    ['whitespace', '  '],
  ];
  for (const [label, input] of emptyCases) {
    it(`turns ${label} into the empty object schema`, () => {
      assert.equal(JSON.stringify(canonicalizeSchema(input)), '{"properties":{},"type":"object"}');
    });
  }

  // CT-SCHEMA-2
  it('sorts object keys at every depth regardless of input order', () => {
    const a = canonicalizeSchema({
      type: 'object',
      properties: { b: { type: 'string', description: 'x' }, a: { type: 'integer' } },
    });
    const b = canonicalizeSchema({
      properties: { a: { type: 'integer' }, b: { description: 'x', type: 'string' } },
      type: 'object',
    });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.equal(
      JSON.stringify(a),
      '{"properties":{"a":{"type":"integer"},"b":{"description":"x","type":"string"}},"type":"object"}',
    );
  });

  it('sorts required arrays at every depth and the arrays of dependentRequired', () => {
    const out = canonicalizeSchema({
      type: 'object',
      required: ['z', 'a', 'm'],
      dependentRequired: { b: ['y', 'x'] },
      properties: {
        nested: { type: 'object', required: ['q', 'p'], properties: { p: {}, q: {} } },
        list: { type: 'array', items: { type: 'object', required: ['d', 'c'] } },
        either: { anyOf: [{ required: ['k', 'j'] }, { required: ['b', 'a'] }] },
      },
    });
    assert.deepEqual(out.required, ['a', 'm', 'z']);
    assert.deepEqual((out.dependentRequired as Record<string, unknown>).b, ['x', 'y']);
    const properties = out.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(properties.nested?.required, ['p', 'q']);
    assert.deepEqual((properties.list?.items as Record<string, unknown> | undefined)?.required, ['c', 'd']);
    const branches = properties.either?.anyOf as Array<Record<string, unknown>>;
    assert.deepEqual(
      branches.map((branch) => branch.required),
      [
        ['j', 'k'],
        ['a', 'b'],
      ],
    );
  });

  it('removes a non-array required and a non-object dependentRequired', () => {
    const out = canonicalizeSchema({
      type: 'object',
      dependentRequired: 'nonsense',
      properties: { a: { type: 'string', required: true } },
    });
    assert.equal('dependentRequired' in out, false);
    assert.deepEqual((out.properties as Record<string, unknown>).a, { type: 'string' });
  });

  it('keeps a property that is named required', () => {
    const out = canonicalizeSchema({
      type: 'object',
      properties: { required: { type: 'boolean' } },
      required: ['required'],
    });
    assert.deepEqual(out.properties, { required: { type: 'boolean' } });
    assert.deepEqual(out.required, ['required']);
  });

  it('keeps the order of enum values and array items (data, not sets)', () => {
    const out = canonicalizeSchema({
      type: 'object',
      properties: {
        mode: { enum: ['z', 'a'] },
        t: { prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
    });
    const properties = out.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(properties.mode?.enum, ['z', 'a']);
    assert.deepEqual(properties.t?.prefixItems, [{ type: 'string' }, { type: 'number' }]);
  });

  it('gives the root a properties key even when the input has none', () => {
    assert.deepEqual(canonicalizeSchema({ type: 'object' }), { properties: {}, type: 'object' });
    assert.deepEqual(Object.keys(canonicalizeSchema({ anyOf: [{ type: 'object' }] })), [
      'anyOf',
      'properties',
    ]);
  });

  it('does not mutate its input', () => {
    const input = { type: 'object', required: ['b', 'a'], properties: { b: {}, a: {} } };
    const before = JSON.stringify(input);
    canonicalizeSchema(input);
    assert.equal(JSON.stringify(input), before);
  });

  // CT-SCHEMA-3
  const idempotenceCases: unknown[] = [
    {},
    { type: 'object', properties: { x: { type: ['string', 'null'] } } },
    { $defs: { n: { type: 'object', required: ['b', 'a'] } }, properties: { n: { $ref: '#/$defs/n' } } },
    {
      type: 'object',
      properties: { deps: { type: 'object' } },
      dependencies: { a: ['c', 'b'], b: { required: ['z', 'y'] } },
    },
  ];
  for (const [index, input] of idempotenceCases.entries()) {
    it(`is idempotent (case ${index + 1})`, () => {
      const once = canonicalSchemaJson(input);
      assert.equal(canonicalSchemaJson(JSON.parse(once)), once);
      assert.equal(canonicalSchemaJson(once), once);
    });
  }

  it('throws on text that is not JSON (a misuse)', () => {
    assert.throws(() => canonicalizeSchema('{nope'), SyntaxError);
    assert.throws(() => canonicalizeSchema([]), TypeError);
  });
});

describe('schemaFingerprint', () => {
  it('is the first 16 hex characters of SHA-256 of the canonical bytes', () => {
    const schema = { type: 'object', properties: { b: {}, a: {} } };
    const expected = createHash('sha256').update(canonicalSchemaJson(schema)).digest('hex').slice(0, 16);
    assert.equal(schemaFingerprint(schema), expected);
    assert.match(schemaFingerprint(schema), /^[0-9a-f]{16}$/);
  });

  it('does not depend on key order', () => {
    assert.equal(
      schemaFingerprint({ type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'] }),
      schemaFingerprint({ required: ['b', 'a'], properties: { b: {}, a: {} }, type: 'object' }),
    );
  });
});
