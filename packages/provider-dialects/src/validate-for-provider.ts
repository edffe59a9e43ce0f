import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { isJsonObject, own, pointerJoin } from './json-utils.js';
import type { DialectName } from './ir.js';
import { isAnnotationKey } from './schema-annotations.js';
import {
  isJsonTypeName,
  isSchema,
  isValidPattern,
  OPENAI_ROOT_REJECTED,
  resolveLocalRef,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
} from './schema-common.js';
import {
  GEMINI_INT64_KEYWORDS,
  GEMINI_OPENAPI_FORMATS,
  GEMINI_OPENAPI_KEYWORDS,
  GEMINI_TYPE_NAMES,
} from './schema-gemini-openapi.js';
import { MAX_SCHEMA_DEPTH, schemaTooDeep } from './schema-depth.js';
import { OPENAI_STRICT_FORMATS, OPENAI_STRICT_LIMITS } from './schema-openai-strict.js';

/** One broken provider rule. `tool` is the wire name (or `#<index>` when the name is missing). */
export interface ProviderViolation {
  readonly tool: string;
  /** JSON Pointer into the tool's schema (`''` the root); `''` for rules about the tool itself. */
  readonly pointer: string;
  readonly rule: string;
  readonly message: string;
}

/** The per-dialect limits `validateForProvider` checks. */
export const PROVIDER_LIMITS = {
  /** OpenAI Chat Completions accepts at most 128 functions. */
  openaiChatMaxTools: 128,
  /** Gemini accepts at most 512 function declarations. */
  geminiMaxDeclarations: 512,
} as const;

const NAME_RULES: Readonly<Record<DialectName, RegExp>> = {
  'openai-chat': /^[a-zA-Z0-9_-]{1,64}$/,
  'openai-responses': /^[a-zA-Z0-9_-]{1,64}$/,
  // The API says {1,128}; older validators (Claude Desktop) enforce 64, so 64 is checked.
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
  gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
};

interface FunctionEntry {
  readonly name: string;
  readonly description: unknown;
  readonly schema: JsonValue | undefined;
  readonly schemaKey: string;
  readonly strict: boolean;
  readonly index: number;
}

/**
 * Lists every way a wire tool list breaks the dialect's documented rules: tool
 * counts, name patterns, duplicates, the root schema, and each provider's schema subset (OpenAI
 * strict requirements and limits, Anthropic's draft 2020-12 validity, Gemini's `parameters`
 * subset and `parametersJsonSchema` restrictions), plus the shape of hosted declarations. An
 * empty list means the provider should accept the tools. Pure; never throws.
 */
export function validateForProvider(tools: unknown, dialect: DialectName): ProviderViolation[] {
  const violations: ProviderViolation[] = [];
  const add = (tool: string, pointer: string, rule: string, message: string) =>
    violations.push({ tool, pointer, rule, message });
  if (!Array.isArray(tools)) {
    add('*', '', 'tools-array', 'the tool list must be an array');
    return violations;
  }
  // Anthropic server tools (web search, code execution, ...) are named; a function may not share a name.
  const serverNames = new Set<string>();
  const functions = collectFunctions(tools as JsonValue[], dialect, add, serverNames);

  if (dialect === 'openai-chat' && functions.length > PROVIDER_LIMITS.openaiChatMaxTools) {
    add(
      '*',
      '',
      'max-tools',
      `${functions.length} functions exceed OpenAI's limit of ${PROVIDER_LIMITS.openaiChatMaxTools}`,
    );
  }
  if (dialect === 'gemini' && functions.length > PROVIDER_LIMITS.geminiMaxDeclarations) {
    add(
      '*',
      '',
      'max-tools',
      `${functions.length} function declarations exceed Gemini's limit of ${PROVIDER_LIMITS.geminiMaxDeclarations}`,
    );
  }
  const seen = new Set<string>();
  for (const entry of functions) {
    const label = entry.name || `#${entry.index}`;
    if (!NAME_RULES[dialect].test(entry.name)) {
      add(label, '', 'name-pattern', `the name does not match ${NAME_RULES[dialect].source}`);
    }
    if (seen.has(entry.name)) add(label, '', 'name-unique', 'two tools share this name');
    else if (serverNames.has(entry.name))
      add(label, '', 'name-unique', 'a function tool shares its name with a server tool');
    seen.add(entry.name);
    if (entry.description !== undefined && typeof entry.description !== 'string') {
      add(label, '', 'description', 'the description must be a string');
    } else if (
      dialect === 'gemini' &&
      (typeof entry.description !== 'string' || entry.description.trim() === '')
    ) {
      add(label, '', 'description-required', 'Gemini requires a non-empty function `description`');
    }
    checkSchema(entry, dialect, (pointer, rule, message) => add(label, pointer, rule, message));
  }
  return violations;
}

type Add = (tool: string, pointer: string, rule: string, message: string) => void;
type AddHere = (pointer: string, rule: string, message: string) => void;

function collectFunctions(
  tools: JsonValue[],
  dialect: DialectName,
  add: Add,
  serverNames: Set<string>,
): FunctionEntry[] {
  const out: FunctionEntry[] = [];
  tools.forEach((tool, index) => {
    const label = `#${index}`;
    if (!isJsonObject(tool)) {
      add(label, '', 'tool-object', 'each tool must be a JSON object');
      return;
    }
    switch (dialect) {
      case 'openai-chat': {
        if (tool.type !== 'function') {
          if (typeof tool.type !== 'string') add(label, '', 'hosted-shape', 'a tool needs a `type`');
          return;
        }
        const fn = tool.function;
        if (!isJsonObject(fn)) {
          add(label, '', 'function-object', 'a function tool needs a `function` object');
          return;
        }
        out.push(entryOf(fn, 'parameters', index));
        return;
      }
      case 'openai-responses': {
        if (tool.type !== 'function') {
          if (typeof tool.type !== 'string') add(label, '', 'hosted-shape', 'a tool needs a `type`');
          return;
        }
        out.push(entryOf(tool, 'parameters', index));
        return;
      }
      case 'anthropic': {
        if (typeof tool.type === 'string' && tool.type !== 'custom') {
          if (typeof tool.name !== 'string') add(label, '', 'hosted-shape', 'a server tool needs a `name`');
          else serverNames.add(tool.name);
          return;
        }
        if (tool.input_schema === undefined) {
          add(
            typeof tool.name === 'string' ? tool.name : label,
            '',
            'input-schema',
            'a tool needs `input_schema`',
          );
        }
        out.push(entryOf(tool, 'input_schema', index));
        return;
      }
      case 'gemini': {
        const declarations = tool.functionDeclarations;
        if (declarations === undefined) {
          if (Object.keys(tool).length !== 1) {
            add(
              label,
              '',
              'hosted-shape',
              'a Gemini tool object holds exactly one tool kind (for example `googleSearch`)',
            );
          }
          return;
        }
        if (!Array.isArray(declarations)) {
          add(label, '', 'function-declarations', '`functionDeclarations` must be an array');
          return;
        }
        for (const declaration of declarations) {
          if (!isJsonObject(declaration)) {
            add(label, '', 'function-declarations', 'each function declaration must be an object');
            continue;
          }
          if (declaration.parameters !== undefined && declaration.parametersJsonSchema !== undefined) {
            add(
              String(declaration.name ?? label),
              '',
              'parameters-exclusive',
              'set `parameters` or `parametersJsonSchema`, not both',
            );
          }
          out.push(
            entryOf(
              declaration,
              declaration.parametersJsonSchema !== undefined ? 'parametersJsonSchema' : 'parameters',
              out.length,
            ),
          );
        }
        return;
      }
    }
  });
  return out;
}

function entryOf(tool: JsonObject, schemaKey: string, index: number): FunctionEntry {
  return {
    name: typeof tool.name === 'string' ? tool.name : '',
    description: tool.description,
    schema: own(tool, schemaKey),
    schemaKey,
    strict: tool.strict === true,
    index,
  };
}

function checkSchema(entry: FunctionEntry, dialect: DialectName, add: AddHere): void {
  const schema = entry.schema;
  if (schema === undefined) {
    if (dialect !== 'gemini') add('', 'root-object', 'the tool has no schema');
    return;
  }
  if (!isJsonObject(schema)) {
    add('', 'root-object', 'the schema must be a JSON object');
    return;
  }
  if (schemaTooDeep(schema)) {
    // Checked first, without recursion: every check below recurses.
    add('', 'schema-depth', `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels (objects and arrays)`);
    return;
  }
  walkAll(schema, '', (node, pointer) => {
    for (const key of Object.keys(node)) {
      if (isAnnotationKey(key))
        add(pointer, 'internal-annotation', `\`${key}\` is internal to toolhost and must not be sent`);
    }
  });
  if (entry.schemaKey !== 'parameters' || dialect !== 'gemini') {
    if (schema.type !== 'object') add('', 'root-object', 'the root schema must have `type: "object"`');
  }
  if (dialect === 'anthropic') {
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      if (schema[keyword] !== undefined) add('', 'root-combinator', `a top-level \`${keyword}\` is rejected`);
    }
  }
  if (dialect === 'openai-chat' || dialect === 'openai-responses') {
    // Rejected for every request that carries the tool, strict or not.
    for (const keyword of OPENAI_ROOT_REJECTED) {
      if (schema[keyword] !== undefined)
        add('', 'root-keyword', `OpenAI rejects a root \`${keyword}\` in \`parameters\``);
    }
  }
  switch (dialect) {
    case 'openai-chat':
    case 'openai-responses':
      checkRefs(schema, add);
      walkAll(schema, '', (node, pointer) => {
        const types = Array.isArray(node.type) ? node.type : [node.type];
        if (types.includes('array') && node.items === undefined)
          add(pointer, 'array-items', 'an array schema needs `items`');
      });
      if (entry.strict) checkOpenAIStrict(schema, add);
      return;
    case 'anthropic':
      checkDraft2020(schema, '', schema, add);
      return;
    case 'gemini':
      if (entry.schemaKey === 'parameters') checkGeminiOpenApi(schema, '', add);
      else checkGeminiJsonSchema(schema, add);
      return;
  }
}

function walkAll(
  schema: JsonValue,
  pointer: string,
  visit: (node: JsonObject, pointer: string) => void,
): void {
  if (!isJsonObject(schema)) return;
  visit(schema, pointer);
  for (const key of SINGLE_SCHEMA_KEYWORDS) {
    const value = own(schema, key);
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walkAll(item, pointerJoin(pointer, key, index), visit);
    } else walkAll(value, pointerJoin(pointer, key), visit);
  }
  for (const key of SCHEMA_ARRAY_KEYWORDS) {
    const value = own(schema, key);
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walkAll(item, pointerJoin(pointer, key, index), visit);
    }
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const value = own(schema, key);
    if (isJsonObject(value))
      for (const name of Object.keys(value)) walkAll(value[name]!, pointerJoin(pointer, key, name), visit);
  }
}

function checkRefs(root: JsonObject, add: AddHere): void {
  walkAll(root, '', (node, pointer) => {
    if (node.$ref !== undefined && (typeof node.$ref !== 'string' || !resolveLocalRef(root, node.$ref))) {
      add(pointer, 'ref-resolvable', 'the `$ref` does not resolve inside the schema');
    }
  });
}

const STRICT_ALLOWED = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  '$ref',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$defs',
  'definitions',
]);

function checkOpenAIStrict(root: JsonObject, add: AddHere): void {
  let properties = 0;
  let enumValues = 0;
  let chars = 0;
  checkStrictStructure(root, '', 0, add);
  walkAll(root, '', (node, pointer) => {
    for (const key of Object.keys(node)) {
      if (!STRICT_ALLOWED.has(key)) add(pointer, 'strict-keyword', `strict mode does not support \`${key}\``);
    }
    if (typeof node.format === 'string' && !OPENAI_STRICT_FORMATS.has(node.format)) {
      add(pointer, 'strict-format', `strict mode does not support format "${node.format}"`);
    }
    if (node.type === undefined && node.anyOf === undefined && node.$ref === undefined) {
      add(pointer, 'strict-type', 'strict mode needs a `type` (or `anyOf` / `$ref`)');
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object') || isJsonObject(node.properties)) {
      if (node.additionalProperties !== false) {
        add(pointer, 'strict-additional-properties', '`additionalProperties` must be false on every object');
      }
      const names = isJsonObject(node.properties) ? Object.keys(node.properties) : [];
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = names.filter((name) => !required.includes(name));
      if (missing.length > 0 || required.length !== names.length) {
        add(pointer, 'strict-required', '`required` must list every property');
      }
      properties += names.length;
      chars += names.reduce((sum, name) => sum + name.length, 0);
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      chars += node.enum.reduce<number>(
        (sum, value) => sum + (typeof value === 'string' ? value.length : 0),
        0,
      );
    }
    if (typeof node.const === 'string') chars += node.const.length;
    if (typeof node.$ref === 'string' && Object.keys(node).some((key) => key !== '$ref'))
      add(pointer, 'strict-ref-siblings', 'strict mode rejects `$ref` with sibling keywords');
    if (Array.isArray(node.items))
      add(pointer, 'strict-items', 'strict mode has no tuples: `items` must be one schema');
    if (
      Array.isArray(node.enum) &&
      node.enum.length > OPENAI_STRICT_LIMITS.largeEnumThreshold &&
      node.enum.reduce<number>((sum, value) => sum + (typeof value === 'string' ? value.length : 0), 0) >
        OPENAI_STRICT_LIMITS.largeEnumMaxChars
    ) {
      add(
        pointer,
        'strict-limit',
        `an enum of more than ${OPENAI_STRICT_LIMITS.largeEnumThreshold} values longer than ${OPENAI_STRICT_LIMITS.largeEnumMaxChars} characters`,
      );
    }
  });
  if (properties > OPENAI_STRICT_LIMITS.maxProperties)
    add('', 'strict-limit', 'too many object properties for strict mode');
  if (enumValues > OPENAI_STRICT_LIMITS.maxEnumValues)
    add('', 'strict-limit', 'too many enum values for strict mode');
  if (chars > OPENAI_STRICT_LIMITS.maxStringChars)
    add('', 'strict-limit', 'too many characters of names and enum values');
}

/**
 * What strict mode needs of the structure (the compiler's own limits): nesting counted by object
 * properties and array items (unions and definitions add no level), and no boolean subschema
 * except `additionalProperties: false`.
 */
function checkStrictStructure(node: JsonValue, pointer: string, depth: number, add: AddHere): void {
  if (typeof node === 'boolean') {
    add(pointer, 'strict-type', 'a boolean schema has no type; strict mode needs typed schemas');
    return;
  }
  if (!isJsonObject(node)) return;
  if (depth > OPENAI_STRICT_LIMITS.maxDepth) {
    add(pointer, 'strict-depth', `nesting deeper than ${OPENAI_STRICT_LIMITS.maxDepth} levels`);
    return;
  }
  for (const key of SINGLE_SCHEMA_KEYWORDS) {
    const value = own(node, key);
    if (value === undefined || key === 'additionalProperties') continue;
    const next = key === 'items' ? depth + 1 : depth;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries())
        checkStrictStructure(item, pointerJoin(pointer, key, index), next, add);
    } else checkStrictStructure(value, pointerJoin(pointer, key), next, add);
  }
  for (const key of SCHEMA_ARRAY_KEYWORDS) {
    const value = own(node, key);
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries())
        checkStrictStructure(item, pointerJoin(pointer, key, index), depth, add);
    }
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const value = own(node, key);
    if (!isJsonObject(value)) continue;
    const next = key === 'properties' ? depth + 1 : depth;
    for (const name of Object.keys(value))
      checkStrictStructure(value[name]!, pointerJoin(pointer, key, name), next, add);
  }
}

const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const COUNT_KEYWORDS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];

function checkDraft2020(node: JsonValue, pointer: string, root: JsonObject, add: AddHere): void {
  if (typeof node === 'boolean') return;
  if (!isJsonObject(node)) {
    add(pointer, 'schema-type', 'a schema must be an object or a boolean');
    return;
  }
  if (node.$schema !== undefined && node.$schema !== 'https://json-schema.org/draft/2020-12/schema') {
    add(pointer, 'draft-2020-12', '`$schema` names another draft');
  }
  if (node.type !== undefined) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.length === 0 || !types.every(isJsonTypeName) || new Set(types).size !== types.length) {
      add(pointer, 'draft-2020-12', '`type` must be a type name or an array of unique type names');
    }
  }
  if (node.required !== undefined) {
    const required = node.required;
    if (
      !Array.isArray(required) ||
      !required.every((item) => typeof item === 'string') ||
      new Set(required).size !== required.length
    ) {
      add(pointer, 'draft-2020-12', '`required` must be an array of unique strings');
    }
  }
  for (const keyword of NUMBER_KEYWORDS) {
    const value = node[keyword];
    if (value !== undefined && (typeof value !== 'number' || (keyword === 'multipleOf' && value <= 0))) {
      add(pointer, 'draft-2020-12', `\`${keyword}\` must be a number`);
    }
  }
  for (const keyword of COUNT_KEYWORDS) {
    const value = node[keyword];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) {
      add(pointer, 'draft-2020-12', `\`${keyword}\` must be a non-negative integer`);
    }
  }
  if (node.enum !== undefined && !Array.isArray(node.enum))
    add(pointer, 'draft-2020-12', '`enum` must be an array');
  if (node.uniqueItems !== undefined && typeof node.uniqueItems !== 'boolean') {
    add(pointer, 'draft-2020-12', '`uniqueItems` must be a boolean');
  }
  if (node.pattern !== undefined && !isValidPattern(node.pattern))
    add(pointer, 'draft-2020-12', '`pattern` must be a valid regex');
  if (node.$ref !== undefined && (typeof node.$ref !== 'string' || !resolveLocalRef(root, node.$ref))) {
    add(pointer, 'ref-resolvable', 'the `$ref` does not resolve inside the schema');
  }
  if (node.dependentRequired !== undefined) {
    const value = node.dependentRequired;
    if (
      !isJsonObject(value) ||
      !Object.values(value).every(
        (list) => Array.isArray(list) && list.every((item) => typeof item === 'string'),
      )
    ) {
      add(pointer, 'draft-2020-12', '`dependentRequired` must map names to arrays of strings');
    }
  }
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    const value = own(node, keyword);
    if (value === undefined) continue;
    if (!isSchema(value))
      add(pointerJoin(pointer, keyword), 'draft-2020-12', `\`${keyword}\` must be a schema`);
    else checkDraft2020(value, pointerJoin(pointer, keyword), root, add);
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const value = own(node, keyword);
    if (value === undefined) continue;
    if (!Array.isArray(value) || value.length === 0) {
      add(
        pointerJoin(pointer, keyword),
        'draft-2020-12',
        `\`${keyword}\` must be a non-empty array of schemas`,
      );
    } else {
      for (const [index, item] of value.entries()) {
        checkDraft2020(item, pointerJoin(pointer, keyword, index), root, add);
      }
    }
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const value = own(node, keyword);
    if (value === undefined) continue;
    if (!isJsonObject(value))
      add(pointerJoin(pointer, keyword), 'draft-2020-12', `\`${keyword}\` must be an object of schemas`);
    else
      for (const name of Object.keys(value))
        checkDraft2020(value[name]!, pointerJoin(pointer, keyword, name), root, add);
  }
}

function checkGeminiOpenApi(node: JsonValue, pointer: string, add: AddHere): void {
  if (!isJsonObject(node)) {
    add(pointer, 'gemini-schema', 'a Gemini `Schema` must be an object');
    return;
  }
  for (const key of Object.keys(node)) {
    if (!GEMINI_OPENAPI_KEYWORDS.has(key))
      add(pointer, 'gemini-keyword', `Gemini \`parameters\` do not support \`${key}\``);
  }
  // The protos: `Type type = 1 [REQUIRED]`, an enum sent by its name (STRING, OBJECT, ...).
  const wireType = node.type;
  if (typeof wireType !== 'string' || !GEMINI_TYPE_NAMES.has(wireType)) {
    add(
      pointer,
      'gemini-type',
      wireType === undefined
        ? 'a Gemini `Schema` needs a `type` (the protos mark it required)'
        : "`type` must be one of the protos' Type names (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL)",
    );
  }
  const type = typeof wireType === 'string' ? wireType.toLowerCase() : wireType;
  for (const keyword of GEMINI_INT64_KEYWORDS) {
    // proto3 JSON: an int64 is a decimal string (canonical) or a number.
    const value = node[keyword];
    const count =
      typeof value === 'string' && /^[0-9]{1,18}$/.test(value)
        ? Number(value)
        : typeof value === 'number' && Number.isSafeInteger(value)
          ? value
          : undefined;
    if (value !== undefined && (count === undefined || count < 0))
      add(
        pointer,
        'gemini-int64',
        `\`${keyword}\` must be a non-negative integer (a decimal string or a number)`,
      );
  }
  for (const keyword of ['minimum', 'maximum']) {
    const value = node[keyword];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      add(pointer, 'gemini-number', `\`${keyword}\` must be a number`);
  }
  if (node.nullable !== undefined && typeof node.nullable !== 'boolean')
    add(pointer, 'gemini-nullable', '`nullable` must be a boolean');
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || !node.enum.every((value) => typeof value === 'string')) {
      add(pointer, 'gemini-enum', 'enum values must be strings');
    }
    if (type !== 'string') add(pointer, 'gemini-enum', 'an enum must be of type STRING');
  }
  if (node.format !== undefined) {
    const allowed = typeof type === 'string' ? GEMINI_OPENAPI_FORMATS[type] : undefined;
    if (typeof node.format !== 'string' || !allowed?.has(node.format)) {
      add(
        pointer,
        'gemini-format',
        `format ${JSON.stringify(node.format)} is not accepted for type ${JSON.stringify(type)}`,
      );
    }
  }
  if (type === 'object') {
    // A union node carries the shared type; its branches hold the properties.
    if (
      node.anyOf === undefined &&
      (!isJsonObject(node.properties) || Object.keys(node.properties).length === 0)
    ) {
      add(pointer, 'gemini-object-properties', 'an OBJECT needs at least one property');
    }
  } else if (node.properties !== undefined || node.required !== undefined) {
    add(pointer, 'gemini-object-properties', '`properties` and `required` are only allowed for type object');
  }
  if (node.required !== undefined) {
    const properties = isJsonObject(node.properties) ? node.properties : {};
    if (
      !Array.isArray(node.required) ||
      !node.required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name))
    ) {
      add(pointer, 'gemini-required', '`required` must name declared properties');
    }
  }
  if (type === 'array' && node.items === undefined && node.anyOf === undefined)
    add(pointer, 'gemini-items', 'an ARRAY needs `items`');
  if (isJsonObject(node.properties)) {
    for (const name of Object.keys(node.properties))
      checkGeminiOpenApi(node.properties[name]!, pointerJoin(pointer, 'properties', name), add);
  }
  if (node.items !== undefined) checkGeminiOpenApi(node.items, pointerJoin(pointer, 'items'), add);
  if (node.anyOf !== undefined) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
      add(pointer, 'gemini-any-of', '`anyOf` must be a non-empty array');
    else {
      for (const [index, branch] of node.anyOf.entries()) {
        checkGeminiOpenApi(branch, pointerJoin(pointer, 'anyOf', index), add);
      }
    }
  }
}

function checkGeminiJsonSchema(root: JsonObject, add: AddHere): void {
  if (root.$schema !== undefined) add('', 'gemini-schema-keyword', 'a root `$schema` is rejected');
  checkRefs(root, add);
  walkAll(root, '', (node, pointer) => {
    if (typeof node.$ref === 'string') {
      const siblings = Object.keys(node).filter((key) => !['$ref', 'description', 'default'].includes(key));
      if (siblings.length > 0)
        add(pointer, 'gemini-ref-siblings', '`$ref` may only have `description` and `default` beside it');
    }
    if (Array.isArray(node.type)) add(pointer, 'gemini-type-array', 'type arrays are rejected; use `anyOf`');
  });
}
