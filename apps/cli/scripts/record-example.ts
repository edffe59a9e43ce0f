// Records examples/explore.jsonl: a real `toolhost run` over this repository, read-only, against the
// loopback fake provider (OpenAI Chat wire format) driven by a scripted explorer that decides each
// turn from what the tools returned. Every tool call in the transcript really ran through the host.
// Usage (after `pnpm build`): pnpm --filter toolhost exec tsx scripts/record-example.ts
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type FakeRequest, type FakeTurn, startFakeProvider } from '../test/fake-provider.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const cli = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const output = fileURLToPath(new URL('../../../examples/explore.jsonl', import.meta.url));

const capability = (tool: string, args: Record<string, unknown>) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: `tool:${tool}`, arguments: args },
});

const seen: FakeRequest['results'][] = [];

/** A scripted explorer: top level first, then the packages, then an answer built from the results. */
function explore(request: FakeRequest): FakeTurn {
  seen[request.turn] = request.results;
  switch (request.turn) {
    case 0:
      return {
        text: 'I will start at the top: the directory listing, the README and the workspace file.',
        calls: [
          capability('ls', { path: '.' }),
          { name: 'read_file', arguments: { path: 'README.md' } },
          { name: 'read_file', arguments: { path: 'pnpm-workspace.yaml' } },
        ],
      };
    case 1:
      return {
        text: 'It is a pnpm workspace. Next, the packages and the architecture notes.',
        calls: [
          capability('glob', { pattern: 'packages/*/package.json' }),
          capability('glob', { pattern: 'apps/*/package.json' }),
          { name: 'read_file', arguments: { path: 'docs/architecture.md', limit: 60 } },
        ],
      };
    case 2:
      return {
        text: 'Now what each package says it is, and the root scripts.',
        calls: [
          capability('grep', { pattern: '"description":', path: 'packages', glob: '*/package.json' }),
          { name: 'read_file', arguments: { path: 'package.json' } },
        ],
      };
    default: {
      const packages = [...(seen[2]?.[0]?.text ?? '').matchAll(/packages\/([\w-]+)\/package\.json/g)].map(
        (m) => m[1],
      );
      const apps = [...(seen[2]?.[1]?.text ?? '').matchAll(/apps\/([\w-]+)\/package\.json/g)].map(
        (m) => m[1],
      );
      const descriptions = [
        ...(request.results[0]?.text ?? '').matchAll(
          /packages\/([\w-]+)\/package\.json:\d+:\s*"description": "([^"]+)"/g,
        ),
      ].map((m) => `- ${m[1]}: ${m[2]}`);
      const scripts = [
        ...(request.results[1]?.text ?? '').matchAll(/"(build|test|typecheck|lint|check|toolhost)":/g),
      ].map((m) => m[1]);
      const readme = (seen[1]?.[1]?.text ?? '').split('\n').map((line) => line.replace(/^\s*\d+→/, ''));
      const start = readme.findIndex((line) => /^toolhost is /.test(line));
      const end = readme.findIndex((line, index) => index > start && line.trim() === '');
      const intro =
        start === -1
          ? 'toolhost (no introduction found)'
          : readme.slice(start, end === -1 ? undefined : end).join(' ');
      return {
        text: [
          `Summary. ${intro.trim()} (README).`,
          '',
          `It is a pnpm workspace with ${packages.length} packages under packages/ and ${apps.length} app(s) under apps/ (${apps.join(', ')}).`,
          ...descriptions,
          '',
          `Root scripts: ${scripts.join(', ')}; \`pnpm build\` builds every package and \`pnpm test\` runs every test suite.`,
        ].join('\n'),
      };
    }
  }
}

const fake = await startFakeProvider({ dialect: 'openai-chat', script: explore });
try {
  rmSync(output, { force: true });
  // Asynchronous: the fake provider answers from this very process.
  const child = spawn(
    process.execPath,
    [
      cli,
      'run',
      'Explore this repository read-only and summarise what it is, how it is organised and how to build and test it.',
      '--root',
      repo,
      '--provider',
      'openai-compatible',
      '--base-url',
      fake.baseUrl,
      '--model',
      'scripted-explorer',
      '--transcript',
      output,
    ],
    { stdio: 'inherit', env: { ...process.env, OPENAI_API_KEY: '' } },
  );
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (status !== 0) throw new Error(`toolhost run exited ${status}`);
  console.error(`recorded ${output}`);
} finally {
  await fake.close();
}
