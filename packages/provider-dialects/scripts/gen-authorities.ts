// Regenerates the SDK-derived authority schemas in test/authorities/ from the official SDKs'
// request types (devDependencies pinned in the catalog; see test/authorities/SOURCES.md):
//   pnpm --filter @toolhost/provider-dialects gen:authorities
// typescript-json-schema needs about 30 s for the three types, so the output is committed and
// test/authorities.test.ts validates against it. `noExtraProps`: the providers reject unknown
// request fields, as a type check would.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const TJS = require('typescript-json-schema') as typeof import('typescript-json-schema');
const here = dirname(fileURLToPath(import.meta.url));

const TARGETS = [
  { symbol: 'OpenAIChatRequest', file: 'openai-chat.schema.json', sdk: 'openai' },
  { symbol: 'OpenAIResponsesRequest', file: 'openai-responses.schema.json', sdk: 'openai' },
  { symbol: 'AnthropicRequest', file: 'anthropic.schema.json', sdk: '@anthropic-ai/sdk' },
] as const;

const program = TJS.getProgramFromFiles(
  [join(here, 'authority-types.ts')],
  {
    strict: true,
    skipLibCheck: true,
    esModuleInterop: true,
    moduleResolution: 'bundler',
    module: 'esnext',
    target: 'es2022',
  },
  here,
);
const generator = TJS.buildGenerator(program, {
  required: true,
  noExtraProps: true,
  ref: true,
  aliasRef: false,
  strictNullChecks: true,
  ignoreErrors: true,
});
if (!generator) throw new Error('typescript-json-schema could not build a generator');
/**
 * The SDKs type open string unions as `'known-a' | 'known-b' | (string & {})`; typescript-json-schema
 * renders `string & {}` as an empty closed object. A union that also lists string values gets a
 * plain string branch in its place: any string is accepted, as the type is meant.
 */
function openStringUnions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openStringUnions);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = openStringUnions(value);
  if (Array.isArray(out.anyOf)) {
    const branches = out.anyOf as Record<string, unknown>[];
    const hasStrings = branches.some((branch) => branch.type === 'string' || Array.isArray(branch.enum));
    const isEmptyObject = (branch: Record<string, unknown>) =>
      branch.type === 'object' &&
      branch.additionalProperties === false &&
      typeof branch.properties === 'object' &&
      branch.properties !== null &&
      Object.keys(branch.properties).length === 0 &&
      Object.keys(branch).length === 3;
    if (hasStrings)
      out.anyOf = branches.map((branch) => (isEmptyObject(branch) ? { type: 'string' } : branch));
  }
  return out;
}

for (const target of TARGETS) {
  const manifest = join(here, '..', 'node_modules', target.sdk, 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const schema = openStringUnions(generator.getSchemaForSymbol(target.symbol)) as object;
  const out = {
    $comment: `generated from ${target.sdk}@${version} (${target.symbol}) by scripts/gen-authorities.ts`,
    ...schema,
  };
  writeFileSync(join(here, '..', 'test', 'authorities', target.file), `${JSON.stringify(out, null, 1)}\n`);
  console.log(`wrote test/authorities/${target.file}`);
}
