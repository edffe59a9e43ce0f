import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createArgumentValidator,
  createToolRegistry,
  type JsonValue,
  MAX_ARGUMENT_ERROR_BYTES,
  parseArguments,
  sharedArgumentValidator,
  ToolhostError,
  type ValidateArgumentsOptions,
  validateArguments,
} from '../src/index.js';
import { sampleTool } from './helpers.js';

const readSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: {
    path: { type: 'string', minLength: 1 },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 2000 },
    intent: { enum: ['inspect', 'range', 'full'] },
  },
};

function check(args: unknown, extra: Partial<ValidateArgumentsOptions> = {}) {
  return validateArguments({
    toolName: 'read_file',
    source: 'builtin',
    schema: readSchema,
    arguments: args,
    ...extra,
  });
}

function failureOf(result: ReturnType<typeof check>): ToolhostError {
  assert.equal(result.ok, false, 'expected a validation failure');
  return (result as { ok: false; error: ToolhostError }).error;
}

describe('parseArguments', () => {
  // CT-ARG-1
  const empties: unknown[] = [undefined, null, '', '   ', 'null', ' null '];
  for (const raw of empties) {
    it(`treats ${JSON.stringify(raw) ?? 'undefined'} as {}`, () => {
      assert.deepEqual(parseArguments(raw), { ok: true, value: {} });
    });
  }

  it('parses a JSON string and passes objects through untouched', () => {
    assert.deepEqual(parseArguments(' {"path":"a"} '), { ok: true, value: { path: 'a' } });
    const object = { path: 'a' };
    assert.equal((parseArguments(object) as { value: unknown }).value, object);
  });

  const notOneValue = ['{"path":"a"} {"path":"b"}', '{path: a}', '{"path":', 'undefined', '[1,2]x'];
  for (const raw of notOneValue) {
    it(`gives keyword json for ${JSON.stringify(raw)}`, () => {
      const result = parseArguments(raw);
      assert.equal(result.ok, false);
      assert.equal((result as { error: { keyword: string } }).error.keyword, 'json');
    });
  }
});

describe('validateArguments', () => {
  it('accepts valid arguments given as an object or a JSON string', () => {
    assert.deepEqual(check({ path: 'a.ts', offset: 2 }), {
      ok: true,
      value: { arguments: { path: 'a.ts', offset: 2 }, schemaValidated: true },
    });
    assert.deepEqual(check('{"path":"a.ts"}'), {
      ok: true,
      value: { arguments: { path: 'a.ts' }, schemaValidated: true },
    });
  });

  // CT-ARG-2: no coercion
  const noCoercion: Array<[string, unknown, string]> = [
    ['a numeric string for an integer', { path: 'a', offset: '5' }, 'type'],
    ['a float for an integer', { path: 'a', limit: 2.5 }, 'type'],
    ['a number for a string', { path: 5 }, 'type'],
    ['a boolean string', { path: 'a', limit: 'true' }, 'type'],
  ];
  for (const [label, args, keyword] of noCoercion) {
    it(`does not coerce ${label}`, () => {
      const error = failureOf(check(args));
      assert.equal(error.code, 'ARGUMENT_VALIDATION');
      assert.match(error.message, new RegExp(`: ${keyword}; expected`));
    });
  }

  it('treats empty and null arguments as {} and so reports the missing required property', () => {
    for (const raw of [undefined, null, '', 'null']) {
      const error = failureOf(check(raw));
      assert.match(error.message, /^- \/: required; expected required properties: path$/m);
    }
  });

  // CT-ARG-3
  it('starts with the tool name, the validation id and the 16-hex fingerprint and says remote_dispatched=false', () => {
    const error = failureOf(check({}));
    assert.match(
      error.message,
      /^argument validation failed for "read_file" \(id argument_validation:read_file:[0-9a-f]{16}:required; schema fingerprint [0-9a-f]{16}; remote_dispatched=false\)/,
    );
    assert.equal(error.details.remoteDispatched, false);
    assert.ok(error.message.includes(error.signature as string), 'the id shown is the signature');
  });

  it('argument-validation id shown: the model text carries the id the storm breaker and the audit log use', () => {
    const error = failureOf(check({ path: 'a', nope: 1 }));
    assert.ok(error.toModelText().includes(`id ${error.signature}`));
  });

  it('envelope keys: undeclared keys on a schema with an `arguments` object are said to belong inside `arguments`, not at the top level', () => {
    const envelope = {
      type: 'object',
      properties: { action: { type: 'string' }, arguments: { type: 'object' } },
      required: ['action'],
      additionalProperties: false,
    };
    const checked = validateArguments({
      toolName: 'use_capability',
      source: 'builtin',
      schema: envelope,
      arguments: { action: 'call', path: 'README.md' },
      invocation: { kind: 'direct' },
    });
    assert.equal(checked.ok, false);
    const message = checked.ok ? '' : checked.error.message;
    assert.match(message, /go inside its `arguments` object/);
    assert.doesNotMatch(message, /at the top level/);
  });

  // CT-ARG-4
  it('lists violations as "path: keyword; expected ..." lines without the supplied values', () => {
    const secret = 'sk-THIS-IS-A-SECRET-VALUE';
    const error = failureOf(
      check({ path: '', offset: secret, limit: 99999, intent: secret, [secret.toLowerCase()]: 1 }),
    );
    const text = error.toModelText();
    assert.equal(text.includes(secret), false, 'a supplied value leaked into the message');
    assert.match(text, /^- \/path: minLength; expected at least 1 characters$/m);
    assert.match(text, /^- \/offset: type; expected type integer$/m);
    assert.match(text, /^- \/limit: maximum; expected a number <= 2000$/m);
    assert.match(text, /^- \/intent: enum; expected one of: inspect, range, full$/m);
    assert.match(text, /^- \/: additionalProperties; expected only declared properties; remove: /m);
  });

  it('reports at most 8 violations', () => {
    const properties: Record<string, JsonValue> = {};
    const args: Record<string, unknown> = {};
    for (let index = 0; index < 20; index++) {
      properties[`p${index}`] = { type: 'integer' };
      args[`p${index}`] = 'x';
    }
    const result = validateArguments({
      toolName: 'wide',
      source: 'builtin',
      schema: { type: 'object', properties },
      arguments: args,
    });
    const error = failureOf(result);
    const lines = error.message.split('\n').filter((line) => /^- \/p\d+: /.test(line));
    assert.equal(lines.length, 8);
    assert.match(error.message, /12 more not shown/);
  });

  // CT-ARG-5
  it('caps the model text at 4096 bytes, cut on a UTF-8 boundary and ending in [truncated]', () => {
    const name = '工具'.repeat(20);
    const properties: Record<string, JsonValue> = {};
    const args: Record<string, unknown> = {};
    for (let index = 0; index < 8; index++) {
      const key = `${'键'.repeat(40)}${index}`;
      properties[key] = { enum: Array.from({ length: 100 }, (_, n) => `值${'長'.repeat(20)}${n}`) };
      args[key] = 'nope';
    }
    const schema = { type: 'object', properties };
    const result = validateArguments({
      toolName: name,
      source: 'mcp',
      schema,
      arguments: args,
      invocation: { kind: 'capability', capabilityId: `mcp-tool:${'服'.repeat(300)}/x` },
    });
    const text = failureOf(result).toModelText();
    assert.ok(Buffer.byteLength(text) <= MAX_ARGUMENT_ERROR_BYTES, `${Buffer.byteLength(text)} bytes`);
    assert.ok(text.endsWith('\n[truncated]'));
    assert.equal(text.includes('\uFFFD'), false, 'a character was split');
  });

  // CT-ARG-6
  it('gives the id argument_validation:<tool>:<fp16>:<first keyword>, the same for different wrong values', () => {
    const a = failureOf(check({ path: 'a', offset: 'x' }));
    const b = failureOf(check({ path: 'b', offset: true }));
    assert.match(a.signature ?? '', /^argument_validation:read_file:[0-9a-f]{16}:type$/);
    assert.equal(a.signature, b.signature);
    assert.match(failureOf(check({})).signature ?? '', /:required$/);
    assert.match(failureOf(check('{bad')).signature ?? '', /:json$/);
  });

  // CT-ARG-7
  it('tells a direct caller to put parameters at the top level', () => {
    const text = failureOf(check({})).message;
    assert.match(text, /at the top level of the call's arguments object/);
    assert.doesNotMatch(text, /use_capability/);
  });

  it('tells a capability caller to nest parameters inside arguments and to inspect', () => {
    const text = failureOf(
      check({}, { toolName: 'grep', invocation: { kind: 'capability', capabilityId: 'tool:grep' } }),
    ).message;
    assert.match(text, /inside `arguments` of the use_capability call/);
    assert.match(text, /use_capability\(action="inspect", capability_id="tool:grep"\)/);
    assert.doesNotMatch(text, /top level/);
  });

  // CT-ARG-8
  const wrapperCases: Array<[string, Record<string, JsonValue>, unknown, boolean]> = [
    [
      'the sole key is arguments and the inner object validates',
      readSchema,
      { arguments: { path: 'a' } },
      true,
    ],
    ['the inner object does not validate', readSchema, { arguments: { offset: 1 } }, false],
    ['there is a second key', readSchema, { arguments: { path: 'a' }, extra: 1 }, false],
    ['the inner value is not an object', readSchema, { arguments: '{"path":"a"}' }, false],
    [
      'the schema has an arguments property',
      {
        type: 'object',
        required: ['path'],
        properties: { path: { type: 'string' }, arguments: { type: 'integer' } },
      },
      { arguments: { path: 'a' } },
      false,
    ],
    ['the schema is not a plain object schema', { anyOf: [readSchema] }, { arguments: { path: 'a' } }, false],
  ];
  for (const [label, schema, args, expected] of wrapperCases) {
    it(`${expected ? 'gives' : 'does not give'} the wrapper hint when ${label}`, () => {
      const error = failureOf(
        validateArguments({ toolName: 't', source: 'builtin', schema, arguments: args }),
      );
      assert.equal(/remove the redundant `arguments` wrapper/.test(error.message), expected);
    });
  }

  // CT-ARG-9
  it('reports an uncompilable built-in schema as a host configuration error (category schema)', () => {
    const schema = { type: 'object', properties: { a: { type: 'no-such-type' } } };
    const error = failureOf(
      validateArguments({ toolName: 'broken', source: 'builtin', schema, arguments: {} }),
    );
    assert.equal(error.code, 'HOST_CONFIGURATION');
    assert.equal(error.details.category, 'schema');
    assert.match(error.signature ?? '', /^argument_validation:broken:[0-9a-f]{16}:schema$/);
    assert.match(error.message, /execution was not dispatched/);
  });

  it('skips validation for an uncompilable mcp or dynamic schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'no-such-type' } } };
    for (const source of ['mcp', 'dynamic'] as const) {
      const result = validateArguments({ toolName: 'remote', source, schema, arguments: { a: 'anything' } });
      assert.deepEqual(result, { ok: true, value: { arguments: { a: 'anything' }, schemaValidated: false } });
    }
  });

  it('still refuses non-JSON text and non-object values for an unvalidated schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'no-such-type' } } };
    assert.equal(validateArguments({ toolName: 'r', source: 'mcp', schema, arguments: '{x' }).ok, false);
    assert.equal(validateArguments({ toolName: 'r', source: 'mcp', schema, arguments: [1] }).ok, false);
  });

  it('uses draft-07 when the schema says so, and 2020-12 by default', () => {
    // `items` as an array is a tuple in draft-07 and invalid in 2020-12 (prefixItems replaced it).
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } },
    };
    assert.equal(
      validateArguments({ toolName: 'd7', source: 'builtin', schema: draft07, arguments: { pair: ['a', 1] } })
        .ok,
      true,
    );
    assert.equal(
      validateArguments({
        toolName: 'd7',
        source: 'builtin',
        schema: draft07,
        arguments: { pair: ['a', 'b'] },
      }).ok,
      false,
    );
    const modern = {
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
    };
    assert.equal(
      validateArguments({ toolName: 'm', source: 'builtin', schema: modern, arguments: { pair: ['a', 'b'] } })
        .ok,
      false,
    );
  });

  it('falls back to draft-07 when a schema without $schema does not compile as 2020-12', () => {
    // Draft-04-style boolean exclusiveMinimum... compiles in neither; a draft-07-only form is `dependencies` + tuple items with additionalItems.
    const schema = {
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
    };
    assert.equal(
      validateArguments({ toolName: 'fb', source: 'builtin', schema, arguments: { t: ['a'] } }).ok,
      true,
    );
    assert.equal(
      validateArguments({ toolName: 'fb', source: 'builtin', schema, arguments: { t: ['a', 'b'] } }).ok,
      false,
    );
  });

  it('folds combinator branches into one value-free line', () => {
    const schema = { type: 'object', properties: { n: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } };
    const error = failureOf(
      validateArguments({ toolName: 'c', source: 'builtin', schema, arguments: { n: 'five' } }),
    );
    assert.match(
      error.message,
      /^- \/n: anyOf; expected a value matching at least one of 2 alternatives \(integer, null\)$/m,
    );
    assert.doesNotMatch(error.message, /\/n: type/);
  });

  it('merges several missing required properties into one line', () => {
    const schema = { type: 'object', required: ['a', 'b', 'c'], properties: {} };
    const error = failureOf(validateArguments({ toolName: 'm', source: 'builtin', schema, arguments: {} }));
    assert.match(error.message, /^- \/: required; expected required properties: a, b, c$/m);
  });
});

/** Validates in a child process (a blocked validation would also block this runner's timers). */
function validateInChild(schema: object, args: object): Promise<{ blocked: boolean; output: string }> {
  const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = `
    import { validateArguments } from ${JSON.stringify(index)};
    const result = validateArguments({ toolName: 'mcp_tool', source: 'mcp', schema: ${JSON.stringify(schema)}, arguments: ${JSON.stringify(args)} });
    process.stdout.write(JSON.stringify(result.ok ? { ok: true } : { ok: false, code: result.error.code, text: result.error.toModelText() }));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    let blocked = false;
    // Generous: it only tells a blocked process from a slow one; nothing is asserted about time.
    const timer = setTimeout(() => {
      blocked = true;
      child.kill('SIGKILL');
    }, 90_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ blocked, output });
    });
  });
}

describe('validateArguments (model-supplied values against schema patterns)', () => {
  const evil = `${'a'.repeat(46)}!`;

  it('a schema pattern ^(a+)+$ over a value of 46 a does not block the host (issue 15: hangs)', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    const run = await validateInChild(schema, { name: evil });
    assert.equal(run.blocked, false, 'validation blocked its process');
    const result = JSON.parse(run.output);
    assert.equal(result.ok, false);
    assert.equal(result.code, 'ARGUMENT_VALIDATION');
    assert.match(result.text, /- \/name: pattern; expected a string matching the pattern/);
  });

  it('a patternProperties pattern (a|a)*b over a 46-character property name does not block the host', async () => {
    const schema = { type: 'object', patternProperties: { '^(a|a)*b$': { type: 'integer' } } };
    const run = await validateInChild(schema, { ['a'.repeat(46)]: 'x', ['a'.repeat(5) + 'b']: 1 });
    assert.equal(run.blocked, false, 'validation blocked its process');
    assert.deepEqual(JSON.parse(run.output), { ok: true });
  });

  it('matches patterns with JavaScript meaning (the u flag, \\p{..}, \\d, anchors)', () => {
    const schema = {
      type: 'object',
      properties: {
        date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        word: { type: 'string', pattern: '^\\p{L}+$' },
      },
    };
    const good = validateArguments({
      toolName: 't',
      source: 'mcp',
      schema,
      arguments: { date: '2026-11-30', word: 'Ωmega' },
    });
    assert.ok(good.ok);
    const bad = validateArguments({
      toolName: 't',
      source: 'mcp',
      schema,
      arguments: { date: '2026-11-3', word: 'a1' },
    });
    assert.ok(!bad.ok);
    assert.match(bad.error.message, /\/date: pattern/);
    assert.match(bad.error.message, /\/word: pattern/);
  });

  it('refuses a value for a pattern with look-ahead or a backreference with ARGUMENT_VALIDATION saying why', () => {
    for (const pattern of ['^(?=.*\\d)\\w+$', '^(a)\\1$']) {
      const schema = {
        type: 'object',
        properties: { code: { type: 'string', pattern }, n: { type: 'integer' } },
      };
      const refused = validateArguments({
        toolName: 't',
        source: 'mcp',
        schema,
        arguments: { code: 'abc1' },
      });
      assert.ok(!refused.ok, pattern);
      assert.equal(refused.error.code, 'ARGUMENT_VALIDATION');
      assert.match(
        refused.error.message,
        /pattern of this tool's schema cannot be run safely: a (look-ahead|backreference) .*needs a backtracking engine/,
      );
      assert.ok(!refused.error.message.includes('abc1'), 'the value is not echoed');
      // Values that never reach the pattern are still validated by the other keywords.
      const other = validateArguments({ toolName: 't', source: 'mcp', schema, arguments: { n: 1 } });
      assert.ok(other.ok);
      const wrong = validateArguments({ toolName: 't', source: 'mcp', schema, arguments: { n: 'x' } });
      assert.ok(!wrong.ok && /\/n: type/.test(wrong.error.message));
    }
  });
});

describe('createArgumentValidator', () => {
  it('caches compiled validators by fingerprint and shares them across equal schemas', () => {
    const validator = createArgumentValidator();
    const registry = createToolRegistry();
    const tool = registry.register(sampleTool('cached'));
    for (let index = 0; index < 5; index++) {
      validator.validate({
        toolName: 'cached',
        source: 'builtin',
        schema: tool.canonicalSchema,
        schemaHash: tool.schemaHash,
        arguments: {},
      });
    }
    validator.validate({
      toolName: 'copy',
      source: 'builtin',
      schema: JSON.parse(tool.canonicalSchemaJson),
      arguments: {},
    });
    assert.equal(validator.cacheSize, 1);
  });

  it('evicts the least recently used schema past its limit', () => {
    const validator = createArgumentValidator({ maxCacheEntries: 2 });
    for (let index = 0; index < 5; index++) {
      const schema = { type: 'object', properties: { [`p${index}`]: { type: 'string' } } };
      assert.equal(validator.validate({ toolName: 't', source: 'builtin', schema, arguments: {} }).ok, true);
    }
    assert.equal(validator.cacheSize, 2);
  });

  it('returns errors that are toolhost errors', () => {
    const result = createArgumentValidator().validate({
      toolName: 't',
      source: 'builtin',
      schema: readSchema,
      arguments: {},
    });
    assert.equal(ToolhostError.isInstance((result as { error: unknown }).error), true);
  });
});

describe('sharedArgumentValidator', () => {
  it('is one validator per process, the one validateArguments uses', () => {
    assert.equal(sharedArgumentValidator(), sharedArgumentValidator());
    const before = sharedArgumentValidator().cacheSize;
    const schema = {
      type: 'object',
      properties: { [`unique_${process.pid}_${Date.now()}`]: { type: 'string' } },
    };
    assert.equal(
      validateArguments({ toolName: 'shared', source: 'builtin', schema, arguments: {} }).ok,
      true,
    );
    assert.equal(sharedArgumentValidator().cacheSize, before + 1);
  });
});
