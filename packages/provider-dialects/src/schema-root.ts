import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { cloneJson, isJsonObject, jsonEqual } from './json-utils.js';
import type { Reporter } from './report.js';
import {
  appendDescription,
  declaredTypes,
  isObjectLike,
  isSchema,
  resolveLocalRef,
} from './schema-common.js';

/** The property a non-object root is wrapped in (and unwrapped from when decoding). */
export const WRAPPED_ROOT_PROPERTY = 'input';

/** A tool that cannot be compiled at all: it is left out of the request with a report entry. */
export class QuarantineError extends Error {
  constructor(
    readonly pointer: string,
    readonly keyword: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'QuarantineError';
  }
}

/** The normalised root and, when it was wrapped, the property to unwrap arguments from. */
export interface NormalizedRoot {
  readonly schema: JsonObject;
  readonly unwrap?: string;
}

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;

/**
 * Makes the root an object schema with no top-level combinator, as every provider requires
 * (each provider's documented root-schema rule): a root `$ref` is inlined, top-level `allOf` / `anyOf` / `oneOf`
 * whose branches are all objects are merged into one object, a missing `type` becomes `object`,
 * and any other root is wrapped as `{ input: <schema> }` (decoded back by `decodeArguments`).
 * Every change is reported. The input is not mutated.
 */
export function normalizeRoot(input: JsonValue, reporter: Reporter): NormalizedRoot {
  if (input === true || (isJsonObject(input) && Object.keys(input).length === 0)) {
    if (input === true)
      reporter.add('', 'rewritten', 'type', 'a `true` root schema became an empty object schema');
    else reporter.add('', 'added', 'type', 'an empty root schema became an object schema with no properties');
    reporter.add('', 'added', 'properties', 'the object schema declares no properties (`properties: {}`)');
    return { schema: { type: 'object', properties: {} } };
  }
  if (!isJsonObject(input)) {
    throw new QuarantineError(
      '',
      'type',
      input === false
        ? 'the root schema is `false`, which accepts no arguments at all'
        : 'the input schema is not a JSON Schema object',
    );
  }
  let schema = cloneJson(input);

  for (let step = 0; typeof schema.$ref === 'string' && step < 8; step++) {
    const ref = schema.$ref;
    const target = resolveLocalRef(schema, ref);
    const { $ref: _dropped, ...siblings } = schema;
    if (!target || target.pointer === '') {
      reporter.add(
        '',
        'dropped',
        '$ref',
        'a root `$ref` that does not resolve to another local schema was removed',
      );
      schema = siblings;
      break;
    }
    if (typeof target.schema === 'boolean' || !isJsonObject(target.schema)) {
      throw new QuarantineError('', '$ref', 'the root `$ref` points at a boolean schema');
    }
    reporter.add(
      '',
      'inlined',
      '$ref',
      'providers need an object schema at the root, so the root `$ref` was inlined',
    );
    schema = { ...cloneJson(target.schema), ...siblings };
  }

  for (const keyword of COMBINATORS) {
    const branches = schema[keyword];
    if (branches === undefined) continue;
    const merged = mergeRootCombinator(schema, keyword, reporter);
    if (merged) {
      schema = merged;
    } else {
      return wrapRoot(
        schema,
        reporter,
        `a top-level \`${keyword}\` with non-object branches cannot be an object schema`,
      );
    }
  }

  const types = declaredTypes(schema);
  if (types === undefined) {
    if (isObjectLike(schema) || !hasTypeSpecificKeywords(schema)) {
      reporter.add('', 'added', 'type', 'the root schema had no `type`; providers require `type: "object"`');
      schema.type = 'object';
    } else {
      return wrapRoot(schema, reporter, 'the root schema has no `type` and is not an object schema');
    }
  } else if (types.length === 1 && types[0] === 'object' && schema.type === 'object') {
    // Already an object schema.
  } else if (types.includes('object')) {
    reporter.add(
      '',
      'rewritten',
      'type',
      'the root `type` listed other types besides `object`; providers accept only an object',
    );
    schema.type = 'object';
  } else {
    return wrapRoot(
      schema,
      reporter,
      `the root schema is of type ${JSON.stringify(schema.type)}, not an object`,
    );
  }
  return { schema };
}

function hasTypeSpecificKeywords(schema: JsonObject): boolean {
  return [
    'items',
    'prefixItems',
    'enum',
    'const',
    'pattern',
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
    'minItems',
    'maxItems',
    'format',
    'not',
  ].some((keyword) => schema[keyword] !== undefined);
}

function wrapRoot(schema: JsonObject, reporter: Reporter, reason: string): NormalizedRoot {
  const { $defs, definitions, $schema: _schemaDialect, ...rest } = schema;
  const inner = rewriteRootRefs(rest) as JsonObject;
  const wrapped: JsonObject = {
    type: 'object',
    properties: { [WRAPPED_ROOT_PROPERTY]: inner },
    required: [WRAPPED_ROOT_PROPERTY],
  };
  if ($defs !== undefined) wrapped.$defs = $defs;
  if (definitions !== undefined) wrapped.definitions = definitions;
  reporter.add(
    '',
    'wrapped',
    'type',
    `${reason}; it was wrapped as the required property "${WRAPPED_ROOT_PROPERTY}" (arguments are unwrapped when decoded)`,
  );
  return { schema: wrapped, unwrap: WRAPPED_ROOT_PROPERTY };
}

// After wrapping, references to the old root (other than into $defs/definitions, which moved up
// with it) must point one level down.
function rewriteRootRefs(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(rewriteRootRefs);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = value[key]!;
    if (key === '$ref' && typeof item === 'string' && isRootRelative(item)) {
      out[key] = `#/properties/${WRAPPED_ROOT_PROPERTY}${item.slice(1)}`;
    } else {
      out[key] = rewriteRootRefs(item);
    }
  }
  return out;
}

function isRootRelative(ref: string): boolean {
  if (ref === '#') return true;
  return ref.startsWith('#/') && !ref.startsWith('#/$defs/') && !ref.startsWith('#/definitions/');
}

function mergeRootCombinator(
  schema: JsonObject,
  keyword: (typeof COMBINATORS)[number],
  reporter: Reporter,
): JsonObject | undefined {
  const raw = schema[keyword];
  if (!Array.isArray(raw) || raw.length === 0) {
    const { [keyword]: _dropped, ...rest } = schema;
    reporter.add(
      '',
      'dropped',
      keyword,
      `a top-level \`${keyword}\` that is not a non-empty array was removed`,
    );
    return rest;
  }
  const branches: JsonObject[] = [];
  for (const branch of raw) {
    const resolved = resolveBranch(schema, branch);
    if (!resolved || !isMergeableObject(resolved)) return undefined;
    branches.push(resolved);
  }
  const { [keyword]: _combinator, ...outer } = schema;
  const all = keyword === 'allOf';
  const properties: JsonObject = isJsonObject(outer.properties) ? { ...outer.properties } : {};
  const outerRequired = new Set(stringArray(outer.required));
  const variants = new Map<string, JsonValue[]>();
  for (const branch of branches) {
    const branchProperties = isJsonObject(branch.properties) ? branch.properties : {};
    for (const name of Object.keys(branchProperties)) {
      const list = variants.get(name) ?? [];
      if (!list.some((item) => jsonEqual(item, branchProperties[name]!))) list.push(branchProperties[name]!);
      variants.set(name, list);
    }
  }
  for (const [name, list] of variants) {
    const existing = properties[name];
    const all_ =
      existing === undefined ? list : [existing, ...list.filter((item) => !jsonEqual(item, existing))];
    properties[name] = all_.length === 1 ? all_[0]! : all ? { allOf: all_ } : { anyOf: all_ };
  }
  let required: string[];
  if (all) {
    required = [
      ...new Set([...outerRequired, ...branches.flatMap((branch) => stringArray(branch.required))]),
    ];
  } else {
    const sets = branches.map((branch) => new Set(stringArray(branch.required)));
    required = [
      ...new Set([
        ...outerRequired,
        ...[...(sets[0] ?? [])].filter((name) => sets.every((set) => set.has(name))),
      ]),
    ];
  }
  const merged: JsonObject = { ...outer, type: 'object', properties };
  if (required.length > 0) merged.required = required.sort();
  else delete merged.required;
  const closed = branches.map((branch) => branch.additionalProperties === false);
  if (all ? closed.some(Boolean) : closed.every(Boolean)) merged.additionalProperties = false;

  const ignored = new Set<string>();
  for (const branch of branches) {
    for (const key of Object.keys(branch)) {
      if (!['type', 'properties', 'required', 'additionalProperties', 'description', 'title'].includes(key)) {
        ignored.add(key);
      }
    }
  }
  if (!all) {
    const shapes = branches.map((branch, index) => {
      const names = Object.keys(isJsonObject(branch.properties) ? branch.properties : {}).sort();
      const req = stringArray(branch.required).sort();
      const label = typeof branch.title === 'string' ? `${branch.title}: ` : '';
      return `(${index + 1}) ${label}properties ${names.join(', ') || 'none'}${req.length ? `; required ${req.join(', ')}` : ''}`;
    });
    appendDescription(merged, `Accepts one of these shapes: ${shapes.join('; ')}.`);
  }
  reporter.add(
    '',
    'merged',
    keyword,
    all
      ? `the top-level \`allOf\` of ${branches.length} object schemas was merged into one object (providers reject top-level combinators)`
      : `the top-level \`${keyword}\` of ${branches.length} object shapes was merged into one object whose required properties are those every shape requires; the shapes are listed in the description`,
  );
  for (const key of [...ignored].sort()) {
    reporter.add(
      '',
      'dropped',
      key,
      `\`${key}\` inside a merged top-level \`${keyword}\` branch has no place in the merged object`,
    );
  }
  return merged;
}

function resolveBranch(root: JsonObject, branch: JsonValue): JsonObject | undefined {
  if (!isSchema(branch) || typeof branch === 'boolean') return undefined;
  if (typeof branch.$ref === 'string') {
    const target = resolveLocalRef(root, branch.$ref);
    if (!target || !isJsonObject(target.schema) || target.pointer === '') return undefined;
    const { $ref: _ref, ...siblings } = branch;
    return { ...target.schema, ...siblings };
  }
  return branch;
}

function isMergeableObject(branch: JsonObject): boolean {
  if (!isObjectLike(branch)) return false;
  return !COMBINATORS.some((keyword) => branch[keyword] !== undefined) && branch.$ref === undefined;
}

function stringArray(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
