import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonValue, ModelTool } from '@toolhost/contracts';
import fc from 'fast-check';
import { type CompileToolsOptions, compileTools } from '../src/index.js';
import { createNameMap, SAFE_TOOL_NAME_PATTERN } from '../src/names.js';
import { validateForProvider } from '../src/validate-for-provider.js';
import { covers, diffPaths, fromGeminiWireTypes, wireSchema } from './schema-diff.js';

const VARIANTS: readonly CompileToolsOptions[] = [
  { dialect: 'openai-chat' },
  { dialect: 'openai-chat', strict: true },
  { dialect: 'openai-responses' },
  { dialect: 'openai-responses', strict: true },
  { dialect: 'anthropic' },
  { dialect: 'gemini' },
  { dialect: 'gemini', geminiSchema: 'openapi' },
];

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

const propertyName = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,6}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('a.b', 'x/y', 'with space', 'ünï', '$ref', 'type', 'required', 'constructor'),
  },
);
const primitive = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 50 }),
  fc.boolean(),
  fc.constant(null),
  fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true }),
);
const annotations = fc.record(
  {
    description: fc.string({ maxLength: 20 }),
    title: fc.string({ maxLength: 8 }),
    default: primitive,
    examples: fc.array(primitive, { maxLength: 2 }),
    $comment: fc.string({ maxLength: 8 }),
  },
  { requiredKeys: [] },
);
const TYPE_NAMES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'] as const;

const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string'),
      minLength: fc.nat(5),
      maxLength: fc.integer({ min: 5, max: 50 }),
      pattern: fc.constantFrom('^[a-z]+$', '\\d{3}', '[unclosed'),
      format: fc.constantFrom('date-time', 'uri', 'email', 'uuid', 'enum', 'custom-format'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number', 'integer'),
      minimum: fc.oneof(fc.integer({ min: -10, max: 10 }), fc.constant('3')),
      maximum: fc.integer({ min: 10, max: 100 }),
      exclusiveMinimum: fc.oneof(fc.boolean(), fc.integer({ min: -10, max: 0 })),
      multipleOf: fc.constantFrom(1, 0.5, 0),
      format: fc.constantFrom('int32', 'double', 'weird'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constantFrom('boolean', 'null') }),
  fc.record({
    enum: fc.uniqueArray(primitive, {
      minLength: 1,
      maxLength: 4,
      selector: (value) => JSON.stringify(value),
    }),
  }),
  fc.record({
    type: fc.constant('integer'),
    enum: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ const: primitive }),
  fc.record({
    type: fc.subarray(
      [...TYPE_NAMES].filter((type) => type !== 'object' && type !== 'array'),
      { minLength: 2 },
    ),
  }),
  fc.constantFrom<JsonValue>(
    true,
    {},
    { $ref: '#/$defs/D0' },
    { $ref: '#/$defs/D1' },
    { $ref: '#/$defs/Missing' },
    { $ref: 'https://example.com/schema.json' },
  ),
);

const { node } = fc.letrec<{ node: JsonValue; object: JsonValue; array: JsonValue; union: JsonValue }>(
  (tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      {
        weight: 4,
        arbitrary: fc.tuple(leaf, annotations).map(([schema, extra]) => withExtras(schema, extra)),
      },
      { weight: 2, arbitrary: tie('object') },
      { weight: 1, arbitrary: tie('array') },
      { weight: 1, arbitrary: tie('union') },
    ),
    object: fc
      .record(
        {
          typed: fc.boolean(),
          properties: fc.dictionary(propertyName, tie('node'), { maxKeys: 4 }),
          requiredPick: fc.array(fc.nat(5), { maxLength: 4 }),
          extraRequired: fc.boolean(),
          additional: fc.option(fc.oneof(fc.boolean(), tie('node')), { nil: undefined }),
          minProperties: fc.option(fc.nat(2), { nil: undefined }),
        },
        { requiredKeys: ['typed', 'properties', 'requiredPick', 'extraRequired'] },
      )
      .map(({ typed, properties, requiredPick, extraRequired, additional, minProperties }) => {
        const names = Object.keys(properties);
        const out: JsonObject = {};
        if (typed) out.type = 'object';
        out.properties = properties as JsonObject;
        const required = requiredPick
          .map((index) => names[index % Math.max(names.length, 1)])
          .filter((name) => name !== undefined);
        if (extraRequired) required.push('ghost');
        if (required.length > 0) out.required = required as string[];
        if (additional !== undefined) out.additionalProperties = additional;
        if (minProperties !== undefined) out.minProperties = minProperties;
        return out;
      }),
    array: fc
      .record(
        {
          items: fc.option(fc.oneof(tie('node'), fc.tuple(tie('node'), tie('node'))), { nil: undefined }),
          minItems: fc.option(fc.nat(3), { nil: undefined }),
          uniqueItems: fc.option(fc.boolean(), { nil: undefined }),
        },
        { requiredKeys: [] },
      )
      .map(({ items, minItems, uniqueItems }) => {
        const out: JsonObject = { type: 'array' };
        if (items !== undefined) out.items = items as JsonValue;
        if (minItems !== undefined) out.minItems = minItems;
        if (uniqueItems !== undefined) out.uniqueItems = uniqueItems;
        return out;
      }),
    union: fc
      .record({
        keyword: fc.constantFrom('anyOf', 'oneOf', 'allOf', 'not', 'nullable'),
        branches: fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
      })
      .map(({ keyword, branches }): JsonValue => {
        if (keyword === 'not') return { not: branches[0]! };
        if (keyword === 'nullable') return { anyOf: [branches[0]!, { type: 'null' }] };
        return { [keyword]: branches };
      }),
  }),
);

function withExtras(schema: JsonValue, extra: JsonObject): JsonValue {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  return { ...schema, ...extra };
}

const defs = fc.record({
  D0: node,
  D1: node.map((schema) => ({ type: 'object', properties: { self: { $ref: '#/$defs/D1' }, value: schema } })),
});

const rootSchema: fc.Arbitrary<JsonValue> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant('object') },
      { weight: 1, arbitrary: fc.constant('anyOf') },
      { weight: 1, arbitrary: fc.constant('ref') },
      { weight: 1, arbitrary: fc.constant('scalar') },
    ),
    fc.dictionary(propertyName, node, { maxKeys: 5 }),
    fc.array(fc.nat(5), { maxLength: 3 }),
    fc.option(defs, { nil: undefined }),
    fc.boolean(),
  )
  .map(([shape, properties, requiredPick, definitions, draft07]) => {
    const names = Object.keys(properties);
    const required = [
      ...new Set(requiredPick.map((index) => names[index % Math.max(names.length, 1)])),
    ].filter((name): name is string => name !== undefined);
    let root: JsonObject;
    if (shape === 'anyOf') {
      root = {
        anyOf: [
          { type: 'object', properties: properties as JsonObject, required },
          { type: 'object', properties: { other: { type: 'string' } } },
        ],
      };
    } else if (shape === 'ref') {
      root = { $ref: '#/$defs/Root' };
      root.$defs = { Root: { type: 'object', properties: properties as JsonObject } };
    } else if (shape === 'scalar') {
      root = { type: 'string', minLength: 1 };
    } else {
      root = { type: 'object', properties: properties as JsonObject };
      if (required.length > 0) root.required = required;
    }
    if (definitions) root.$defs = { ...((root.$defs as JsonObject | undefined) ?? {}), ...definitions };
    if (draft07) root.$schema = 'http://json-schema.org/draft-07/schema#';
    return root;
  });

const toolName = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/) },
  { weight: 2, arbitrary: fc.string({ minLength: 0, maxLength: 90 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'github.create_issue',
      'github_create_issue',
      'fs/read',
      '1st',
      'a:b',
      'x'.repeat(70),
    ),
  },
);

const toolSet = fc
  .uniqueArray(fc.tuple(toolName, rootSchema, fc.string({ maxLength: 12 })), {
    minLength: 1,
    maxLength: 4,
    selector: ([name]) => name,
  })
  .map((entries): ModelTool[] =>
    entries.map(([name, inputSchema, description]) => ({
      name,
      description,
      inputSchema: inputSchema as JsonObject,
    })),
  );

describe('compileTools (properties)', () => {
  for (const variant of VARIANTS) {
    const label = `${variant.dialect}${variant.strict ? ' strict' : ''}${variant.geminiSchema === 'openapi' ? ' openapi' : ''}`;
    it(`produces output that passes validateForProvider and reports every difference (${label})`, () => {
      fc.assert(
        fc.property(toolSet, (tools) => {
          const compiled = compileTools(tools, variant);
          assert.deepEqual(validateForProvider(compiled.tools, variant.dialect), []);
          const quarantined = compiled.report.filter((entry) => entry.action === 'quarantined');
          assert.deepEqual(quarantined, [], 'no generated schema is quarantined');
          for (const tool of tools) {
            const wire = compiled.nameMap.toWire[tool.name]!;
            const entries = compiled.report.filter((entry) => entry.tool === tool.name);
            if (wire !== tool.name)
              assert.ok(
                entries.some((entry) => entry.action === 'renamed'),
                'a rename is reported',
              );
            const { found, schema } = wireSchema(compiled, wire);
            assert.ok(
              found || variant.geminiSchema === 'openapi',
              `tool ${JSON.stringify(tool.name)} is in the output`,
            );
            if (schema === undefined) {
              // Gemini `parameters` omitted: the tool takes no parameters, and the report says so.
              assert.ok(
                entries.some((entry) => entry.keyword === 'parameters' && entry.action === 'dropped'),
              );
              continue;
            }
            const compared = variant.geminiSchema === 'openapi' ? fromGeminiWireTypes(schema) : schema;
            for (const path of diffPaths(tool.inputSchema as JsonValue, compared)) {
              assert.ok(
                entries.some((entry) => covers(entry, path)),
                `unreported difference at ${JSON.stringify(path)} for ${label}\ninput: ${JSON.stringify(tool.inputSchema)}\noutput: ${JSON.stringify(schema)}\nreport: ${JSON.stringify(entries, null, 1)}`,
              );
            }
          }
          const again = compileTools([...tools].reverse(), variant);
          assert.equal(
            JSON.stringify(again.tools),
            JSON.stringify(compiled.tools),
            'byte-identical whatever the input order',
          );
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('createNameMap (properties)', () => {
  it('maps any set of names to unique safe names and back', () => {
    fc.assert(
      fc.property(fc.uniqueArray(toolName, { maxLength: 12 }), (names) => {
        const map = createNameMap(names);
        const wires = names.map((name) => map.toWire[name]!);
        assert.equal(new Set(wires).size, names.length);
        for (const [index, name] of names.entries()) {
          assert.match(wires[index]!, SAFE_TOOL_NAME_PATTERN);
          assert.equal(map.fromWire[wires[index]!], name);
          if (SAFE_TOOL_NAME_PATTERN.test(name)) assert.equal(wires[index], name);
        }
        assert.deepEqual(createNameMap([...names].reverse()).toWire, map.toWire);
      }),
      { numRuns: RUNS * 2 },
    );
  });
});
