import type { JsonObject, JsonValue } from '@toolhost/contracts';
import { defineMember, isJsonObject, pointerJoin } from './json-utils.js';
import type { Reporter } from './report.js';
import {
  appendDescription,
  declaredTypes,
  isJsonTypeName,
  isSchema,
  isValidPattern,
  resolveLocalRef,
  SCHEMA_ARRAY_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TYPE_ALIASES,
} from './schema-common.js';

/** Which repairs a dialect needs on top of the ones every dialect gets. */
export interface SchemaFixOptions {
  /**
   * Make the schema valid JSON Schema draft 2020-12 (Anthropic validates tool schemas against it;
   * Gemini's `parametersJsonSchema` is 2020-12 too): unique string `required` entries, numbers
   * where numbers belong, draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum`, tuple `items` as
   * `prefixItems`, draft-07 `dependencies` split, known type-name aliases, `$schema` removed.
   */
  readonly draft2020: boolean;
  /** Give arrays without `items` an `items: {}` (OpenAI rejects "array schema missing items"). */
  readonly arrayItems: boolean;
  /** Turn `type` arrays into `anyOf` (Gemini rejects union types in some positions). */
  readonly typeArraysToAnyOf: boolean;
  /** Move a `$ref` that has siblings other than `description`/`default` into an `allOf` (Gemini). */
  readonly refSiblingsToAllOf: boolean;
}

const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'] as const;
const COUNT_KEYWORDS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;

/**
 * Repairs a (root-normalised) schema so the provider accepts it, reporting every change. Every
 * dialect gets: a `$ref` that does not resolve locally removed (noted in the description), an
 * invalid `pattern` removed. The options add the dialect-specific repairs. The input is not
 * mutated.
 */
export function applySchemaFixes(
  root: JsonObject,
  options: SchemaFixOptions,
  reporter: Reporter,
): JsonObject {
  const out = fixNode(root, '', root, options, reporter);
  return isJsonObject(out) ? out : { type: 'object', properties: {} };
}

function fixNode(
  node: JsonValue,
  pointer: string,
  root: JsonObject,
  options: SchemaFixOptions,
  reporter: Reporter,
): JsonValue | undefined {
  if (typeof node === 'boolean') return node;
  if (!isJsonObject(node)) return undefined;
  let out: JsonObject = { ...node };

  if ('$ref' in out) {
    const ref = out.$ref;
    if (typeof ref !== 'string' || !resolveLocalRef(root, ref)) {
      delete out.$ref;
      reporter.add(
        pointer,
        'moved-to-description',
        '$ref',
        typeof ref === 'string'
          ? 'the reference does not resolve inside this schema (remote or dangling); it was removed and noted in the description'
          : 'a non-string `$ref` was removed and noted in the description',
      );
      appendDescription(
        out,
        typeof ref === 'string'
          ? `(unresolvable reference ${JSON.stringify(ref)} removed)`
          : '(invalid reference removed)',
      );
    }
  }

  if ('pattern' in out && !isValidPattern(out.pattern)) {
    delete out.pattern;
    reporter.add(pointer, 'dropped', 'pattern', 'the pattern is not a valid regular expression');
  }

  if (options.draft2020) out = fixDraft2020(out, pointer, reporter);

  if (options.arrayItems) {
    const types = declaredTypes(out);
    if (types?.includes('array') && out.items === undefined && out.prefixItems === undefined) {
      out.items = {};
      reporter.add(
        pointer,
        'added',
        'items',
        'an array schema without `items` got `items: {}` (OpenAI requires `items`)',
      );
    }
  }

  if (options.typeArraysToAnyOf && Array.isArray(out.type)) {
    const types = out.type.filter(isJsonTypeName);
    if (types.length === 1) {
      out.type = types[0]!;
      reporter.add(pointer, 'rewritten', 'type', 'a one-element `type` array became a plain `type`');
    } else if (types.length > 1) {
      const branches: JsonValue[] = types.map((type) => ({ type }));
      delete out.type;
      if (Array.isArray(out.anyOf)) {
        const existing = out.anyOf;
        delete out.anyOf;
        out.allOf = [
          ...(Array.isArray(out.allOf) ? out.allOf : []),
          { anyOf: existing },
          { anyOf: branches },
        ];
      } else {
        out.anyOf = branches;
      }
      reporter.add(
        pointer,
        'rewritten',
        'type',
        'a `type` array became an `anyOf` of single types (Gemini rejects union types)',
      );
    }
  }

  if (options.refSiblingsToAllOf && typeof out.$ref === 'string') {
    const siblings = Object.keys(out).filter((key) => !['$ref', 'description', 'default'].includes(key));
    if (siblings.length > 0) {
      const ref = out.$ref;
      delete out.$ref;
      out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { $ref: ref }];
      reporter.add(
        pointer,
        'rewritten',
        '$ref',
        'a `$ref` with sibling keywords moved into `allOf` (Gemini rejects `$ref` beside other keywords)',
      );
    }
  }

  // Recurse into every schema position.
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    if (!(keyword in out)) continue;
    const value = out[keyword]!;
    if (keyword === 'items' && Array.isArray(value)) {
      out.items = value.map(
        (item, index) => fixNode(item, pointerJoin(pointer, 'items', index), root, options, reporter) ?? {},
      );
      continue;
    }
    const fixed = fixNode(value, pointerJoin(pointer, keyword), root, options, reporter);
    if (fixed === undefined) {
      delete out[keyword];
      reporter.add(pointer, 'dropped', keyword, `\`${keyword}\` must hold a schema`);
    } else {
      out[keyword] = fixed;
    }
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    if (!(keyword in out)) continue;
    const value = out[keyword]!;
    if (!Array.isArray(value) || (options.draft2020 && value.length === 0)) {
      delete out[keyword];
      reporter.add(pointer, 'dropped', keyword, `\`${keyword}\` must be a non-empty array of schemas`);
      continue;
    }
    const items: JsonValue[] = [];
    value.forEach((item, index) => {
      const fixed = fixNode(item, pointerJoin(pointer, keyword, index), root, options, reporter);
      if (fixed === undefined) {
        reporter.add(
          pointerJoin(pointer, keyword, index),
          'dropped',
          keyword,
          'a branch that is not a schema was removed',
        );
      } else {
        items.push(fixed);
      }
    });
    if (items.length === 0) delete out[keyword];
    else out[keyword] = items;
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    if (!(keyword in out)) continue;
    const value = out[keyword]!;
    if (!isJsonObject(value)) {
      delete out[keyword];
      reporter.add(pointer, 'dropped', keyword, `\`${keyword}\` must map names to schemas`);
      continue;
    }
    const map: JsonObject = {};
    for (const name of Object.keys(value)) {
      const fixed = fixNode(value[name]!, pointerJoin(pointer, keyword, name), root, options, reporter);
      if (fixed === undefined) {
        reporter.add(
          pointerJoin(pointer, keyword, name),
          'dropped',
          keyword,
          'an entry that is not a schema was removed',
        );
      } else {
        Object.defineProperty(map, name, {
          value: fixed,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    out[keyword] = map;
  }
  return out;
}

function fixDraft2020(input: JsonObject, pointer: string, reporter: Reporter): JsonObject {
  const out: JsonObject = { ...input };

  if ('$schema' in out) {
    delete out.$schema;
    reporter.add(
      pointer,
      'dropped',
      '$schema',
      'the provider validates against JSON Schema 2020-12 and rejects other `$schema` values',
    );
  }

  if ('required' in out) {
    const required = out.required;
    if (!Array.isArray(required)) {
      delete out.required;
      reporter.add(pointer, 'dropped', 'required', '`required` must be an array of property names');
    } else {
      const names = required.filter((item): item is string => typeof item === 'string');
      const unique = [...new Set(names)];
      if (names.length !== required.length) {
        reporter.add(pointer, 'dropped', 'required', 'non-string `required` entries were removed');
      }
      if (unique.length !== names.length) {
        reporter.add(
          pointer,
          'rewritten',
          'required',
          'duplicate `required` entries were removed (2020-12 requires unique entries)',
        );
      }
      out.required = unique;
    }
  }

  for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const value = out[keyword];
    if (typeof value !== 'boolean') continue;
    const bound = keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    const limit = toNumber(out[bound]);
    delete out[keyword];
    if (value && limit !== undefined) {
      out[keyword] = limit;
      delete out[bound];
      reporter.add(
        pointer,
        'rewritten',
        keyword,
        `draft-04 boolean \`${keyword}\` became the 2020-12 numeric form`,
      );
    } else {
      reporter.add(pointer, 'dropped', keyword, `a boolean \`${keyword}\` (draft-04) is not valid 2020-12`);
    }
  }

  for (const keyword of NUMBER_KEYWORDS) {
    if (!(keyword in out)) continue;
    const value = out[keyword]!;
    const number = toNumber(value);
    if (number === undefined || (keyword === 'multipleOf' && number <= 0)) {
      delete out[keyword];
      reporter.add(
        pointer,
        'dropped',
        keyword,
        `\`${keyword}\` must be a number${keyword === 'multipleOf' ? ' above 0' : ''}`,
      );
    } else if (typeof value !== 'number') {
      out[keyword] = number;
      reporter.add(pointer, 'rewritten', keyword, `\`${keyword}\` was given as a string; it became a number`);
    }
  }
  for (const keyword of COUNT_KEYWORDS) {
    if (!(keyword in out)) continue;
    const value = out[keyword]!;
    const number = toNumber(value);
    if (number === undefined || !Number.isInteger(number) || number < 0) {
      delete out[keyword];
      reporter.add(pointer, 'dropped', keyword, `\`${keyword}\` must be a non-negative integer`);
    } else if (typeof value !== 'number') {
      out[keyword] = number;
      reporter.add(pointer, 'rewritten', keyword, `\`${keyword}\` was given as a string; it became a number`);
    }
  }
  if ('uniqueItems' in out && typeof out.uniqueItems !== 'boolean') {
    delete out.uniqueItems;
    reporter.add(pointer, 'dropped', 'uniqueItems', '`uniqueItems` must be a boolean');
  }
  if ('enum' in out && !Array.isArray(out.enum)) {
    delete out.enum;
    reporter.add(pointer, 'dropped', 'enum', '`enum` must be an array');
  }

  if ('type' in out) {
    const type = out.type;
    const names = (Array.isArray(type) ? type : [type]).map((item) =>
      typeof item === 'string' && !isJsonTypeName(item) && Object.hasOwn(TYPE_ALIASES, item.toLowerCase())
        ? TYPE_ALIASES[item.toLowerCase()]!
        : item,
    );
    const valid = [...new Set(names.filter(isJsonTypeName))];
    const changed =
      valid.length !== (Array.isArray(type) ? type.length : 1) ||
      valid.some((item, index) => item !== (Array.isArray(type) ? type[index] : type));
    if (valid.length === 0) {
      delete out.type;
      reporter.add(pointer, 'dropped', 'type', `${JSON.stringify(type)} is not a JSON Schema type`);
    } else if (changed) {
      out.type = Array.isArray(type) ? valid : valid[0]!;
      reporter.add(
        pointer,
        'rewritten',
        'type',
        `${JSON.stringify(type)} was corrected to ${JSON.stringify(out.type)}`,
      );
    }
  }

  if (Array.isArray(out.items) && out.prefixItems !== undefined) {
    // Both tuple forms: the 2020-12 `prefixItems` is kept; the draft-07 pair goes.
    delete out.items;
    reporter.add(
      pointer,
      'dropped',
      'items',
      'a draft-07 tuple `items` array beside `prefixItems` was removed; `prefixItems` is kept',
    );
    if ('additionalItems' in out) {
      delete out.additionalItems;
      reporter.add(
        pointer,
        'dropped',
        'additionalItems',
        '`additionalItems` belongs to the removed tuple `items`; `prefixItems` is kept',
      );
    }
  } else if (Array.isArray(out.items)) {
    const tuple = out.items;
    const rest = out.additionalItems;
    delete out.items;
    delete out.additionalItems;
    out.prefixItems = tuple;
    if (rest !== undefined) out.items = rest;
    reporter.add(
      pointer,
      'rewritten',
      'items',
      'a tuple `items` array became `prefixItems` (2020-12 form)' +
        (rest !== undefined ? ' and `additionalItems` became `items`' : ''),
    );
  } else if ('additionalItems' in out) {
    delete out.additionalItems;
    reporter.add(
      pointer,
      'dropped',
      'additionalItems',
      '`additionalItems` has no meaning without a tuple `items` in 2020-12',
    );
  }

  if (isJsonObject(out.dependencies)) {
    const dependencies = out.dependencies;
    delete out.dependencies;
    const requiredMap: JsonObject = isJsonObject(out.dependentRequired) ? { ...out.dependentRequired } : {};
    const schemaMap: JsonObject = isJsonObject(out.dependentSchemas) ? { ...out.dependentSchemas } : {};
    const added = { dependentRequired: false, dependentSchemas: false };
    for (const name of Object.keys(dependencies)) {
      const value = dependencies[name]!;
      const target = Array.isArray(value)
        ? 'dependentRequired'
        : isSchema(value)
          ? 'dependentSchemas'
          : undefined;
      const map = target === 'dependentRequired' ? requiredMap : schemaMap;
      if (target === undefined || Object.hasOwn(map, name)) {
        // Not an array or a schema, or the 2020-12 keyword already has this property: kept as is.
        reporter.add(
          pointer,
          'dropped',
          'dependencies',
          target === undefined
            ? 'a `dependencies` entry that is neither an array of names nor a schema was removed'
            : `a \`dependencies\` entry was removed: \`${target}\` already has one for the same property`,
        );
        continue;
      }
      defineMember(map, name, value);
      added[target] = true;
    }
    if (Object.keys(requiredMap).length > 0) out.dependentRequired = requiredMap;
    if (Object.keys(schemaMap).length > 0) out.dependentSchemas = schemaMap;
    reporter.add(
      pointer,
      'rewritten',
      'dependencies',
      'draft-07 `dependencies` became `dependentRequired` / `dependentSchemas`',
    );
    for (const keyword of ['dependentRequired', 'dependentSchemas'] as const) {
      if (added[keyword])
        reporter.add(
          pointer,
          'rewritten',
          keyword,
          `entries of the draft-07 \`dependencies\` were added to \`${keyword}\``,
        );
    }
  } else if ('dependencies' in out) {
    delete out.dependencies;
    reporter.add(pointer, 'dropped', 'dependencies', '`dependencies` must be an object');
  }
  return out;
}

function toNumber(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}
