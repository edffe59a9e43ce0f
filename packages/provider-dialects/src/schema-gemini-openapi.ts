import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { cloneJson, defineMember, isJsonObject, pointerJoin } from './json-utils.js';
import type { Reporter } from './report.js';
import { ANNOTATION } from './schema-annotations.js';
import {
  appendDescription,
  declaredTypes,
  isObjectLike,
  isSchema,
  type JsonTypeName,
  moveToDescription,
  resolveLocalRef,
  typesOfValues,
} from './schema-common.js';

/** The keywords Gemini's OpenAPI-subset `Schema` (the `parameters` field) accepts. */
export const GEMINI_OPENAPI_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/** The `format` values Gemini's `parameters` accept, by type. */
export const GEMINI_OPENAPI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
/** The keywords the protos declare `int64`: their canonical proto3 JSON form is a decimal string. */
export const GEMINI_INT64_KEYWORDS: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);

/**
 * A kept keyword's value. `int64` counts go out as decimal strings, the protos' canonical JSON
 * (what @google/genai's `Schema` types declare; the API also parses numbers): the same value in
 * another spelling, like the Type names.
 */
function keptValue(keyword: string, value: JsonValue): JsonValue {
  if (GEMINI_INT64_KEYWORDS.has(keyword) && typeof value === 'number' && Number.isSafeInteger(value))
    return String(value);
  return cloneJson(value);
}
const NUMBER_KEYWORDS = ['minimum', 'maximum'];
const ARRAY_KEYWORDS = ['minItems', 'maxItems'];
const OBJECT_KEYWORDS = ['minProperties', 'maxProperties'];
const MOVED_NUMBER = ['exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const MOVED_ARRAY = ['uniqueItems', 'minContains', 'maxContains'];
const ENUM_KEPT = new Set([
  'type',
  'title',
  'description',
  'default',
  'example',
  'nullable',
  'enum',
  'const',
  '$defs',
  'definitions',
]);
const HANDLED = new Set([
  '$ref',
  'allOf',
  'anyOf',
  'oneOf',
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'format',
  'title',
  'description',
  'default',
  'example',
  'nullable',
  '$defs',
  'definitions',
  ...STRING_KEYWORDS,
  ...NUMBER_KEYWORDS,
  ...ARRAY_KEYWORDS,
  ...OBJECT_KEYWORDS,
  ...MOVED_NUMBER,
  ...MOVED_ARRAY,
]);

/** The compiled `parameters` schema (with decode annotations), or `undefined` when the tool takes none. */
export interface GeminiOpenApiResult {
  readonly schema: JsonObject | undefined;
}

/**
 * Compiles a root-normalised schema to Gemini's OpenAPI-subset `parameters` (Gemini's documented Schema subset):
 * `$ref` inlined (a cycle degrades to a JSON-encoded string, decoded back), `type` arrays and
 * `anyOf` with null become `nullable`, other unions become `anyOf`, `const` becomes a one-value
 * enum, non-string enums are sent as strings (`format: "enum"`) and decoded back, objects without
 * properties and untyped values are sent as JSON-encoded strings and decoded back,
 * `additionalProperties` and other unsupported keywords are dropped or moved to the description.
 * A root without properties yields no `parameters`. Every step is reported.
 */
export function compileGeminiOpenApi(root: JsonObject, reporter: Reporter): GeminiOpenApiResult {
  const compiler = new OpenApiCompiler(root, reporter);
  const schema = compiler.node(root, '', []);
  if (
    schema?.type !== 'object' ||
    !isJsonObject(schema.properties) ||
    Object.keys(schema.properties).length === 0
  ) {
    reporter.add(
      '',
      'dropped',
      'parameters',
      'Gemini `parameters` need an object with at least one property; the tool is declared without parameters',
    );
    return { schema: undefined };
  }
  return { schema };
}

class OpenApiCompiler {
  constructor(
    readonly root: JsonObject,
    readonly reporter: Reporter,
  ) {}

  node(input: JsonValue, pointer: string, stack: readonly string[]): JsonObject | undefined {
    if (input === true) return this.jsonValue({}, pointer, 'a `true` schema accepts any value');
    if (!isJsonObject(input)) {
      this.reporter.add(
        pointer,
        'dropped',
        'not',
        'a schema that accepts nothing cannot be declared; the property was removed',
      );
      return undefined;
    }
    let node = input;
    if (typeof node.$ref === 'string') {
      const { $ref: ref, ...siblings } = node;
      const target = resolveLocalRef(this.root, ref);
      if (!target || !isSchema(target.schema)) {
        return this.jsonValue(siblings, pointer, 'the reference does not resolve');
      }
      if (stack.includes(target.pointer) || target.pointer === '') {
        const name = target.pointer.split('/').pop() ?? 'root';
        this.reporter.add(
          pointer,
          'rewritten',
          '$ref',
          `the recursive reference ${JSON.stringify(ref)} cannot be inlined; this level is sent as a JSON-encoded string and decoded back`,
        );
        const described: JsonObject = { ...siblings };
        if (
          described.description === undefined &&
          isJsonObject(target.schema) &&
          typeof target.schema.description === 'string'
        ) {
          described.description = target.schema.description;
        }
        return this.jsonString(described, `(recursive ${name} structure, JSON-encoded)`);
      }
      this.reporter.add(
        pointer,
        'inlined',
        '$ref',
        'Gemini `parameters` do not support `$ref`; the target was inlined',
      );
      if (target.schema === true)
        return this.jsonValue(siblings, pointer, 'the reference target accepts any value');
      if (target.schema === false) return this.node(false, pointer, stack);
      node = { ...cloneJson(target.schema), ...siblings };
      return this.node(node, pointer, [...stack, target.pointer]);
    }

    if (Array.isArray(node.allOf)) node = this.mergeAllOf(node, pointer, stack);
    for (const key of Object.keys(node)) {
      if (!HANDLED.has(key))
        this.reporter.add(pointer, 'dropped', key, `Gemini \`parameters\` do not support \`${key}\``);
    }
    for (const keyword of ['$defs', 'definitions']) {
      if (node[keyword] !== undefined) {
        this.reporter.add(
          pointer,
          'dropped',
          keyword,
          'references were inlined, so the definitions are not sent',
        );
      }
    }
    if (node.nullable !== undefined && node.nullable !== true) {
      this.reporter.add(
        pointer,
        'dropped',
        'nullable',
        node.nullable === false
          ? '`nullable: false` is the default; it was left out'
          : '`nullable` is not a boolean; it was left out',
      );
    }

    const unionKeyword = node.anyOf !== undefined ? 'anyOf' : node.oneOf !== undefined ? 'oneOf' : undefined;
    if (node.anyOf !== undefined && node.oneOf !== undefined) {
      this.reporter.add(
        pointer,
        'dropped',
        'oneOf',
        '`oneOf` beside `anyOf` cannot be expressed; only `anyOf` is kept',
      );
    }
    if (unionKeyword) return this.union(node, unionKeyword, pointer, stack);

    let types = declaredTypes(node);
    let nullable = node.nullable === true;
    if (types?.includes('null') && types.length > 1) {
      types = types.filter((type) => type !== 'null');
      nullable = true;
      this.reporter.add(
        pointer,
        'rewritten',
        'type',
        'a `null` member of the `type` array became `nullable: true`',
      );
    }
    if (types && types.length > 1) {
      this.reporter.add(
        pointer,
        'rewritten',
        'type',
        'a `type` array became an `anyOf` of single types (Gemini rejects type arrays)',
      );
      const { type: _type, description, title, ...rest } = node;
      const out: JsonObject = {};
      if (typeof description === 'string') out.description = description;
      if (typeof title === 'string') out.title = title;
      const branches = types.map(
        (type, index) => this.node({ ...rest, type }, pointerJoin(pointer, 'type', index), stack) ?? { type },
      );
      return this.typedUnion(out, branches, nullable, pointer, 'type');
    }

    let enumValues: JsonValue[] | undefined = Array.isArray(node.enum) ? node.enum : undefined;
    if (node.const !== undefined) {
      this.reporter.add(pointer, 'rewritten', 'const', '`const` became a one-value `enum`');
      enumValues = [node.const];
    }
    let type: JsonTypeName | undefined = types?.[0];
    if (type === undefined) {
      if (isObjectLike(node)) type = 'object';
      else if (node.items !== undefined || node.prefixItems !== undefined) type = 'array';
      else if (enumValues) {
        const valueTypes = typesOfValues(enumValues.filter((value) => value !== null));
        type = valueTypes.length === 1 ? valueTypes[0] : 'string';
      }
      if (type === undefined)
        return this.jsonValue(node, pointer, 'a schema without `type` accepts any value');
      this.reporter.add(
        pointer,
        'added',
        'type',
        `Gemini \`parameters\` need a \`type\`; "${type}" was inferred`,
      );
    }

    const out: JsonObject = {};
    if (typeof node.title === 'string') out.title = node.title;
    if (typeof node.description === 'string') out.description = node.description;
    if (node.default !== undefined) out.default = cloneJson(node.default);
    if (node.example !== undefined) out.example = cloneJson(node.example);

    if (enumValues) {
      if (enumValues.includes(null)) {
        nullable = true;
        enumValues = enumValues.filter((value) => value !== null);
        this.reporter.add(pointer, 'rewritten', 'enum', 'a `null` enum value became `nullable: true`');
      }
      if (enumValues.every((value) => typeof value === 'string')) {
        out.type = 'string';
        if (type !== 'string') {
          this.reporter.add(
            pointer,
            'rewritten',
            'type',
            `string enum values under type "${type}" are declared as a string enum`,
          );
        }
        out.enum = enumValues;
      } else {
        const strings = enumValues.map(enumString);
        if (new Set(strings).size !== strings.length) {
          this.reporter.add(
            pointer,
            'rewritten',
            'enum',
            'enum values that read the same as strings were merged; decoding picks the first',
          );
        }
        out.type = 'string';
        out.format = 'enum';
        out.enum = [...new Set(strings)];
        out[ANNOTATION.enumValues] = enumValues;
        this.reporter.add(
          pointer,
          'stringified',
          'enum',
          'Gemini `parameters` accept only string enums; the values are sent as strings and decoded back',
        );
      }
      if (nullable) out.nullable = true;
      for (const key of Object.keys(node)) {
        if (HANDLED.has(key) && !ENUM_KEPT.has(key) && !(key === 'format' && node.format === 'enum')) {
          this.reporter.add(
            pointer,
            'dropped',
            key,
            'an enum lists the allowed values; other constraints are not sent',
          );
        }
      }
      return out;
    }

    out.type = type;
    if (nullable) out.nullable = true;
    switch (type) {
      case 'object':
        return this.object(node, out, pointer, stack);
      case 'array':
        return this.array(node, out, pointer, stack);
      case 'string':
        for (const keyword of STRING_KEYWORDS)
          if (node[keyword] !== undefined) out[keyword] = keptValue(keyword, node[keyword]!);
        break;
      case 'number':
      case 'integer':
        for (const keyword of NUMBER_KEYWORDS)
          if (node[keyword] !== undefined) out[keyword] = cloneJson(node[keyword]!);
        for (const keyword of moveToDescription(out, node, MOVED_NUMBER)) {
          this.reporter.add(
            pointer,
            'moved-to-description',
            keyword,
            `Gemini \`parameters\` do not support \`${keyword}\`; the host still enforces it`,
          );
        }
        break;
      default:
        break;
    }
    this.format(node, out, type, pointer);
    this.dropForType(node, type, pointer, []);
    return out;
  }

  format(node: JsonObject, out: JsonObject, type: JsonTypeName, pointer: string): void {
    if (node.format === undefined) return;
    if (typeof node.format === 'string' && GEMINI_OPENAPI_FORMATS[type]?.has(node.format)) {
      out.format = node.format;
      return;
    }
    moveToDescription(out, node, ['format']);
    this.reporter.add(
      pointer,
      'moved-to-description',
      'format',
      `Gemini \`parameters\` do not accept this format for type "${type}"`,
    );
  }

  /** Reports keywords that do not apply to the compiled type (they are not carried over). */
  dropForType(node: JsonObject, type: JsonTypeName, pointer: string, alsoHandled: readonly string[]): void {
    const applicable = new Set<string>([
      'type',
      'title',
      'description',
      'default',
      'example',
      'nullable',
      'enum',
      'const',
      '$defs',
      'definitions',
      'allOf',
      ...alsoHandled,
    ]);
    if (type === 'string') for (const keyword of [...STRING_KEYWORDS, 'format']) applicable.add(keyword);
    if (type === 'number' || type === 'integer') {
      for (const keyword of [...NUMBER_KEYWORDS, ...MOVED_NUMBER, 'format']) applicable.add(keyword);
    }
    for (const key of Object.keys(node)) {
      if (HANDLED.has(key) && !applicable.has(key)) {
        this.reporter.add(
          pointer,
          'dropped',
          key,
          `\`${key}\` does not apply to type "${type}" and is not sent`,
        );
      }
    }
  }

  object(
    node: JsonObject,
    out: JsonObject,
    pointer: string,
    stack: readonly string[],
  ): JsonObject | undefined {
    const properties = isJsonObject(node.properties) ? node.properties : {};
    if (Object.keys(properties).length === 0) {
      if (pointer === '') return out;
      this.reporter.add(
        pointer,
        'rewritten',
        'type',
        'Gemini rejects an OBJECT without properties; the free-form object is sent as a JSON-encoded string and decoded back',
      );
      const { nullable, ...rest } = out;
      const degraded = this.jsonString(rest, '(a JSON-encoded object)');
      if (nullable === true) degraded.nullable = true;
      return degraded;
    }
    const compiled: JsonObject = {};
    const dropped = new Set<string>();
    for (const name of Object.keys(properties)) {
      const value = this.node(properties[name]!, pointerJoin(pointer, 'properties', name), stack);
      if (value === undefined) dropped.add(name);
      else defineMember(compiled, name, value);
    }
    out.properties = compiled;
    if (Array.isArray(node.required)) {
      const required = [
        ...new Set(
          node.required.filter(
            (name): name is string => typeof name === 'string' && Object.hasOwn(compiled, name),
          ),
        ),
      ];
      if (node.required.length === 0) {
        this.reporter.add(
          pointer,
          'dropped',
          'required',
          'an empty `required` list says nothing and is not sent',
        );
      } else if (required.length !== node.required.length) {
        this.reporter.add(
          pointer,
          'dropped',
          'required',
          '`required` names without a declared property (or duplicates) were removed',
        );
      }
      if (required.length > 0) out.required = required;
    }
    for (const keyword of OBJECT_KEYWORDS)
      if (node[keyword] !== undefined) out[keyword] = keptValue(keyword, node[keyword]!);
    if (node.additionalProperties !== undefined) {
      this.reporter.add(
        pointer,
        'dropped',
        'additionalProperties',
        node.additionalProperties === false
          ? 'Gemini `parameters` cannot forbid extra keys; the host still rejects them'
          : 'Gemini `parameters` cannot describe extra keys; they are not declared',
      );
    }
    this.dropForType(node, 'object', pointer, [
      'properties',
      'required',
      'additionalProperties',
      ...OBJECT_KEYWORDS,
    ]);
    return out;
  }

  array(node: JsonObject, out: JsonObject, pointer: string, stack: readonly string[]): JsonObject {
    if (node.prefixItems !== undefined || Array.isArray(node.items)) {
      this.reporter.add(
        pointer,
        'rewritten',
        node.prefixItems !== undefined ? 'prefixItems' : 'items',
        'Gemini `parameters` have no tuples; the tuple is sent as a JSON-encoded string and decoded back',
      );
      const { nullable, ...rest } = out;
      const degraded = this.jsonString(rest, '(a JSON-encoded array)');
      if (nullable === true) degraded.nullable = true;
      return degraded;
    }
    if (node.items === undefined) {
      this.reporter.add(
        pointer,
        'added',
        'items',
        'Gemini ARRAY needs `items`; items of any type are sent as JSON-encoded strings',
      );
      out.items = this.jsonString({}, '(a JSON-encoded value)');
    } else {
      out.items =
        this.node(node.items, pointerJoin(pointer, 'items'), stack) ??
        this.jsonString({}, '(a JSON-encoded value)');
    }
    for (const keyword of ARRAY_KEYWORDS)
      if (node[keyword] !== undefined) out[keyword] = keptValue(keyword, node[keyword]!);
    for (const keyword of moveToDescription(out, node, MOVED_ARRAY)) {
      this.reporter.add(
        pointer,
        'moved-to-description',
        keyword,
        `Gemini \`parameters\` do not support \`${keyword}\`; the host still enforces it`,
      );
    }
    this.dropForType(node, 'array', pointer, ['items', ...ARRAY_KEYWORDS, ...MOVED_ARRAY]);
    return out;
  }

  union(
    node: JsonObject,
    keyword: 'anyOf' | 'oneOf',
    pointer: string,
    stack: readonly string[],
  ): JsonObject | undefined {
    if (keyword === 'oneOf') {
      this.reporter.add(
        pointer,
        'rewritten',
        'oneOf',
        'Gemini has no `oneOf`; it became `anyOf` (more than one branch may match)',
      );
    }
    const raw = node[keyword];
    const branches = Array.isArray(raw) ? raw : [];
    const { anyOf: _anyOf, oneOf: _oneOf, ...outer } = node;
    let nullable = outer.nullable === true;
    const compiled: JsonObject[] = [];
    branches.forEach((branch, index) => {
      if (
        isJsonObject(branch) &&
        branch.type === 'null' &&
        Object.keys(branch).every((key) => ['type', 'description', 'title'].includes(key))
      ) {
        nullable = true;
        this.reporter.add(
          pointer,
          'rewritten',
          keyword,
          `the \`null\` branch ${index} became \`nullable: true\``,
        );
        return;
      }
      // Outer type-specific keywords apply to every branch.
      const merged = isJsonObject(branch) ? { ...siblingConstraints(outer), ...branch } : branch;
      const value = this.node(merged, pointerJoin(pointer, keyword, index), stack);
      if (value) compiled.push(value);
      else
        this.reporter.add(
          pointer,
          'dropped',
          keyword,
          `branch ${index} accepts nothing and was removed from the union`,
        );
    });
    const out: JsonObject = {};
    if (typeof outer.title === 'string') out.title = outer.title;
    if (typeof outer.description === 'string') out.description = outer.description;
    if (outer.default !== undefined) out.default = cloneJson(outer.default);
    if (compiled.length === 1) {
      this.reporter.add(
        pointer,
        'rewritten',
        keyword,
        'a union with one remaining branch became that branch',
      );
      const only = compiled[0]!;
      const result: JsonObject = { ...only, ...out };
      if (
        out.description !== undefined &&
        typeof only.description === 'string' &&
        only.description !== out.description
      ) {
        result.description = `${out.description} ${only.description}`;
      }
      if (nullable) result.nullable = true;
      return result;
    }
    if (compiled.length === 0) {
      return nullable
        ? { ...out, type: 'null' }
        : this.jsonValue(outer, pointer, 'no branch of the union can be declared');
    }
    return this.typedUnion(out, compiled, nullable, pointer, keyword);
  }

  /**
   * A union as the protos allow it: `Schema.type` is required, so `anyOf` goes out with the type
   * its branches share. Branches of different types have no such type; the union is then sent as
   * a JSON-encoded string and decoded back.
   */
  typedUnion(
    out: JsonObject,
    branches: readonly JsonObject[],
    nullable: boolean,
    pointer: string,
    keyword: string,
  ): JsonObject {
    const types = new Set(branches.map((branch) => branch.type));
    const [shared] = [...types];
    if (types.size === 1 && typeof shared === 'string') {
      this.reporter.add(
        pointer,
        'added',
        'type',
        `Gemini \`parameters\` need a \`type\` on every schema; the union carries the type its branches share ("${shared}")`,
      );
      const result: JsonObject = { ...out, type: shared, anyOf: [...branches] };
      if (nullable) result.nullable = true;
      return result;
    }
    this.reporter.add(
      pointer,
      'rewritten',
      keyword,
      'Gemini `parameters` need a `type` on every schema and these branches have different types; the union is sent as a JSON-encoded string and decoded back',
    );
    const degraded = this.jsonString(out, '(one of several types, JSON-encoded)');
    if (nullable) degraded.nullable = true;
    return degraded;
  }

  mergeAllOf(node: JsonObject, pointer: string, stack: readonly string[]): JsonObject {
    const { allOf, ...outer } = node;
    let merged: JsonObject = { ...outer };
    const branches = Array.isArray(allOf) ? allOf : [];
    for (const branch of branches) {
      let resolved: JsonValue = branch;
      let guard = 0;
      while (isJsonObject(resolved) && typeof resolved.$ref === 'string' && guard++ < 16) {
        const target = resolveLocalRef(this.root, resolved.$ref);
        if (!target || stack.includes(target.pointer) || !isJsonObject(target.schema)) break;
        const { $ref: _ref, ...siblings } = resolved;
        resolved = { ...target.schema, ...siblings };
      }
      if (!isJsonObject(resolved) || typeof resolved.$ref === 'string') {
        this.reporter.add(
          pointer,
          'dropped',
          'allOf',
          'an `allOf` branch that cannot be inlined was removed',
        );
        continue;
      }
      merged = mergeSchemas(merged, resolved);
    }
    this.reporter.add(
      pointer,
      'merged',
      'allOf',
      'Gemini `parameters` have no `allOf`; its branches were merged into one schema',
    );
    return merged;
  }

  /** A value of any type: sent as a JSON-encoded string and parsed back. */
  jsonValue(source: JsonObject, pointer: string, reason: string): JsonObject {
    this.reporter.add(
      pointer,
      'rewritten',
      'type',
      `${reason}; it is sent as a JSON-encoded string and decoded back`,
    );
    const base: JsonObject = {};
    if (typeof source.title === 'string') base.title = source.title;
    if (typeof source.description === 'string') base.description = source.description;
    return this.jsonString(base, '(any JSON value, JSON-encoded)');
  }

  jsonString(base: JsonObject, note: string): JsonObject {
    const out: JsonObject = {};
    if (typeof base.title === 'string') out.title = base.title;
    out.description = typeof base.description === 'string' ? base.description : '';
    appendDescription(out, note);
    out.type = 'string';
    out[ANNOTATION.jsonString] = true;
    return out;
  }
}

/**
 * The wire form of a compiled `parameters` schema: every `type` is the protos' `Type` enum name
 * (`STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`, `OBJECT`, `NULL`). The same type names in
 * the proto JSON mapping's spelling, so no report entry: nothing is lost.
 */
export function toGeminiWireTypes(schema: JsonValue): JsonValue {
  if (Array.isArray(schema)) return schema.map(toGeminiWireTypes);
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key]!;
    if (key === 'type' && typeof value === 'string') out[key] = value.toUpperCase();
    else if (key === 'properties' && isJsonObject(value)) {
      const properties: JsonObject = {};
      for (const name of Object.keys(value)) defineMember(properties, name, toGeminiWireTypes(value[name]!));
      out[key] = properties;
    } else if (key === 'items' || key === 'anyOf') out[key] = toGeminiWireTypes(value);
    else out[key] = value;
  }
  return out;
}

/** The proto `Type` enum names `parameters` schemas use. */
export const GEMINI_TYPE_NAMES: ReadonlySet<string> = new Set([
  'STRING',
  'NUMBER',
  'INTEGER',
  'BOOLEAN',
  'ARRAY',
  'OBJECT',
  'NULL',
]);

function enumString(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function siblingConstraints(outer: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(outer)) {
    if (['title', 'description', 'default', 'nullable', '$defs', 'definitions'].includes(key)) continue;
    out[key] = outer[key]!;
  }
  return out;
}

function mergeSchemas(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const key of Object.keys(b)) {
    const value = b[key]!;
    if (key === 'properties' && isJsonObject(out.properties) && isJsonObject(value)) {
      out.properties = { ...out.properties, ...value };
    } else if (key === 'required' && Array.isArray(out.required) && Array.isArray(value)) {
      out.required = [...new Set([...out.required, ...value])] as JsonValue[];
    } else if (key === 'description' && typeof out.description === 'string' && typeof value === 'string') {
      out.description = out.description === value ? value : `${out.description} ${value}`;
    } else if (out[key] === undefined) {
      out[key] = value;
    }
  }
  return out;
}
