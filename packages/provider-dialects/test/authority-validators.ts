// Validators for the providers' own request definitions (test/authorities/, SOURCES.md there).
import { readFileSync } from 'node:fs';
import type { JsonObject } from '@toolhost/contracts';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { DialectName } from '../src/index.js';
import { GEMINI_REQUEST_SCHEMA } from './authorities/gemini-request.schema.js';
import { testPath } from './helpers.js';

const load = (file: string) => JSON.parse(readFileSync(testPath('authorities', file), 'utf8')) as JsonObject;

let cache: Record<DialectName, ValidateFunction> | undefined;

/** One compiled validator per dialect (ajv compiles each definition once per process). */
export function authorityValidators(): Record<DialectName, ValidateFunction> {
  if (cache) return cache;
  const draft7 = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  cache = {
    'openai-chat': draft7.compile(load('openai-chat.schema.json')),
    'openai-responses': draft7.compile(load('openai-responses.schema.json')),
    anthropic: draft7.compile(load('anthropic.schema.json')),
    gemini: draft2020.compile(GEMINI_REQUEST_SCHEMA),
  };
  return cache;
}

/**
 * The violations of a request body against its dialect's definition. A union's failed branches
 * make ajv report every branch; only the deepest errors are kept, as the readable cause.
 */
export function violations(dialect: DialectName, body: unknown): string[] {
  const validate = authorityValidators()[dialect];
  if (validate(body)) return [];
  const errors = (validate.errors ?? []) as ErrorObject[];
  const depth = Math.max(...errors.map((error) => error.instancePath.split('/').length));
  return errors
    .filter((error) => error.instancePath.split('/').length === depth)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
}
