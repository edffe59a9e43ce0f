// "Every change a compiler makes appears in its report", over a wider space of generated schemas
// than test/properties.test.ts: the keywords real MCP servers send that no profile takes as they
// are (conditionals, pattern properties, dependencies, vendor extensions, OpenAPI 3.0 spellings,
// boolean and malformed subschemas), and the tool itself (its name, its description, whether it
// was sent at all), not only its schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, JsonValue, ModelTool } from '@toolhost/contracts';
import fc from 'fast-check';
import { type CompiledTools, type CompileToolsOptions, compileTools } from '../src/index.js';
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

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
const scalar = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.integer({ min: -3, max: 9 }),
  fc.boolean(),
  fc.constant(null),
);
const anyJson: fc.Arbitrary<JsonValue> = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 2 }),
  fc.dictionary(name, scalar, { maxKeys: 2 }) as fc.Arbitrary<JsonObject>,
);

/** Keywords and values that sit beside a schema's type (each drawn independently). */
const extras = fc.record(
  {
    description: fc.string({ maxLength: 12 }),
    title: fc.string({ maxLength: 6 }),
    default: anyJson,
    examples: fc.array(anyJson, { maxLength: 2 }),
    example: anyJson,
    deprecated: fc.boolean(),
    readOnly: fc.boolean(),
    writeOnly: fc.boolean(),
    $comment: fc.string({ maxLength: 6 }),
    $id: fc.constantFrom('urn:x', 'https://example.com/s', '#frag'),
    $anchor: fc.constantFrom('a1', 'node'),
    'x-vendor': anyJson,
    nullable: fc.boolean(),
    contentMediaType: fc.constantFrom('application/json', 'text/plain'),
    contentEncoding: fc.constantFrom('base64'),
    $schema: fc.constantFrom(
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2020-12/schema',
    ),
  },
  { requiredKeys: [] },
);

const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('string', 'String', 'str'),
      minLength: fc.oneof(fc.nat(4), fc.constant('2'), fc.constant(-1)),
      maxLength: fc.integer({ min: 4, max: 40 }),
      pattern: fc.constantFrom('^[a-z]+$', '(', '\\p{L}+'),
      format: fc.constantFrom('date-time', 'date', 'uri', 'email', 'uuid', 'binary', 'byte', 'x-custom'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('number', 'integer', 'int', 'float'),
      minimum: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant('1')),
      maximum: fc.integer({ min: 5, max: 50 }),
      exclusiveMaximum: fc.oneof(fc.boolean(), fc.integer({ min: 50, max: 60 })),
      multipleOf: fc.constantFrom(2, 0.25, -1),
      format: fc.constantFrom('int32', 'int64', 'float', 'double', 'uint8'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constantFrom('boolean', 'null') }),
  fc.record({
    enum: fc.uniqueArray(anyJson, { minLength: 1, maxLength: 3, selector: (value) => JSON.stringify(value) }),
  }),
  fc.record({ const: anyJson }),
  fc.record({
    type: fc.constantFrom<JsonValue>(['string', 'null'], ['integer', 'string'], ['object', 'null']),
  }),
  fc.constantFrom<JsonValue>(
    true,
    false,
    {},
    { $ref: '#/$defs/Shared' },
    { $ref: '#/definitions/Legacy' },
    { $ref: '#/$defs/Missing' },
    { $ref: '#/$defs/Shared', description: 'with a sibling' },
    { type: 'string', enum: ['a', 'b'], default: 'c' },
  ),
);

const { node } = fc.letrec<{ node: JsonValue; object: JsonValue; array: JsonValue; logic: JsonValue }>(
  (tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: fc.tuple(leaf, extras).map(([schema, extra]) => merge(schema, extra)) },
      { weight: 2, arbitrary: tie('object') },
      { weight: 1, arbitrary: tie('array') },
      { weight: 1, arbitrary: tie('logic') },
    ),
    object: fc
      .record(
        {
          properties: fc.dictionary(name, tie('node'), { maxKeys: 3 }),
          required: fc.oneof(fc.array(name, { maxLength: 3 }), fc.constant('single')),
          additionalProperties: fc.oneof(fc.boolean(), tie('node')),
          patternProperties: fc.dictionary(fc.constantFrom('^x-', '^[0-9]+$'), tie('node'), { maxKeys: 1 }),
          propertyNames: fc.constantFrom<JsonValue>({ pattern: '^[a-z]+$' }, { maxLength: 8 }),
          dependencies: fc.dictionary(
            name,
            fc.oneof(fc.array(name, { maxLength: 2 }), tie('node')) as fc.Arbitrary<JsonValue>,
            { maxKeys: 1 },
          ),
          dependentRequired: fc.dictionary(name, fc.array(name, { maxLength: 2 }), { maxKeys: 1 }),
          dependentSchemas: fc.dictionary(name, tie('node'), { maxKeys: 1 }),
          unevaluatedProperties: fc.boolean(),
          minProperties: fc.nat(2),
          maxProperties: fc.integer({ min: 2, max: 9 }),
          typed: fc.boolean(),
        },
        { requiredKeys: ['properties', 'typed'] },
      )
      .map(({ typed, ...rest }) => (typed ? { type: 'object', ...rest } : rest) as JsonValue),
    array: fc
      .record(
        {
          items: fc.oneof(tie('node'), fc.constant(false), fc.tuple(tie('node'), tie('node'))),
          prefixItems: fc.array(tie('node'), { minLength: 1, maxLength: 2 }),
          additionalItems: fc.oneof(fc.boolean(), tie('node')),
          contains: tie('node'),
          minContains: fc.nat(2),
          minItems: fc.oneof(fc.nat(3), fc.constant('1')),
          maxItems: fc.integer({ min: 3, max: 9 }),
          uniqueItems: fc.oneof(fc.boolean(), fc.constant('yes')),
          unevaluatedItems: fc.boolean(),
        },
        { requiredKeys: [] },
      )
      .map((rest) => ({ type: 'array', ...rest }) as JsonValue),
    logic: fc
      .record({
        keyword: fc.constantFrom('anyOf', 'oneOf', 'allOf', 'not', 'if'),
        branches: fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
      })
      .map(({ keyword, branches }): JsonValue => {
        if (keyword === 'not') return { not: branches[0]! };
        if (keyword === 'if')
          return {
            if: branches[0]!,
            // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
            then: branches[1] ?? true,
            ...(branches[2] !== undefined ? { else: branches[2] } : {}),
          };
        return { [keyword]: branches };
      }),
  }),
);

function merge(schema: JsonValue, extra: JsonObject): JsonValue {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  return { ...schema, ...extra };
}

const root = fc
  .tuple(
    fc.dictionary(name, node, { maxKeys: 4 }),
    fc.array(name, { maxLength: 3 }),
    fc.option(node, { nil: undefined }),
    fc.option(node, { nil: undefined }),
    fc.option(fc.oneof(node, fc.array(node, { minLength: 1, maxLength: 2 })), { nil: undefined }),
    fc.constantFrom('object', 'anyOf', 'if', 'extension', 'openapi-nullable', 'scalar'),
  )
  .map(([properties, required, shared, legacy, sidecar, shape]): JsonObject => {
    const base: JsonObject = { type: 'object', properties: properties as JsonObject };
    if (required.length > 0) base.required = required;
    if (shared !== undefined) base.$defs = { Shared: shared };
    if (legacy !== undefined) base.definitions = { Legacy: legacy };
    switch (shape) {
      case 'anyOf':
        return { anyOf: [base, { type: 'object', properties: { other: { type: 'string' } } }] };
      case 'if':
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
        return { ...base, if: { required: ['a'] }, then: { required: ['b'] } };
      case 'extension':
        return { ...base, 'x-mcp': sidecar ?? true, additionalProperties: false };
      case 'openapi-nullable':
        return { ...base, nullable: true, example: { a: 1 } };
      case 'scalar':
        return {
          type: 'array',
          items: sidecar ?? {},
          ...(shared !== undefined ? { $defs: { Shared: shared } } : {}),
        };
      default:
        return base;
    }
  });

const toolSet = fc
  .uniqueArray(
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_.]{0,8}$/), root, fc.option(fc.string({ maxLength: 10 }))),
    {
      minLength: 1,
      maxLength: 3,
      selector: ([toolName]) => toolName,
    },
  )
  .map((entries): ModelTool[] =>
    entries.map(([toolName, inputSchema, description]) => ({
      name: toolName,
      description: description ?? '',
      inputSchema,
    })),
  );

/** The wire description of a compiled tool, or undefined when it has none / is absent. */
function wireDescription(compiled: CompiledTools, wire: string): string | undefined {
  for (const tool of compiled.tools) {
    const declarations =
      compiled.dialect === 'gemini'
        ? ((tool.functionDeclarations ?? []) as JsonObject[])
        : compiled.dialect === 'openai-chat'
          ? [tool.function as JsonObject]
          : [tool];
    for (const declaration of declarations) {
      if (declaration?.name === wire)
        return typeof declaration.description === 'string' ? declaration.description : undefined;
    }
  }
  return undefined;
}

describe('compile reports (properties over a wide schema space)', () => {
  for (const variant of VARIANTS) {
    const label = `${variant.dialect}${variant.strict ? ' strict' : ''}${variant.geminiSchema === 'openapi' ? ' openapi' : ''}`;
    it(`every change to a tool, its schema, name and description, appears in the report (${label})`, () => {
      fc.assert(
        fc.property(toolSet, (tools) => {
          const compiled = compileTools(tools, variant);
          for (const tool of tools) {
            const entries = compiled.report.filter((entry) => entry.tool === tool.name);
            const verdict = compiled.verdicts[tool.name]!;
            const wire = compiled.nameMap.toWire[tool.name]!;
            if (wire !== tool.name) assert.ok(entries.some((entry) => entry.action === 'renamed'));
            const { found, schema } = wireSchema(compiled, wire);
            const sent = found || wireDescription(compiled, wire) !== undefined || verdict.status === 'sent';
            if (verdict.status !== 'sent') {
              // Left out: the report says so, with the broken rules.
              assert.ok(
                entries.some((entry) => entry.action === 'quarantined' || entry.action === 'dropped'),
                `${tool.name} left out without a report entry`,
              );
              assert.ok(!found, `${tool.name} is ${verdict.status} but in the output`);
              continue;
            }
            assert.ok(sent, `${tool.name} is neither sent nor reported`);
            const description = wireDescription(compiled, wire) ?? '';
            if (description !== tool.description)
              assert.ok(
                entries.some((entry) => entry.keyword === 'tool-description'),
                `the description of ${tool.name} changed without a report entry: ${JSON.stringify(tool.description)} → ${JSON.stringify(description)}`,
              );
            if (schema === undefined) {
              assert.ok(
                entries.some((entry) => entry.keyword === 'parameters' && entry.action === 'dropped'),
              );
              continue;
            }
            const compared = variant.geminiSchema === 'openapi' ? fromGeminiWireTypes(schema) : schema;
            for (const path of diffPaths(tool.inputSchema as JsonValue, compared)) {
              assert.ok(
                entries.some((entry) => covers(entry, path)),
                `unreported difference at ${JSON.stringify(path)} (${label})\ninput: ${JSON.stringify(tool.inputSchema)}\noutput: ${JSON.stringify(schema)}\nreport: ${JSON.stringify(entries, null, 1)}`,
              );
            }
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('compile reports: regressions the wide property found', () => {
  const entriesFor = (schema: JsonObject, options: CompileToolsOptions) => {
    const compiled = compileTools([{ name: 't', description: 'T.', inputSchema: schema }], options);
    return { compiled, report: compiled.report, schema: wireSchema(compiled, 't').schema as JsonObject };
  };

  it('JSON Schema repairs: a tuple `items` array beside `prefixItems` no longer overwrites `prefixItems` unreported (prefixItems is kept, the draft-07 tuple reported dropped)', () => {
    const input: JsonObject = {
      type: 'object',
      properties: {
        pair: {
          type: 'array',
          items: [{ type: 'string' }, { type: 'integer' }],
          additionalItems: false,
          prefixItems: [{ type: 'number' }, { type: 'boolean' }],
        },
      },
    };
    for (const options of [{ dialect: 'anthropic' }, { dialect: 'gemini' }] as const) {
      const { report, schema } = entriesFor(input, options);
      const pair = (schema.properties as JsonObject).pair as JsonObject;
      assert.deepEqual(pair.prefixItems, [{ type: 'number' }, { type: 'boolean' }], options.dialect);
      assert.equal(pair.items, undefined);
      for (const keyword of ['items', 'additionalItems'])
        assert.ok(
          report.some(
            (entry) =>
              entry.pointer === '/properties/pair' && entry.action === 'dropped' && entry.keyword === keyword,
          ),
          `${options.dialect} ${keyword}`,
        );
    }
  });

  it('Gemini openapi: a `nullable: false` (or a non-boolean nullable) is no longer left out unreported', () => {
    for (const nullable of [false, 'no']) {
      const { report, schema } = entriesFor(
        { type: 'object', properties: { a: { type: 'string', nullable } } },
        { dialect: 'gemini', geminiSchema: 'openapi' },
      );
      assert.equal(((schema.properties as JsonObject).a as JsonObject).nullable, undefined);
      assert.ok(
        report.some(
          (entry) =>
            entry.pointer === '/properties/a' && entry.action === 'dropped' && entry.keyword === 'nullable',
        ),
        JSON.stringify(nullable),
      );
    }
  });

  it('JSON Schema repairs: draft-07 `dependencies` added to an existing `dependentSchemas` / `dependentRequired` is reported there, and never overwrites an entry of the 2020-12 keyword', () => {
    const input: JsonObject = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      dependencies: { a: { required: ['b'] }, b: ['c'], c: ['a'], d: 5 },
      dependentSchemas: {},
      dependentRequired: { c: ['b'] },
    };
    for (const options of [{ dialect: 'anthropic' }, { dialect: 'gemini' }] as const) {
      const { report, schema } = entriesFor(input, options);
      assert.deepEqual(schema.dependentSchemas, { a: { required: ['b'] } });
      assert.deepEqual(schema.dependentRequired, { b: ['c'], c: ['b'] }, 'the 2020-12 entry for c is kept');
      for (const keyword of ['dependentSchemas', 'dependentRequired'])
        assert.ok(
          report.some((entry) => entry.action === 'rewritten' && entry.keyword === keyword),
          keyword,
        );
      assert.equal(
        report.filter((entry) => entry.action === 'dropped' && entry.keyword === 'dependencies').length,
        2,
        'the colliding entry (c) and the malformed one (d) are reported',
      );
    }
  });

  it('Gemini openapi: a union branch that accepts nothing is no longer removed without an entry for the union', () => {
    const { report, schema } = entriesFor(
      {
        type: 'object',
        properties: { a: { anyOf: [{ type: 'string' }, false, { type: 'string', minLength: 2 }] } },
      },
      { dialect: 'gemini', geminiSchema: 'openapi' },
    );
    assert.equal((((schema.properties as JsonObject).a as JsonObject).anyOf as JsonValue[]).length, 2);
    assert.ok(
      report.some(
        (entry) =>
          entry.pointer === '/properties/a' && entry.action === 'dropped' && entry.keyword === 'anyOf',
      ),
    );
  });
});
