// validateForProvider knows every rule the compilers enforce: for each reason compileTools
// refuses a tool set (CONFIG_INVALID), quarantines or drops a tool, or compiles a tool non-strict
// (strict-fallback), the same input, sent to the provider as it is, is flagged by a validator rule.
// The reasons are read from the compilers' sources, so a new one without a case here fails.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { JsonObject, JsonValue, ModelTool } from '@toolhost/contracts';
import {
  type CompiledTools,
  type CompileToolsOptions,
  compileTools,
  DialectError,
  type DialectName,
} from '../src/index.js';
import { validateForProvider } from '../src/validate-for-provider.js';
import { testPath } from './helpers.js';

/** A tool as the provider would receive it uncompiled: the input schema in the dialect's envelope. */
function wire(dialect: DialectName, name: string, schema: JsonValue, strict = false): JsonObject {
  switch (dialect) {
    case 'openai-chat':
      return {
        type: 'function',
        function: { name, parameters: schema, ...(strict ? { strict: true } : {}) },
      };
    case 'openai-responses':
      return { type: 'function', name, parameters: schema, strict };
    case 'anthropic':
      return { name, input_schema: schema };
    case 'gemini':
      return { functionDeclarations: [{ name, description: 'A tool.', parametersJsonSchema: schema }] };
  }
}

const object = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  properties,
  ...extra,
});

function nested(levels: number): JsonObject {
  let schema: JsonObject = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = object({ a: schema });
  return schema;
}

function deep(levels: number): JsonValue {
  let value: JsonValue = {};
  for (let level = 0; level < levels; level++) value = { type: 'object', properties: { a: value } };
  return value;
}

const word = (index: number, length: number) => `v${String(index).padStart(length - 1, '0')}`;

/** One reason the compiler acts on a tool, and the validator rule that flags the same input. */
interface Case {
  readonly reason: string;
  readonly kind: 'strict-fallback' | 'quarantine' | 'refusal' | 'drop';
  readonly dialects: readonly DialectName[];
  readonly schema?: JsonValue;
  /** The tool set compiled (default: one tool `t` with `schema`). */
  readonly tools?: (dialect: DialectName) => ModelTool[];
  /** The same input on the wire (default: `t` with `schema` in the envelope, strict for strict cases). */
  readonly wireTools?: (dialect: DialectName) => JsonValue[];
  readonly options?: Partial<CompileToolsOptions>;
  readonly rule: string;
  /** A dialect whose validator names the rule otherwise. */
  readonly rules?: Partial<Record<DialectName, string>>;
}

const OPENAI: readonly DialectName[] = ['openai-chat', 'openai-responses'];
const ALL: readonly DialectName[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];

const CASES: readonly Case[] = [
  // Strict mode: the compiler falls back to non-strict; a strict tool with that schema is flagged.
  {
    reason: 'a boolean schema has no type',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: true }),
    rule: 'strict-type',
  },
  {
    reason: '`oneOf` beside `anyOf` cannot be expressed',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { anyOf: [{ type: 'string' }], oneOf: [{ type: 'number' }] } }),
    rule: 'strict-keyword',
  },
  {
    reason: 'strict mode does not support `allOf`',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { allOf: [{ type: 'string' }, { type: 'string', pattern: '^a' }] } }),
    rule: 'strict-keyword',
  },
  {
    reason: 'a schema without `type` accepts any value',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { description: 'anything' } }),
    rule: 'strict-type',
  },
  {
    reason: 'an array without a single `items` schema',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } }),
    rule: 'strict-items',
  },
  {
    reason: 'a recursive `$ref` with sibling keywords',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object(
      { list: { $ref: '#/$defs/Node' } },
      {
        $defs: {
          Node: object(
            { value: { type: 'string' }, next: { $ref: '#/$defs/Node', description: 'the rest' } },
            { required: ['value'] },
          ),
        },
      },
    ),
    rule: 'strict-ref-siblings',
  },
  {
    reason: 'beside a `$ref` whose target also sets it',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object(
      { a: { $ref: '#/$defs/N', minimum: 2 } },
      { $defs: { N: { type: 'number', minimum: 1 } } },
    ),
    rule: 'strict-ref-siblings',
  },
  {
    reason: 'an object with no declared properties (free-form)',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { type: 'object' } }),
    rule: 'strict-additional-properties',
  },
  {
    reason: 'nesting deeper than',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: nested(11),
    rule: 'strict-depth',
  },
  {
    reason: 'an enum of more than',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({
      a: { type: 'string', enum: Array.from({ length: 251 }, (_, index) => word(index, 61)) },
    }),
    rule: 'strict-limit',
  },
  {
    reason: 'object properties exceed the strict-mode limit',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object(
      Object.fromEntries(Array.from({ length: 5001 }, (_, index) => [word(index, 5), { type: 'string' }])),
    ),
    rule: 'strict-limit',
  },
  {
    reason: 'characters of names and enum values exceed',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object(
      Object.fromEntries(
        Array.from({ length: 8 }, (_, index) => [
          word(index, 3),
          { type: 'string', enum: Array.from({ length: 120 }, (_, value) => word(value, 130)) },
        ]),
      ),
    ),
    rule: 'strict-limit',
  },
  {
    reason: 'enum values exceed the strict-mode limit',
    kind: 'strict-fallback',
    dialects: OPENAI,
    schema: object({ a: { type: 'integer', enum: Array.from({ length: 1001 }, (_, index) => index) } }),
    rule: 'strict-limit',
  },
  // Quarantine: the tool is left out; the same schema on the wire is flagged.
  {
    reason: 'the root schema is `false`',
    kind: 'quarantine',
    dialects: ALL,
    schema: false,
    rule: 'root-object',
  },
  {
    reason: 'the input schema is not a JSON Schema object',
    kind: 'quarantine',
    dialects: ALL,
    schema: 'an object, please',
    rule: 'root-object',
  },
  {
    reason: 'the root `$ref` points at a boolean schema',
    kind: 'quarantine',
    dialects: ALL,
    schema: { $ref: '#/$defs/Anything', $defs: { Anything: true } },
    rule: 'root-object',
  },
  // Drop: past the provider's cap on function tools.
  {
    reason: 'the provider accepts at most',
    kind: 'drop',
    dialects: ['openai-chat', 'gemini'],
    tools: (dialect) =>
      Array.from({ length: dialect === 'gemini' ? 513 : 129 }, (_, index) => ({
        name: word(index, 4),
        description: 'A tool.',
        inputSchema: object({ a: { type: 'string' } }),
      })),
    wireTools: (dialect) =>
      dialect === 'gemini'
        ? [
            {
              functionDeclarations: Array.from({ length: 513 }, (_, index) => ({
                name: word(index, 4),
                description: 'A tool.',
                parametersJsonSchema: object({ a: { type: 'string' } }),
              })),
            },
          ]
        : Array.from({ length: 129 }, (_, index) =>
            wire(dialect, word(index, 4), object({ a: { type: 'string' } })),
          ),
    rule: 'max-tools',
  },
  // Refusal: compileTools throws CONFIG_INVALID for the tool set.
  {
    reason: 'nests deeper than',
    kind: 'refusal',
    dialects: ALL,
    schema: deep(130),
    rule: 'schema-depth',
  },
  {
    reason: 'two tools share one name',
    kind: 'refusal',
    dialects: ALL,
    tools: () => [
      { name: 'same', description: 'A.', inputSchema: object({}) },
      { name: 'same', description: 'B.', inputSchema: object({}) },
    ],
    wireTools: (dialect) =>
      dialect === 'gemini'
        ? [
            {
              functionDeclarations: [
                { name: 'same', description: 'A.', parametersJsonSchema: object({}) },
                { name: 'same', description: 'B.', parametersJsonSchema: object({}) },
              ],
            },
          ]
        : [wire(dialect, 'same', object({})), wire(dialect, 'same', object({}))],
    rule: 'name-unique',
  },
  {
    // Only Anthropic's wire names its server tools; the other providers' hosted tools have a type only.
    reason: 'a function tool has the same wire name as a hosted tool',
    kind: 'refusal',
    dialects: ['anthropic'],
    tools: () => [
      { name: 'web_search', description: 'Mine.', inputSchema: object({ q: { type: 'string' } }) },
    ],
    options: {
      hosted: [
        {
          name: 'web_search',
          declarations: { anthropic: { type: 'web_search_20250305', name: 'web_search' } },
        },
      ],
    },
    wireTools: () => [
      wire('anthropic', 'web_search', object({ q: { type: 'string' } })),
      { type: 'web_search_20250305', name: 'web_search' },
    ],
    rule: 'name-unique',
  },
  {
    reason: 'each tool must be an object with a string `name`',
    kind: 'refusal',
    dialects: ALL,
    tools: () => ['not a tool'] as unknown as ModelTool[],
    wireTools: (dialect) =>
      dialect === 'gemini' ? [{ functionDeclarations: ['not a tool'] }] : ['not a tool'],
    rule: 'tool-object',
    rules: { gemini: 'function-declarations' },
  },
  {
    reason: 'tools must be an array',
    kind: 'refusal',
    dialects: ALL,
    tools: () => ({ not: 'an array' }) as unknown as ModelTool[],
    wireTools: () => ({ not: 'an array' }) as unknown as JsonValue[],
    rule: 'tools-array',
  },
];

/** The string literals (and template literals, substitutions as `…`) in a piece of source. */
function literals(source: string): string[] {
  const out: string[] = [];
  const pattern = /'((?:\\.|[^'\\])*)'|`((?:\\.|[^`\\])*)`/g;
  for (const match of source.matchAll(pattern)) {
    const text = match[1] ?? match[2]!.replace(/\$\{[^}]*\}/g, '…');
    out.push(text.replace(/\\`/g, '`').replace(/\\'/g, "'"));
  }
  return out;
}

/** The source of the call's arguments: from the opening parenthesis to its match. */
function callArguments(source: string, open: number): string {
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    const char = source[index];
    if (char === '(' || char === '{' || char === '[') depth += 1;
    if (char === ')' || char === '}' || char === ']') depth -= 1;
    if (depth === 0) return source.slice(open + 1, index);
  }
  return source.slice(open + 1);
}

/** Splits an argument list at its top-level commas. */
function topLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < list.length; index++) {
    const char = list[index]!;
    if (quote) {
      if (char === '\\') index += 1;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "'" || char === '`' || char === '"') quote = char;
    else if ('({['.includes(char)) depth += 1;
    else if (')}]'.includes(char)) depth -= 1;
    else if (char === ',' && depth === 0) {
      parts.push(list.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(list.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The reason texts of each compiler refusal, quarantine, strict fallback and drop, from the sources. */
function sourceReasons(): { kind: Case['kind']; text: string }[] {
  const read = (file: string) => readFileSync(testPath('..', 'src', file), 'utf8');
  const out: { kind: Case['kind']; text: string }[] = [];
  // new StrictUnsupportedError(pointer, keyword, reason) / new QuarantineError(pointer, keyword, reason)
  for (const [kind, file, marker] of [
    ['strict-fallback', 'schema-openai-strict.ts', 'new StrictUnsupportedError('],
    ['quarantine', 'schema-root.ts', 'new QuarantineError('],
  ] as const) {
    const source = read(file);
    for (let at = source.indexOf(marker); at >= 0; at = source.indexOf(marker, at + 1)) {
      const reason = topLevel(callArguments(source, at + marker.length - 1))[2] ?? '';
      for (const text of literals(reason)) out.push({ kind, text });
    }
  }
  // throw new DialectError({ code: 'CONFIG_INVALID', message: ... }) and the dropped-tools entry.
  for (const [kind, file, marker] of [
    ['refusal', 'compile-tools.ts', "code: 'CONFIG_INVALID',"],
    ['refusal', 'names.ts', "code: 'CONFIG_INVALID',"],
    ['drop', 'compile-tools.ts', "action: 'dropped',\n          keyword: 'tools',"],
  ] as const) {
    const source = read(file);
    for (let at = source.indexOf(marker); at >= 0; at = source.indexOf(marker, at + 1)) {
      const field = kind === 'drop' ? 'reason:' : 'message:';
      const from = source.indexOf(field, at);
      const text = literals(source.slice(from, source.indexOf('\n', from + field.length + 1) + 1))[0];
      if (text) out.push({ kind, text });
    }
  }
  return out;
}

function compileOutcome(
  tools: ModelTool[],
  options: CompileToolsOptions,
): { compiled?: CompiledTools; error?: DialectError } {
  try {
    return { compiled: compileTools(tools, options) };
  } catch (error) {
    if (error instanceof DialectError) return { error };
    throw error;
  }
}

describe('validateForProvider knows every rule the compilers enforce', () => {
  for (const entry of CASES) {
    for (const dialect of entry.dialects) {
      it(`${entry.kind} "${entry.reason}" (${dialect}) is flagged as ${entry.rule}`, () => {
        const strict = entry.kind === 'strict-fallback';
        const tools = entry.tools?.(dialect) ?? [
          { name: 't', description: 'A tool.', inputSchema: entry.schema as JsonObject },
        ];
        const options: CompileToolsOptions = {
          dialect,
          ...(strict ? { strict: true } : {}),
          ...entry.options,
        };
        const { compiled, error } = compileOutcome(tools, options);
        // The compiler does act on it for this reason.
        if (entry.kind === 'refusal') {
          assert.ok(error, 'compileTools refuses the tool set');
          assert.equal(error.code, 'CONFIG_INVALID');
          assert.ok(error.message.includes(entry.reason), error.message);
        } else {
          assert.ok(compiled, String(error?.message));
          const action = { 'strict-fallback': 'strict-fallback', quarantine: 'quarantined', drop: 'dropped' }[
            entry.kind
          ];
          assert.ok(
            compiled.report.some((item) => item.action === action && item.reason.includes(entry.reason)),
            `the compiler's ${action} entry says "${entry.reason}": ${JSON.stringify(compiled.report.filter((item) => item.action === action))}`,
          );
        }
        // The same input, as the provider would get it, breaks a rule the validator knows.
        const wireTools = entry.wireTools?.(dialect) ?? [
          wire(dialect, 't', entry.schema as JsonValue, strict),
        ];
        const rules = validateForProvider(wireTools, dialect).map((violation) => violation.rule);
        const rule = entry.rules?.[dialect] ?? entry.rule;
        assert.ok(rules.includes(rule), `validateForProvider gives ${JSON.stringify([...new Set(rules)])}`);
      });
    }
  }

  it('every refusal, quarantine, strict fallback and drop reason in the compilers has a case', () => {
    const reasons = sourceReasons();
    if (process.env.SHOW_REASONS) console.log(reasons);
    assert.ok(reasons.length >= 18, `${reasons.length} reasons found in the sources`);
    const missing = reasons.filter(
      (reason) => !CASES.some((entry) => entry.kind === reason.kind && reason.text.includes(entry.reason)),
    );
    // The unknown dialect refusal is a call error, not something a provider sees.
    assert.deepEqual(
      missing
        .map((reason) => `${reason.kind}: ${reason.text}`)
        .filter((text) => !text.includes('unknown dialect')),
      [],
    );
  });

  it('validateForProvider never overflows the stack on a deeply nested schema: it is flagged as schema-depth instead', () => {
    const schema = deep(20_000);
    for (const dialect of ALL) {
      const violations = validateForProvider([wire(dialect, 't', schema)], dialect);
      assert.deepEqual(
        violations.map((violation) => violation.rule),
        ['schema-depth'],
        dialect,
      );
    }
  });
});
