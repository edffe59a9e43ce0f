import { isJsonObject, type JsonObject, type JsonValue } from '@toolhost/contracts';

/**
 * A small arguments object that satisfies a schema's basic shape, built only from the schema (never
 * from what a caller sent): every required property, filled from `const`, `enum`, `default`,
 * `examples`, or a placeholder of the right type within its bounds. Used in `inspect` and after a
 * failed call, so the model sees a well-formed call next to the schema. Best effort: combinators
 * take their first branch and `$ref` is not followed.
 */
export function exampleFromSchema(schema: JsonObject): JsonObject {
  const value = exampleValue(schema, 'value', 0);
  return isJsonObject(value) ? value : {};
}

function exampleValue(schema: JsonValue | undefined, name: string, depth: number): JsonValue {
  if (!isJsonObject(schema) || depth > 6) return `<${name}>`;
  if ('const' in schema) return schema.const as JsonValue;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as JsonValue;
  if ('default' in schema) return schema.default as JsonValue;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as JsonValue;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const usable = branches.find((branch) => isJsonObject(branch) && branch.type !== 'null') ?? branches[0];
      return exampleValue(usable, name, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return typeof schema.format === 'string' && schema.format === 'uri'
        ? 'https://example.com'
        : `<${name}>`;
    case 'integer':
    case 'number': {
      const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const exclusive = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
      const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      let value = minimum ?? exclusive ?? 1;
      if (maximum !== undefined && value > maximum) value = maximum;
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return false;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 3) : 1;
      const items = Array.isArray(schema.prefixItems) ? undefined : schema.items;
      return Array.from({ length: Math.max(count, 1) }, () => exampleValue(items, `${name} item`, depth + 1));
    }
    case 'null':
      return null;
    default:
      break;
  }
  if (type === 'object' || isJsonObject(schema.properties)) {
    const out: JsonObject = {};
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required)
      ? schema.required.filter((item): item is string => typeof item === 'string')
      : [];
    for (const key of required) out[key] = exampleValue(properties[key], key, depth + 1);
    return out;
  }
  return `<${name}>`;
}
