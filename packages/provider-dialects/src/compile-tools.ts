import type { HostedToolDeclarations, JsonObject, JsonValue, ModelTool } from '@toolhost/contracts';
import { isJsonObject, own, sortKeysDeep } from './json-utils.js';
import type { ToolDecoding } from './decode-arguments.js';
import { DialectError } from './dialect-error.js';
import type { DialectName } from './ir.js';
import { DIALECT_NAMES } from './ir.js';
import { createNameMap, type NameMap } from './names.js';
import { type ReportEntry, Reporter } from './report.js';
import { hasAnnotations, stripAnnotations } from './schema-annotations.js';
import { applySchemaFixes } from './schema-fixes.js';
import { compileGeminiOpenApi, toGeminiWireTypes } from './schema-gemini-openapi.js';
import { compileOpenAIStrict, StrictUnsupportedError } from './schema-openai-strict.js';
import { moveToDescription, OPENAI_ROOT_REJECTED } from './schema-common.js';
import { MAX_SCHEMA_DEPTH, schemaTooDeep } from './schema-depth.js';
import { normalizeRoot, QuarantineError } from './schema-root.js';
import { PROVIDER_LIMITS, type ProviderViolation, validateForProvider } from './validate-for-provider.js';

/** A provider-executed tool: its name and its declaration per dialect (never dispatched locally). */
export interface HostedTool extends HostedToolDeclarations {
  readonly name: string;
}

/** Options of {@link compileTools}. */
export interface CompileToolsOptions {
  /** The wire format to compile for. */
  readonly dialect: DialectName;
  /**
   * OpenAI strict mode (both OpenAI dialects; ignored by the others): `true` for every tool, or
   * the neutral names of the tools to make strict. Default off. A tool strict mode cannot express
   * falls back to non-strict with a `strict-fallback` report entry.
   */
  readonly strict?: boolean | readonly string[];
  /**
   * Gemini only: `json-schema` (default) sends `parametersJsonSchema`; `openapi` sends the
   * OpenAPI-subset `parameters` (for models or proxies without `parametersJsonSchema`).
   */
  readonly geminiSchema?: 'json-schema' | 'openapi';
  /** Provider-executed tools, declared in each dialect's own form after the function tools. */
  readonly hosted?: readonly HostedTool[];
  /** `name` (default): function tools sorted by wire name, so the bytes do not depend on input order; `input`: as given. */
  readonly order?: 'name' | 'input';
  /**
   * What to do with function tools beyond the provider's cap (128 for OpenAI Chat, 512 for
   * Gemini): `drop` (default) leaves the rest out and reports each; `keep` sends them all (the
   * provider will reject the request; `validateForProvider` reports it).
   */
  readonly overflow?: 'drop' | 'keep';
}

/** The compiled tool list of one dialect. */
export interface CompiledTools {
  readonly dialect: DialectName;
  /** Exactly the array the provider receives as `tools`. */
  readonly tools: JsonObject[];
  /** Neutral ↔ wire tool names (every input tool, including quarantined and dropped ones). */
  readonly nameMap: NameMap;
  /** One entry per lossy step. */
  readonly report: ReportEntry[];
  /** Per wire name: how to decode arguments back (only tools whose argument shape changed). */
  readonly decoding: Readonly<Record<string, ToolDecoding>>;
  /** Wire names of the tools compiled in strict mode (OpenAI dialects). */
  readonly strictTools: readonly string[];
  /** Names of the hosted tools declared; calls to them are executed by the provider. */
  readonly hostedTools: readonly string[];
  /**
   * One verdict per input function tool (neutral name): whether it is `sent`, `quarantined`
   * (it would break a provider rule, or cannot be compiled, so it is left out rather than fail
   * every request) or `dropped` (beyond the provider's tool cap), with the rules it broke and its
   * report entries. Hosts quarantine on this and show the report.
   */
  readonly verdicts: Readonly<Record<string, ToolVerdict>>;
}

/** What became of one function tool in a compile (see {@link CompiledTools.verdicts}). */
export interface ToolVerdict {
  readonly status: 'sent' | 'quarantined' | 'dropped';
  readonly wireName: string;
  /** The provider rules the compiled tool broke (`validateForProvider`); empty unless quarantined. */
  readonly violations: readonly ProviderViolation[];
  /** This tool's report entries (every lossy step, the quarantine reason included). */
  readonly report: readonly ReportEntry[];
}

interface CompiledFunction {
  readonly name: string;
  readonly wireName: string;
  readonly description: string;
  readonly schema: JsonObject | undefined;
  readonly strict: boolean | undefined;
  readonly decoding: ToolDecoding | undefined;
}

/**
 * Compiles neutral tools (`{ name, description, inputSchema }`, as `toModelTools` returns them)
 * into one dialect's wire tool list, with a bidirectional name map, a report of every lossy step
 * and the decoding information `decodeToolCall` needs. Root schemas are normalised for every
 * dialect, then each dialect's profile applies (OpenAI: `items` for arrays, optional strict mode;
 * Anthropic: draft 2020-12 validity; Gemini: `parametersJsonSchema` repairs or the OpenAPI subset).
 * Each compiled tool is checked with `validateForProvider`; a tool that still breaks a rule, or
 * cannot be compiled at all, is quarantined (left out, reported) instead of failing the request.
 *
 * Pure and byte-deterministic: the same input and options give identical JSON, and with the
 * default `order: 'name'` the order of the input does not matter. Throws `DialectError`
 * `CONFIG_INVALID` for an unknown dialect, a tool list that is not an array of `{ name: string }`
 * objects, a schema nested deeper than the contract's `MAX_SCHEMA_DEPTH` (128; `details.reason`
 * `schema_too_deep`, checked first because every compiler below recurses), duplicate names, or a
 * function tool whose wire name equals a hosted tool's name.
 */
export function compileTools(modelTools: readonly ModelTool[], options: CompileToolsOptions): CompiledTools {
  const dialect = options?.dialect;
  if (!(DIALECT_NAMES as readonly string[]).includes(dialect)) {
    throw new DialectError({
      code: 'CONFIG_INVALID',
      message: `unknown dialect; use one of ${DIALECT_NAMES.join(', ')}`,
      details: { dialectName: String(dialect) },
    });
  }
  if (!Array.isArray(modelTools)) {
    throw new DialectError({
      code: 'CONFIG_INVALID',
      message: 'tools must be an array of { name, description, inputSchema }',
    });
  }
  modelTools.forEach((tool, index) => {
    if (!isJsonObject(tool as unknown) || typeof tool.name !== 'string') {
      throw new DialectError({
        code: 'CONFIG_INVALID',
        message: 'each tool must be an object with a string `name`',
        details: { index },
      });
    }
    if (schemaTooDeep(tool.inputSchema)) {
      throw new DialectError({
        code: 'CONFIG_INVALID',
        message: `the input schema of tool "${tool.name.slice(0, 128)}" nests deeper than ${MAX_SCHEMA_DEPTH} levels (objects and arrays), the limit for tool schemas`,
        details: {
          index,
          toolName: tool.name.slice(0, 128),
          reason: 'schema_too_deep',
          limit: MAX_SCHEMA_DEPTH,
        },
      });
    }
  });
  const nameMap = createNameMap(modelTools.map((tool) => tool.name));
  const hosted = options.hosted ?? [];
  const hostedNames = new Set(hosted.map((tool) => tool.name));
  const report: ReportEntry[] = [];
  const compiled: CompiledFunction[] = [];
  const violationsOf = new Map<string, ProviderViolation[]>();
  const strictRequested = (name: string) =>
    options.strict === true || (Array.isArray(options.strict) && options.strict.includes(name));

  for (const tool of modelTools) {
    const wireName = own(nameMap.toWire, tool.name)!;
    if (hostedNames.has(wireName)) {
      throw new DialectError({
        code: 'CONFIG_INVALID',
        message: 'a function tool has the same wire name as a hosted tool; rename one of them',
        details: { toolName: tool.name },
      });
    }
    const reporter = new Reporter(tool.name);
    if (wireName !== tool.name) {
      reporter.add(
        '',
        'renamed',
        'name',
        `the name is not ${'`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`'} (or collided after sanitising); it is sent as "${wireName}" and mapped back`,
      );
    }
    let description = typeof tool.description === 'string' ? tool.description : '';
    if (dialect === 'gemini' && description.trim() === '') {
      // The protos mark FunctionDeclaration.description REQUIRED (an empty proto3 string is unset).
      description = tool.name.trim() === '' ? wireName : tool.name;
      reporter.add(
        '',
        'added',
        'tool-description',
        'Gemini requires a function description; the tool has none, so its name is sent as the description',
      );
    }
    try {
      const result = compileSchema(tool.inputSchema as JsonValue, dialect, {
        strict: (dialect === 'openai-chat' || dialect === 'openai-responses') && strictRequested(tool.name),
        geminiSchema: options.geminiSchema ?? 'json-schema',
        reporter,
      });
      const entry: CompiledFunction = { name: tool.name, wireName, description, ...result };
      const wrapped = envelope(dialect, entry, options);
      const violations = validateForProvider(
        dialect === 'gemini' ? [{ functionDeclarations: [wrapped] }] : [wrapped],
        dialect,
      );
      if (violations.length > 0) {
        violationsOf.set(tool.name, violations);
        for (const violation of violations) {
          reporter.add(
            violation.pointer,
            'quarantined',
            violation.rule,
            `left out of the request: ${violation.message}`,
          );
        }
      } else {
        compiled.push(entry);
      }
    } catch (error) {
      if (!(error instanceof QuarantineError)) throw error;
      reporter.add(error.pointer, 'quarantined', error.keyword, `left out of the request: ${error.message}`);
    }
    report.push(...reporter.entries);
  }

  if ((options.order ?? 'name') === 'name') {
    compiled.sort((a, b) => (a.wireName < b.wireName ? -1 : a.wireName > b.wireName ? 1 : 0));
  }
  const cap =
    dialect === 'openai-chat'
      ? PROVIDER_LIMITS.openaiChatMaxTools
      : dialect === 'gemini'
        ? PROVIDER_LIMITS.geminiMaxDeclarations
        : Number.POSITIVE_INFINITY;
  let kept = compiled;
  if (compiled.length > cap) {
    if ((options.overflow ?? 'drop') === 'drop') {
      kept = compiled.slice(0, cap);
      for (const entry of compiled.slice(cap)) {
        report.push({
          tool: entry.name,
          pointer: '',
          action: 'dropped',
          keyword: 'tools',
          reason: `the provider accepts at most ${cap} function tools; this one is beyond the cap and was left out`,
        });
      }
    } else {
      report.push({
        tool: '*',
        pointer: '',
        action: 'rewritten',
        keyword: 'tools',
        reason: `${compiled.length} function tools exceed the provider's cap of ${cap}; all were kept on request and the provider will reject them`,
      });
    }
  }

  const tools: JsonObject[] = [];
  if (dialect === 'gemini') {
    if (kept.length > 0)
      tools.push({ functionDeclarations: kept.map((entry) => envelope(dialect, entry, options)) });
  } else {
    for (const entry of kept) tools.push(envelope(dialect, entry, options));
  }
  const declaredHosted: string[] = [];
  for (const tool of hosted) {
    const declaration = own(tool.declarations, dialect);
    if (declaration === undefined) {
      report.push({
        tool: tool.name,
        pointer: '',
        action: 'dropped',
        keyword: 'hosted',
        reason: `the hosted tool has no declaration for ${dialect}, so this provider is not offered it`,
      });
      continue;
    }
    const violations = validateForProvider([declaration], dialect);
    if (!isJsonObject(declaration) || violations.length > 0 || isFunctionDeclaration(declaration, dialect)) {
      report.push({
        tool: tool.name,
        pointer: '',
        action: 'quarantined',
        keyword: 'hosted',
        reason: `the hosted declaration for ${dialect} is not a provider tool declaration and was left out`,
      });
      continue;
    }
    tools.push(sortKeysDeep(declaration) as JsonObject);
    declaredHosted.push(tool.name);
  }

  const decoding: Record<string, ToolDecoding> = {};
  const strictTools: string[] = [];
  for (const entry of compiled) {
    if (entry.decoding)
      Object.defineProperty(decoding, entry.wireName, { value: entry.decoding, enumerable: true });
    if (entry.strict === true) strictTools.push(entry.wireName);
  }
  const sent = new Set(kept.map((entry) => entry.name));
  const verdicts: Record<string, ToolVerdict> = {};
  for (const tool of modelTools) {
    const entries = report.filter((entry) => entry.tool === tool.name);
    const status = sent.has(tool.name)
      ? 'sent'
      : entries.some((entry) => entry.action === 'quarantined')
        ? 'quarantined'
        : 'dropped';
    Object.defineProperty(verdicts, tool.name, {
      value: {
        status,
        wireName: own(nameMap.toWire, tool.name)!,
        violations: violationsOf.get(tool.name) ?? [],
        report: entries,
      } satisfies ToolVerdict,
      enumerable: true,
    });
  }
  return { dialect, tools, nameMap, report, decoding, strictTools, hostedTools: declaredHosted, verdicts };
}

function isFunctionDeclaration(declaration: JsonObject, dialect: DialectName): boolean {
  if (dialect === 'gemini') return declaration.functionDeclarations !== undefined;
  if (dialect === 'anthropic') return typeof declaration.type !== 'string' || declaration.type === 'custom';
  return declaration.type === 'function';
}

function envelope(dialect: DialectName, entry: CompiledFunction, options: CompileToolsOptions): JsonObject {
  const schema = entry.schema === undefined ? undefined : (sortKeysDeep(entry.schema) as JsonObject);
  switch (dialect) {
    case 'openai-chat': {
      const fn: JsonObject = { name: entry.wireName };
      if (entry.description) fn.description = entry.description;
      fn.parameters = schema ?? { type: 'object', properties: {} };
      if (entry.strict !== undefined) fn.strict = entry.strict;
      return { type: 'function', function: fn };
    }
    case 'openai-responses': {
      const tool: JsonObject = { type: 'function', name: entry.wireName };
      if (entry.description) tool.description = entry.description;
      tool.parameters = schema ?? { type: 'object', properties: {} };
      // Responses normalises to strict when `strict` is omitted; say it explicitly.
      tool.strict = entry.strict === true;
      return tool;
    }
    case 'anthropic': {
      const tool: JsonObject = { name: entry.wireName };
      if (entry.description) tool.description = entry.description;
      tool.input_schema = schema ?? { type: 'object', properties: {} };
      return tool;
    }
    case 'gemini': {
      const declaration: JsonObject = { name: entry.wireName };
      if (entry.description) declaration.description = entry.description;
      if (schema !== undefined) {
        declaration[
          (options.geminiSchema ?? 'json-schema') === 'openapi' ? 'parameters' : 'parametersJsonSchema'
        ] = schema;
      }
      return declaration;
    }
  }
}

function dropOpenAIRootKeywords(schema: JsonObject, reporter: Reporter): JsonObject {
  const present = OPENAI_ROOT_REJECTED.filter((keyword) => own(schema, keyword) !== undefined);
  if (present.length === 0) return schema;
  const out: JsonObject = { ...schema };
  for (const keyword of moveToDescription(out, schema, present)) {
    delete out[keyword];
    reporter.add(
      '',
      'moved-to-description',
      keyword,
      `OpenAI rejects a root \`${keyword}\` in \`parameters\`; it is stated in the description and the host still enforces it`,
    );
  }
  return out;
}

interface SchemaCompileOptions {
  readonly strict: boolean;
  readonly geminiSchema: 'json-schema' | 'openapi';
  readonly reporter: Reporter;
}

interface SchemaCompileResult {
  readonly schema: JsonObject | undefined;
  /** `true` / `false` when strict was requested (false after a fallback); `undefined` otherwise. */
  readonly strict: boolean | undefined;
  readonly decoding: ToolDecoding | undefined;
}

function compileSchema(
  input: JsonValue,
  dialect: DialectName,
  options: SchemaCompileOptions,
): SchemaCompileResult {
  const { reporter } = options;
  const root = normalizeRoot(input ?? {}, reporter);
  const unwrap = root.unwrap;
  const decodingOf = (decodeSchema: JsonObject | undefined): ToolDecoding | undefined => {
    const withSchema = decodeSchema !== undefined && hasAnnotations(decodeSchema);
    if (!withSchema && unwrap === undefined) return undefined;
    return {
      ...(withSchema ? { schema: sortKeysDeep(decodeSchema) as JsonObject } : {}),
      ...(unwrap !== undefined ? { unwrap } : {}),
    };
  };
  switch (dialect) {
    case 'openai-chat':
    case 'openai-responses': {
      const fixed = dropOpenAIRootKeywords(
        applySchemaFixes(
          root.schema,
          { draft2020: false, arrayItems: true, typeArraysToAnyOf: false, refSiblingsToAllOf: false },
          reporter,
        ),
        reporter,
      );
      if (!options.strict) return { schema: fixed, strict: undefined, decoding: decodingOf(undefined) };
      const strictReporter = new Reporter(reporter.tool);
      try {
        const strict = compileOpenAIStrict(fixed, strictReporter);
        for (const entry of strictReporter.entries)
          reporter.add(entry.pointer, entry.action, entry.keyword, entry.reason);
        return {
          schema: stripAnnotations(strict.schema) as JsonObject,
          strict: true,
          decoding: decodingOf(strict.schema),
        };
      } catch (error) {
        if (!(error instanceof StrictUnsupportedError)) throw error;
        reporter.add(
          error.pointer,
          'strict-fallback',
          error.keyword,
          `compiled non-strict: ${error.message}`,
        );
        return { schema: fixed, strict: false, decoding: decodingOf(undefined) };
      }
    }
    case 'anthropic': {
      const fixed = applySchemaFixes(
        root.schema,
        { draft2020: true, arrayItems: false, typeArraysToAnyOf: false, refSiblingsToAllOf: false },
        reporter,
      );
      return { schema: fixed, strict: undefined, decoding: decodingOf(undefined) };
    }
    case 'gemini': {
      if (options.geminiSchema === 'openapi') {
        const fixed = applySchemaFixes(
          root.schema,
          { draft2020: true, arrayItems: false, typeArraysToAnyOf: false, refSiblingsToAllOf: false },
          reporter,
        );
        const result = compileGeminiOpenApi(fixed, reporter);
        return {
          schema:
            result.schema === undefined
              ? undefined
              : (toGeminiWireTypes(stripAnnotations(result.schema)) as JsonObject),
          strict: undefined,
          decoding: decodingOf(result.schema),
        };
      }
      const fixed = applySchemaFixes(
        root.schema,
        { draft2020: true, arrayItems: false, typeArraysToAnyOf: true, refSiblingsToAllOf: true },
        reporter,
      );
      return { schema: fixed, strict: undefined, decoding: decodingOf(undefined) };
    }
  }
}
