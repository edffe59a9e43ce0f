import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { cloneJson, defineMember, isJsonObject, pointerJoin } from './json-utils.js';
import type { Reporter } from './report.js';
import { ANNOTATION } from './schema-annotations.js';
import {
  acceptsNull,
  declaredTypes,
  isObjectLike,
  isRecursiveRef,
  moveToDescription,
  resolveLocalRef,
  typesOfValues,
} from './schema-common.js';

/** A schema (or part of one) that OpenAI strict mode cannot express; the tool falls back to non-strict. */
export class StrictUnsupportedError extends Error {
  constructor(
    readonly pointer: string,
    readonly keyword: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'StrictUnsupportedError';
  }
}

/** OpenAI's documented strict-mode limits (Structured Outputs, "Supported schemas"). */
export const OPENAI_STRICT_LIMITS = {
  maxProperties: 5000,
  maxDepth: 10,
  maxStringChars: 120_000,
  maxEnumValues: 1000,
  largeEnumThreshold: 250,
  largeEnumMaxChars: 15_000,
} as const;

/** String formats strict mode supports. */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

// Kept as they are (after recursion where they hold schemas).
const KEPT = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  '$ref',
]);
// Constraints strict mode does not take: stated in the description instead.
const TO_DESCRIPTION = [
  'default',
  'examples',
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const HANDLED = new Set([
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  '$defs',
  'definitions',
  'format',
  ...TO_DESCRIPTION,
]);

/** The strict schema with its decode annotations (`x-toolhost-absent-if-null` on objects). */
export interface StrictCompileResult {
  readonly schema: JsonObject;
}

/**
 * Compiles a root-normalised, repaired schema to OpenAI strict form (PD-TOOLS-1 in
 * REQUIREMENTS.md): every object gets `additionalProperties: false` and lists every property in
 * `required`; properties that were optional become nullable (`type: [T, "null"]`, `null` appended
 * to an `anyOf`, or `anyOf: [schema, {type: "null"}]`) and are annotated so `decodeArguments`
 * maps `null` back to absent; `oneOf` becomes `anyOf`; unsupported constraints move to the
 * description; other unsupported keywords are dropped. Throws {@link StrictUnsupportedError} when
 * the schema cannot be strict (free-form objects, untyped values, tuples, over the limits), so the
 * caller can fall back. The input is not mutated.
 */
export function compileOpenAIStrict(root: JsonObject, reporter: Reporter): StrictCompileResult {
  const compiler = new StrictCompiler(root, reporter);
  const schema = compiler.node(root, '') as JsonObject;
  checkLimits(schema);
  return { schema };
}

class StrictCompiler {
  constructor(
    readonly root: JsonObject,
    readonly reporter: Reporter,
  ) {}

  node(input: JsonValue, pointer: string): JsonValue {
    if (typeof input === 'boolean' || !isJsonObject(input)) {
      throw new StrictUnsupportedError(
        pointer,
        'type',
        'a boolean schema has no type; strict mode needs typed schemas',
      );
    }
    let node = input;
    if (typeof node.$ref === 'string') {
      const siblings = Object.keys(node).filter((key) => key !== '$ref');
      if (siblings.length === 0) return { $ref: node.$ref };
      node = this.inlineRefWithSiblings(node, pointer);
    }
    const out: JsonObject = {};
    for (const key of Object.keys(node)) {
      if (KEPT.has(key)) out[key] = cloneJson(node[key]!);
      else if (!HANDLED.has(key)) {
        this.reporter.add(pointer, 'dropped', key, `strict mode does not support \`${key}\``);
      }
    }
    if (typeof node.format === 'string' && OPENAI_STRICT_FORMATS.has(node.format)) out.format = node.format;
    const moved = moveToDescription(out, node, [
      ...TO_DESCRIPTION,
      ...(node.format !== undefined &&
      !(typeof node.format === 'string' && OPENAI_STRICT_FORMATS.has(node.format))
        ? ['format']
        : []),
    ]);
    for (const keyword of moved) {
      this.reporter.add(
        pointer,
        'moved-to-description',
        keyword,
        `strict mode does not support \`${keyword}\`; the host still enforces it`,
      );
    }

    if (node.oneOf !== undefined && node.anyOf !== undefined) {
      throw new StrictUnsupportedError(
        pointer,
        'oneOf',
        '`oneOf` beside `anyOf` cannot be expressed in strict mode',
      );
    }
    const union = node.anyOf ?? node.oneOf;
    if (Array.isArray(union)) {
      const keyword = node.anyOf !== undefined ? 'anyOf' : 'oneOf';
      if (keyword === 'oneOf') {
        this.reporter.add(
          pointer,
          'rewritten',
          'oneOf',
          'strict mode has no `oneOf`; it became `anyOf` (more than one branch may match)',
        );
      }
      out.anyOf = union.map((branch, index) => this.node(branch, pointerJoin(pointer, keyword, index)));
    }
    if (node.allOf !== undefined) {
      throw new StrictUnsupportedError(pointer, 'allOf', 'strict mode does not support `allOf`');
    }
    for (const keyword of ['$defs', 'definitions'] as const) {
      const defs = node[keyword];
      if (!isJsonObject(defs)) continue;
      const map: JsonObject = {};
      for (const name of Object.keys(defs)) {
        defineMember(map, name, this.node(defs[name]!, pointerJoin(pointer, keyword, name)));
      }
      out[keyword] = map;
    }

    let types = declaredTypes(node);
    if (types === undefined && out.anyOf === undefined) {
      if (isObjectLike(node)) types = ['object'];
      else if (Array.isArray(node.enum)) types = typesOfValues(node.enum);
      else if (node.const !== undefined) types = typesOfValues([node.const]);
      else if (node.items !== undefined) types = ['array'];
      if (types === undefined || types.length === 0) {
        throw new StrictUnsupportedError(
          pointer,
          'type',
          'a schema without `type` accepts any value; strict mode cannot express that',
        );
      }
      out.type = types.length === 1 ? types[0]! : types;
      this.reporter.add(
        pointer,
        'added',
        'type',
        `strict mode needs a \`type\`; ${JSON.stringify(out.type)} was inferred`,
      );
    }
    if (types?.includes('object')) this.objectKeywords(node, out, pointer);
    else this.dropObjectKeywords(node, pointer);
    if (types?.includes('array')) {
      if (!isJsonObject(node.items) && node.items !== true) {
        throw new StrictUnsupportedError(
          pointer,
          'items',
          'an array without a single `items` schema cannot be strict',
        );
      }
      out.items = this.node(node.items, pointerJoin(pointer, 'items'));
    } else if (node.items !== undefined) {
      this.reporter.add(pointer, 'dropped', 'items', '`items` on a schema that is not an array');
    }
    return out;
  }

  inlineRefWithSiblings(node: JsonObject, pointer: string): JsonObject {
    const ref = node.$ref as string;
    const target = resolveLocalRef(this.root, ref);
    const { $ref: _ref, ...siblings } = node;
    if (!target || isRecursiveRef(this.root, ref) || !isJsonObject(target.schema)) {
      throw new StrictUnsupportedError(
        pointer,
        '$ref',
        'a recursive `$ref` with sibling keywords cannot be strict',
      );
    }
    const merged: JsonObject = { ...cloneJson(target.schema) };
    for (const key of Object.keys(siblings)) {
      // Siblings override annotations and keywords strict mode drops anyway; two real constraints conflict.
      if (merged[key] !== undefined && KEPT.has(key) && !['description', 'title'].includes(key)) {
        throw new StrictUnsupportedError(
          pointer,
          key,
          `\`${key}\` beside a \`$ref\` whose target also sets it cannot be strict`,
        );
      }
      merged[key] = siblings[key]!;
    }
    this.reporter.add(
      pointer,
      'inlined',
      '$ref',
      'strict mode rejects `$ref` with sibling keywords, so the target was inlined',
    );
    return merged;
  }

  objectKeywords(node: JsonObject, out: JsonObject, pointer: string): void {
    const properties = isJsonObject(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    const additional = node.additionalProperties;
    // A root without properties is a tool that takes no arguments: strict mode closes it (reported
    // below as an added `additionalProperties: false`). A nested one is a free-form value.
    if (names.length === 0 && additional !== false && pointer !== '') {
      throw new StrictUnsupportedError(
        pointer,
        'additionalProperties',
        'an object with no declared properties (free-form) cannot be strict',
      );
    }
    const originalRequired = new Set(
      Array.isArray(node.required)
        ? node.required.filter((item): item is string => typeof item === 'string')
        : [],
    );
    const unknownRequired = [...originalRequired].filter((name) => !Object.hasOwn(properties, name));
    if (unknownRequired.length > 0) {
      this.reporter.add(
        pointer,
        'dropped',
        'required',
        `required names without a property were removed: ${unknownRequired.sort().join(', ')}`,
      );
    }
    const compiled: JsonObject = {};
    const absentIfNull: string[] = [];
    for (const name of names) {
      const propertyPointer = pointerJoin(pointer, 'properties', name);
      let property = this.node(properties[name]!, propertyPointer);
      if (!originalRequired.has(name)) {
        if (acceptsNull(property as JsonObject, this.root)) {
          this.reporter.add(
            propertyPointer,
            'rewritten',
            'required',
            'optional and already nullable: strict mode requires it, so `null` now also stands for "absent" (decoding keeps null)',
          );
        } else {
          property = makeNullable(property as JsonObject);
          absentIfNull.push(name);
          this.reporter.add(
            propertyPointer,
            'rewritten',
            'type',
            'optional property made required and nullable for strict mode; `null` decodes back to absent',
          );
        }
      }
      defineMember(compiled, name, property);
    }
    out.properties = compiled;
    out.required = [...names].sort();
    if (node.required === undefined) {
      this.reporter.add(pointer, 'added', 'required', 'strict mode lists every property in `required`');
    } else if (JSON.stringify(node.required) !== JSON.stringify(out.required)) {
      this.reporter.add(pointer, 'rewritten', 'required', 'strict mode lists every property in `required`');
    }
    if (absentIfNull.length > 0) out[ANNOTATION.absentIfNull] = absentIfNull.sort();
    if (additional === false) {
      out.additionalProperties = false;
    } else if (additional === undefined) {
      out.additionalProperties = false;
      this.reporter.add(
        pointer,
        'added',
        'additionalProperties',
        'strict mode requires `additionalProperties: false` on every object',
      );
    } else {
      out.additionalProperties = false;
      this.reporter.add(
        pointer,
        'rewritten',
        'additionalProperties',
        'strict mode requires `additionalProperties: false`; keys beyond the declared properties are no longer accepted',
      );
    }
    for (const keyword of [
      'patternProperties',
      'propertyNames',
      'dependentRequired',
      'dependentSchemas',
      'unevaluatedProperties',
    ]) {
      if (node[keyword] !== undefined)
        this.reporter.add(pointer, 'dropped', keyword, `strict mode does not support \`${keyword}\``);
    }
  }

  dropObjectKeywords(node: JsonObject, pointer: string): void {
    for (const keyword of ['properties', 'required', 'additionalProperties']) {
      if (node[keyword] !== undefined) {
        this.reporter.add(pointer, 'dropped', keyword, `\`${keyword}\` on a schema that is not an object`);
      }
    }
  }
}

function makeNullable(node: JsonObject): JsonObject {
  if (node.const !== undefined || typeof node.$ref === 'string') {
    return { anyOf: [node, { type: 'null' }] };
  }
  if (typeof node.type === 'string') {
    const out: JsonObject = { ...node, type: [node.type, 'null'] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.type)) {
    const out: JsonObject = { ...node, type: [...node.type, 'null'] };
    if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
    return out;
  }
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  return { anyOf: [node, { type: 'null' }] };
}

function checkLimits(schema: JsonObject): void {
  let properties = 0;
  let stringChars = 0;
  let enumValues = 0;
  const visit = (node: JsonValue, depth: number, pointer: string): void => {
    if (!isJsonObject(node)) return;
    if (depth > OPENAI_STRICT_LIMITS.maxDepth) {
      throw new StrictUnsupportedError(
        pointer,
        'properties',
        `nesting deeper than ${OPENAI_STRICT_LIMITS.maxDepth} levels exceeds the strict-mode limit`,
      );
    }
    if (isJsonObject(node.properties)) {
      for (const name of Object.keys(node.properties)) {
        properties += 1;
        stringChars += name.length;
        visit(node.properties[name]!, depth + 1, pointerJoin(pointer, 'properties', name));
      }
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      const chars = node.enum.reduce<number>(
        (sum, value) => sum + (typeof value === 'string' ? value.length : 0),
        0,
      );
      stringChars += chars;
      if (
        node.enum.length > OPENAI_STRICT_LIMITS.largeEnumThreshold &&
        chars > OPENAI_STRICT_LIMITS.largeEnumMaxChars
      ) {
        throw new StrictUnsupportedError(
          pointer,
          'enum',
          `an enum of more than ${OPENAI_STRICT_LIMITS.largeEnumThreshold} values longer than ${OPENAI_STRICT_LIMITS.largeEnumMaxChars} characters exceeds the strict-mode limit`,
        );
      }
    }
    if (typeof node.const === 'string') stringChars += node.const.length;
    if (node.items !== undefined) visit(node.items, depth + 1, pointerJoin(pointer, 'items'));
    if (Array.isArray(node.anyOf)) {
      for (const [index, branch] of node.anyOf.entries())
        visit(branch, depth, pointerJoin(pointer, 'anyOf', index));
    }
    for (const keyword of ['$defs', 'definitions'] as const) {
      const defs = node[keyword];
      if (isJsonObject(defs))
        for (const name of Object.keys(defs)) visit(defs[name]!, depth, pointerJoin(pointer, keyword, name));
    }
  };
  visit(schema, 0, '');
  if (properties > OPENAI_STRICT_LIMITS.maxProperties) {
    throw new StrictUnsupportedError(
      '',
      'properties',
      `${properties} object properties exceed the strict-mode limit of ${OPENAI_STRICT_LIMITS.maxProperties}`,
    );
  }
  if (stringChars > OPENAI_STRICT_LIMITS.maxStringChars) {
    throw new StrictUnsupportedError(
      '',
      'enum',
      `${stringChars} characters of names and enum values exceed the strict-mode limit of ${OPENAI_STRICT_LIMITS.maxStringChars}`,
    );
  }
  if (enumValues > OPENAI_STRICT_LIMITS.maxEnumValues) {
    throw new StrictUnsupportedError(
      '',
      'enum',
      `${enumValues} enum values exceed the strict-mode limit of ${OPENAI_STRICT_LIMITS.maxEnumValues}`,
    );
  }
}
