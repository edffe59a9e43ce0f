import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject, ModelTool } from '@toolhost/contracts';
import {
  type CompiledTools,
  compileTools,
  DIALECT_NAMES,
  DialectError,
  type DialectName,
} from '../src/index.js';
import { OPENAI_STRICT_LIMITS } from '../src/schema-openai-strict.js';
import { PROVIDER_LIMITS, validateForProvider } from '../src/validate-for-provider.js';
import { HOSTED_WEB_SEARCH } from './golden-cases.js';
import { deepFreeze, representativeTools } from './helpers.js';

/** The `read` and `edit` schemas of a reference agent, the inputs of PD-TOOLS-1. */
const READ: ModelTool = {
  name: 'read',
  description: 'Read a file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } },
    required: ['path'],
  },
};
const EDIT: ModelTool = {
  name: 'edit',
  description: 'Edit a file.',
  inputSchema: {
    type: 'object',
    $defs: { Range: { type: 'object', properties: { start: { type: 'integer' } } } },
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: {
          type: 'object',
          properties: { oldText: { type: 'string' }, newText: { type: 'string' }, note: { type: 'string' } },
          required: ['oldText', 'newText'],
        },
      },
      range: { $ref: '#/$defs/Range' },
      choice: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    },
    required: ['path', 'edits'],
  },
};

function schemaOf(compiled: CompiledTools, name: string): JsonObject {
  for (const tool of compiled.tools) {
    const fn = (tool.function as JsonObject | undefined) ?? tool;
    if (fn.name === name) return (fn.parameters ?? fn.input_schema) as JsonObject;
    for (const declaration of (tool.functionDeclarations as JsonObject[] | undefined) ?? []) {
      if (declaration.name === name)
        return (declaration.parametersJsonSchema ?? declaration.parameters) as JsonObject;
    }
  }
  throw new Error(`no tool ${name}`);
}

function names(compiled: CompiledTools): string[] {
  return compiled.tools.flatMap((tool) => {
    if (tool.functionDeclarations)
      return (tool.functionDeclarations as JsonObject[]).map((item) => item.name as string);
    const fn = (tool.function as JsonObject | undefined) ?? tool;
    return typeof fn.name === 'string' ? [fn.name] : [];
  });
}

describe('compileTools', () => {
  it('compiles read strictly: every property required, optional numbers nullable, no extra keys (PD-TOOLS-1)', () => {
    const input = deepFreeze(structuredClone(READ));
    const compiled = compileTools([input], { dialect: 'openai-chat', strict: true });
    const schema = schemaOf(compiled, 'read');
    assert.deepEqual([...(schema.required as string[])].sort(), ['limit', 'offset', 'path']);
    assert.deepEqual((schema.properties as JsonObject).offset, { type: ['number', 'null'] });
    assert.deepEqual((schema.properties as JsonObject).limit, { type: ['number', 'null'] });
    assert.deepEqual((schema.properties as JsonObject).path, { type: 'string' });
    assert.equal(schema.additionalProperties, false);
    assert.equal((compiled.tools[0]!.function as JsonObject).strict, true);
    assert.deepEqual(input, READ, 'the input object is not mutated');
  });

  it('applies the strict rules recursively to edits.items and wraps untyped properties in anyOf with null (PD-TOOLS-1)', () => {
    const compiled = compileTools([deepFreeze(structuredClone(EDIT))], {
      dialect: 'openai-responses',
      strict: true,
    });
    const schema = schemaOf(compiled, 'edit');
    const items = ((schema.properties as JsonObject).edits as JsonObject).items as JsonObject;
    assert.equal(items.additionalProperties, false);
    assert.deepEqual([...(items.required as string[])].sort(), ['newText', 'note', 'oldText']);
    assert.deepEqual((items.properties as JsonObject).note, { type: ['string', 'null'] });
    const properties = schema.properties as JsonObject;
    assert.deepEqual(properties.range, { anyOf: [{ $ref: '#/$defs/Range' }, { type: 'null' }] });
    assert.deepEqual(properties.choice, {
      anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }],
    });
    assert.equal(((schema.$defs as JsonObject).Range as JsonObject).additionalProperties, false);
  });

  it('makes only the named tools strict when given a list', () => {
    const compiled = compileTools([READ, EDIT], { dialect: 'openai-chat', strict: ['edit'] });
    assert.deepEqual(compiled.strictTools, ['edit']);
    assert.equal(
      (compiled.tools.find((tool) => (tool.function as JsonObject).name === 'read')!.function as JsonObject)
        .strict,
      undefined,
    );
  });

  it('falls back to non-strict with a report entry when the schema is over the strict limits', () => {
    const values = Array.from({ length: OPENAI_STRICT_LIMITS.maxEnumValues + 1 }, (_, index) => `v${index}`);
    const compiled = compileTools(
      [
        {
          name: 'pick',
          description: '',
          inputSchema: {
            type: 'object',
            properties: { v: { type: 'string', enum: values } },
            required: ['v'],
          },
        },
      ],
      { dialect: 'openai-chat', strict: true },
    );
    assert.equal((compiled.tools[0]!.function as JsonObject).strict, false);
    assert.deepEqual(compiled.strictTools, []);
    assert.ok(
      compiled.report.some((entry) => entry.action === 'strict-fallback' && entry.keyword === 'enum'),
    );
    assert.deepEqual(validateForProvider(compiled.tools, 'openai-chat'), []);
  });

  it('orders tools by wire name, whatever the input order (PD-TOOLS-2)', () => {
    const tools = representativeTools();
    for (const dialect of DIALECT_NAMES) {
      const compiled = compileTools(tools, { dialect });
      const list = names(compiled);
      assert.deepEqual(list, [...list].sort());
      assert.equal(
        JSON.stringify(compileTools([...tools].reverse(), { dialect }).tools),
        JSON.stringify(compiled.tools),
      );
    }
    const asGiven = compileTools([READ, EDIT], { dialect: 'anthropic', order: 'input' });
    assert.deepEqual(names(asGiven), ['read', 'edit']);
  });

  it('wraps OpenAI tools as {type, function} and Anthropic tools as {name, description, input_schema} with the same schema bytes (PD-TOOLS-3)', () => {
    const openai = compileTools([READ], { dialect: 'openai-chat' });
    const anthropic = compileTools([READ], { dialect: 'anthropic' });
    assert.deepEqual(Object.keys(openai.tools[0]!), ['type', 'function']);
    assert.deepEqual(Object.keys(openai.tools[0]!.function as JsonObject), [
      'name',
      'description',
      'parameters',
    ]);
    assert.deepEqual(Object.keys(anthropic.tools[0]!), ['name', 'description', 'input_schema']);
    assert.equal(JSON.stringify(schemaOf(openai, 'read')), JSON.stringify(schemaOf(anthropic, 'read')));
  });

  it('applies the tuple items → prefixItems transform only to the dialect that needs it (PD-TOOLS-4)', () => {
    const tuple: ModelTool = {
      name: 'range',
      description: '',
      inputSchema: {
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'integer' }, { type: 'integer' }] } },
      },
    };
    const anthropic = schemaOf(compileTools([tuple], { dialect: 'anthropic' }), 'range');
    assert.deepEqual((anthropic.properties as JsonObject).pair, {
      prefixItems: [{ type: 'integer' }, { type: 'integer' }],
      type: 'array',
    });
    const openai = schemaOf(compileTools([tuple], { dialect: 'openai-chat' }), 'range');
    assert.deepEqual((openai.properties as JsonObject).pair, {
      items: [{ type: 'integer' }, { type: 'integer' }],
      type: 'array',
    });
    assert.equal(
      JSON.stringify(schemaOf(compileTools([READ], { dialect: 'openai-responses' }), 'read')),
      JSON.stringify(schemaOf(compileTools([READ], { dialect: 'anthropic' }), 'read')),
      'a schema without tuples gives identical bytes',
    );
  });

  it('gives byte-identical output for the same input and never mutates it', () => {
    const tools = deepFreeze(representativeTools());
    for (const dialect of DIALECT_NAMES) {
      const a = compileTools(tools, { dialect, hosted: [HOSTED_WEB_SEARCH] });
      const b = compileTools(structuredClone(tools), { dialect, hosted: [HOSTED_WEB_SEARCH] });
      assert.equal(JSON.stringify(a), JSON.stringify(b));
    }
  });

  it('declares hosted tools in the dialect form and reports a dialect without a declaration', () => {
    const responses = compileTools([READ], { dialect: 'openai-responses', hosted: [HOSTED_WEB_SEARCH] });
    assert.deepEqual(responses.tools.at(-1), { type: 'web_search' });
    assert.deepEqual(responses.hostedTools, ['web_search']);
    const gemini = compileTools([READ], { dialect: 'gemini', hosted: [HOSTED_WEB_SEARCH] });
    assert.deepEqual(gemini.tools, [
      {
        functionDeclarations: [
          { name: 'read', description: 'Read a file.', parametersJsonSchema: schemaOf(gemini, 'read') },
        ],
      },
      { googleSearch: {} },
    ]);
    const chat = compileTools([READ], { dialect: 'openai-chat', hosted: [HOSTED_WEB_SEARCH] });
    assert.equal(chat.tools.length, 1);
    assert.ok(
      chat.report.some(
        (entry) => entry.tool === 'web_search' && entry.keyword === 'hosted' && entry.action === 'dropped',
      ),
    );
    const bad = compileTools([READ], {
      dialect: 'anthropic',
      hosted: [{ name: 'x', declarations: { anthropic: { name: 'x', input_schema: {} } } }],
    });
    assert.ok(bad.report.some((entry) => entry.tool === 'x' && entry.action === 'quarantined'));
    assert.throws(
      () =>
        compileTools([{ ...READ, name: 'web_search' }], {
          dialect: 'anthropic',
          hosted: [HOSTED_WEB_SEARCH],
        }),
      (error) => DialectError.isInstance(error) && error.code === 'CONFIG_INVALID',
    );
  });

  it('keeps at most 128 functions for OpenAI Chat and 512 declarations for Gemini, reporting the rest', () => {
    const many = (count: number): ModelTool[] =>
      Array.from({ length: count }, (_, index) => ({
        name: `tool_${String(index).padStart(4, '0')}`,
        description: '',
        inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
      }));
    const cases: [DialectName, number][] = [
      ['openai-chat', PROVIDER_LIMITS.openaiChatMaxTools],
      ['gemini', PROVIDER_LIMITS.geminiMaxDeclarations],
    ];
    for (const [dialect, cap] of cases) {
      const compiled = compileTools(many(cap + 3), { dialect });
      assert.equal(names(compiled).length, cap);
      assert.deepEqual(
        compiled.report.filter((entry) => entry.keyword === 'tools').map((entry) => entry.tool),
        [
          `tool_${String(cap).padStart(4, '0')}`,
          `tool_${String(cap + 1).padStart(4, '0')}`,
          `tool_${String(cap + 2).padStart(4, '0')}`,
        ],
      );
      assert.deepEqual(validateForProvider(compiled.tools, dialect), []);
      const kept = compileTools(many(cap + 1), { dialect, overflow: 'keep' });
      assert.equal(names(kept).length, cap + 1);
      assert.ok(validateForProvider(kept.tools, dialect).some((violation) => violation.rule === 'max-tools'));
    }
    assert.equal(names(compileTools(many(200), { dialect: 'anthropic' })).length, 200);
  });

  it('quarantines a tool whose schema cannot be a provider schema instead of failing the request', () => {
    const compiled = compileTools(
      [READ, { name: 'never', description: '', inputSchema: false as unknown as JsonObject }],
      { dialect: 'anthropic' },
    );
    assert.deepEqual(names(compiled), ['read']);
    assert.ok(compiled.report.some((entry) => entry.tool === 'never' && entry.action === 'quarantined'));
    assert.equal(
      compiled.nameMap.toWire.never,
      'never',
      'the name stays mapped for calls already in the history',
    );
  });

  it('merges a top-level anyOf of objects for every dialect and wraps a scalar root', () => {
    const union: ModelTool = {
      name: 'u',
      description: '',
      inputSchema: {
        anyOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          {
            type: 'object',
            properties: { a: { type: 'string' }, b: { type: 'number' } },
            required: ['a', 'b'],
          },
        ],
      },
    };
    const scalar: ModelTool = { name: 's', description: '', inputSchema: { type: 'string' } };
    for (const dialect of DIALECT_NAMES) {
      const compiled = compileTools([union, scalar], { dialect });
      const merged = schemaOf(compiled, 'u');
      assert.equal(merged.anyOf, undefined);
      assert.equal(merged.type, 'object');
      assert.deepEqual(merged.required, ['a']);
      assert.match(String(merged.description), /Accepts one of these shapes/);
      assert.deepEqual(schemaOf(compiled, 's').required, ['input']);
      assert.deepEqual(compiled.decoding.s, { unwrap: 'input' });
    }
  });

  it('sanitises MCP names, hash-suffixes collisions and overflow, and reports each rename', () => {
    const compiled = compileTools(representativeTools(), { dialect: 'openai-chat' });
    const { toWire } = compiled.nameMap;
    assert.equal(toWire['github.create_issue'], 'github_create_issue');
    assert.equal(toWire.slack_post_message, 'slack_post_message', 'a valid name keeps its name');
    assert.match(toWire['slack.post_message']!, /^slack_post_message_[0-9a-f]{8}$/);
    const long =
      toWire[
        'mcp__a-very-long-server-name-for-testing__some_extremely_long_tool_name_that_overflows_the_limit'
      ]!;
    assert.equal(long.length, 64);
    assert.match(long, /_[0-9a-f]{8}$/);
    const renamed = compiled.report.filter((entry) => entry.action === 'renamed').map((entry) => entry.tool);
    assert.ok(renamed.includes('github.create_issue') && renamed.includes('slack.post_message'));
    assert.ok(!renamed.includes('slack_post_message'));
  });

  it('throws CONFIG_INVALID for duplicate names, an unknown dialect or a malformed tool list', () => {
    const invalid = (run: () => unknown) =>
      assert.throws(run, (error) => DialectError.isInstance(error) && error.code === 'CONFIG_INVALID');
    invalid(() => compileTools([READ, READ], { dialect: 'anthropic' }));
    invalid(() => compileTools([READ], { dialect: 'mistral' as DialectName }));
    invalid(() => compileTools({} as unknown as ModelTool[], { dialect: 'gemini' }));
    invalid(() => compileTools([{ description: '' } as unknown as ModelTool], { dialect: 'gemini' }));
  });
});

describe('compileTools (Gemini parameters)', () => {
  const compiled = compileTools(representativeTools(), { dialect: 'gemini', geminiSchema: 'openapi' });

  it('inlines $ref, degrades a cycle to a JSON-encoded string and drops $defs', () => {
    const schema = schemaOf(compiled, 'memory_create_entities');
    const entity = ((schema.properties as JsonObject).entities as JsonObject).items as JsonObject;
    assert.equal(entity.type, 'OBJECT');
    const children = (entity.properties as JsonObject).children as JsonObject;
    assert.equal((children.items as JsonObject).type, 'STRING');
    assert.match(String((children.items as JsonObject).description), /recursive Entity structure/);
    assert.ok(!JSON.stringify(schema).includes('$ref'));
    assert.ok(!JSON.stringify(schema).includes('definitions'));
  });

  it('turns type arrays into nullable, const into a one-value enum and integer enums into strings', () => {
    const issue = schemaOf(compiled, 'github_create_issue').properties as JsonObject;
    assert.deepEqual(issue.assignee, { nullable: true, type: 'STRING' });
    assert.deepEqual(issue.priority, {
      description: '1 is the highest priority.',
      enum: ['1', '2', '3'],
      format: 'enum',
      type: 'STRING',
    });
    const slack = schemaOf(compiled, 'slack_post_message_40a9e173').properties as JsonObject;
    assert.deepEqual(slack.mode, { enum: ['plain'], type: 'STRING' });
  });

  it('declares a tool without properties without parameters', () => {
    const declaration = (compiled.tools[0]!.functionDeclarations as JsonObject[]).find(
      (item) => item.name === 'git_status',
    )!;
    assert.deepEqual(declaration, { name: 'git_status', description: 'Show the working tree status.' });
  });
});

describe('compileTools (verdicts)', () => {
  it('gives every function tool a verdict the host can quarantine on, with its report entries', () => {
    for (const dialect of ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const) {
      const compiled = compileTools(
        [
          {
            name: 'ok',
            description: 'Fine.',
            inputSchema: { type: 'object', properties: { a: { type: 'string' } } },
          },
          { name: 'never', description: 'Accepts nothing.', inputSchema: false as unknown as JsonObject },
        ],
        { dialect },
      );
      assert.equal(compiled.verdicts.ok?.status, 'sent');
      assert.equal(compiled.verdicts.never?.status, 'quarantined');
      assert.ok(compiled.verdicts.never!.report.some((entry) => entry.action === 'quarantined'));
      assert.ok(compiled.verdicts.never!.report.every((entry) => entry.tool === 'never'));
      assert.equal(JSON.stringify(compiled.tools).includes('never'), false);
    }
    const many = Array.from({ length: 130 }, (_, index) => ({
      name: `t${String(index).padStart(3, '0')}`,
      description: 'T.',
      inputSchema: { type: 'object', properties: {} },
    }));
    const capped = compileTools(many, { dialect: 'openai-chat' });
    assert.equal(capped.verdicts.t129?.status, 'dropped');
    assert.equal(Object.values(capped.verdicts).filter((verdict) => verdict.status === 'sent').length, 128);
  });
});
