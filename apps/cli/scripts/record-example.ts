// Records examples/explore.jsonl, the example that ships with the toolhost package: a real `toolhost
// run`, read-only, over a directory laid out as the installed package is (its README, manifest,
// changelog and license), against the loopback fake provider (OpenAI Chat wire format) driven by a
// scripted explorer that decides each turn from what the tools returned. Every tool call in the
// transcript really ran through the host. `toolhost replay examples/explore.jsonl` replays it against
// the installed package wherever the user is (see commands/replay-command.ts).
// Usage (after `pnpm build`): pnpm --filter toolhost exec tsx scripts/record-example.ts
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeRequest, type FakeTurn, startFakeProvider } from '../test/fake-provider.js';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const cli = join(packageDir, 'dist/bin.js');
const output = join(packageDir, 'examples/explore.jsonl');

/** The files the published package holds at its top level (`files` plus what npm always packs). */
const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolhost-example-')));
for (const [from, to] of [
  [join(packageDir, 'README.md'), 'README.md'],
  [join(packageDir, 'package.json'), 'package.json'],
  [join(packageDir, 'CHANGELOG.md'), 'CHANGELOG.md'],
  [join(packageDir, '../../LICENSE'), 'LICENSE'],
] as const) {
  copyFileSync(from, join(root, to));
}
mkdirSync(join(root, 'examples'));

const capability = (tool: string, args: Record<string, unknown>) => ({
  name: 'use_capability',
  arguments: { action: 'call', capability_id: `tool:${tool}`, arguments: args },
});

const seen: FakeRequest['results'][] = [];

/** A scripted explorer: the top level, then the commands and the changes, then one refused read. */
function explore(request: FakeRequest): FakeTurn {
  seen[request.turn] = request.results;
  switch (request.turn) {
    case 0:
      return {
        text: 'I will start at the top: the directory listing, the README and the manifest.',
        calls: [
          capability('ls', { path: '.' }),
          { name: 'read_file', arguments: { path: 'README.md', limit: 40 } },
          { name: 'read_file', arguments: { path: 'package.json' } },
        ],
      };
    case 1:
      return {
        text: 'It is the toolhost command. Next, its commands, its documents and what changed.',
        calls: [
          capability('grep', { pattern: '^\\| `[a-z]+', path: 'README.md' }),
          capability('glob', { pattern: '*.md' }),
          { name: 'read_file', arguments: { path: 'CHANGELOG.md' } },
        ],
      };
    case 2:
      return {
        text: 'One look outside the project, to see what the host decides.',
        calls: [{ name: 'read_file', arguments: { path: '../outside.txt' } }],
      };
    default: {
      const commands = [...(seen[2]?.[0]?.text ?? '').matchAll(/\| `([a-z]+)/g)].map((match) => match[1]);
      const documents = (seen[2]?.[1]?.text ?? '').split('\n').filter((line) => line.endsWith('.md'));
      const refused = (request.results[0]?.text ?? '').split(':')[0];
      return {
        text: [
          'Summary. This is the toolhost command (the package `toolhost`), the host side of a coding',
          "agent's tool calls: the model asks, the host decides.",
          '',
          `Commands in its README: ${commands.join(', ')}.`,
          `Documents: ${documents.join(', ')}.`,
          `Reading a path outside the project was refused by the host (${refused}).`,
        ].join('\n'),
      };
    }
  }
}

const fake = await startFakeProvider({ dialect: 'openai-chat', script: explore });
try {
  rmSync(output, { force: true });
  mkdirSync(join(packageDir, 'examples'), { recursive: true });
  // Asynchronous: the fake provider answers from this very process.
  const child = spawn(
    process.execPath,
    [
      cli,
      'run',
      'Explore this package read-only and summarise what it is and which commands it has.',
      '--root',
      root,
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
  // Transcripts are written private (0600); this one ships, readable by every user of an installation.
  chmodSync(output, 0o644);
  console.error(`recorded ${output}`);
} finally {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
