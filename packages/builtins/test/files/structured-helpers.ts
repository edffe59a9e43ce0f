import { readFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AnyToolDefinition, ToolResult } from '@toolhost/contracts';
import { createPathPolicy, type PathPolicy } from '@toolhost/path-policy';
import { createObservationStore, type ObservationStore } from '@toolhost/read-evidence';
import { Ajv, type ValidateFunction } from 'ajv';
import { createFileTools, createStructuredEditTools } from '../../src/index.js';
import { callTool, tempProject } from './file-helpers.js';

/** One agent's file tools and structured editors over a fresh temp project, sharing one store. */
export interface StructuredFixture {
  readonly root: string;
  readonly policy: PathPolicy;
  readonly store: ObservationStore;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
}

export async function structuredTools(
  t: TestContext,
  options: { store?: ObservationStore } = {},
): Promise<StructuredFixture> {
  const root = await tempProject(t);
  const policy = createPathPolicy({ mode: 'current_project', root });
  const store = options.store ?? createObservationStore();
  const tools = new Map<string, AnyToolDefinition>(
    [
      ...createFileTools({ pathPolicy: policy, observations: store }),
      ...createStructuredEditTools({ pathPolicy: policy, observations: store }),
    ].map((tool) => [tool.name, tool]),
  );
  return { root, policy, store, call: (name, args) => callTool(tools.get(name)!, args) };
}

const fixtures = fileURLToPath(new URL('../fixtures/nbformat/', import.meta.url));

/** Copies a fixture notebook (`test4.5.ipynb`, `test4.ipynb`) into a project. */
export async function copyNotebook(root: string, fixture: string, name = fixture): Promise<string> {
  const target = join(root, name);
  await copyFile(join(fixtures, fixture), target);
  return target;
}

let validators: Map<string, ValidateFunction> | undefined;

/**
 * Validates a notebook against the official nbformat JSON Schema of its minor version (4.0-4.5;
 * later minors against 4.5). Returns the ajv errors, or [] when it is valid.
 */
export function nbformatErrors(notebook: unknown): string[] {
  validators ??= new Map(
    ['4.0', '4.1', '4.2', '4.3', '4.4', '4.5'].map((version) => {
      const { $schema: _draft, ...schema } = JSON.parse(
        readFileSync(join(fixtures, `nbformat.v${version}.schema.json`), 'utf8'),
      ) as Record<string, unknown>;
      // The schemas are draft-04 and use character classes ("[a-zA-Z0-9-_]") that only non-unicode regexes accept.
      const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
      return [version, ajv.compile(schema)];
    }),
  );
  const minor = (notebook as { nbformat_minor?: number }).nbformat_minor ?? 0;
  const validate = validators.get(`4.${Math.min(minor, 5)}`)!;
  if (validate(notebook)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}
