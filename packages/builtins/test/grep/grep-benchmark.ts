// Benchmark of the discovery tools against their baselines, run side by side (not a test: run it by
// hand). Each round runs every contender once, in turn, so load on the machine hits all alike; the
// report gives medians and the ratio of each tool to its baseline.
//
//   npx tsx --conditions=@toolhost/source test/grep-benchmark.ts [TREE] [ROUNDS]
//
// TREE defaults to the repository's node_modules/.pnpm (thousands of real files); the path policy's
// root is the repository. ripgrep runs with exactly the arguments the tool gives it.
import { spawn } from 'node:child_process';
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { AnyToolDefinition } from '@toolhost/contracts';
import { createPathPolicy } from '@toolhost/path-policy';
import fastGlob from 'fast-glob';
import { createDiscoveryTools, findRipgrep } from '../../src/index.js';
import { ripgrepArguments } from '../../src/grep/grep-ripgrep.js';

const repository = realpathSync(fileURLToPath(new URL('../../../..', import.meta.url)));
const tree = realpathSync(process.argv[2] || path.join(repository, 'node_modules', '.pnpm'));
const rounds = Number(process.argv[3] ?? 7);
const rg = findRipgrep();
if (rg === null) throw new Error('rg is not on PATH');
const policy = createPathPolicy({ mode: 'danger_full_access', root: repository });
const displayTree = policy.displayPathOf(tree);
type ToolName = 'ls' | 'glob' | 'grep' | 'view_image';
const byName = (rgPath: string | null) =>
  Object.fromEntries(
    createDiscoveryTools({ pathPolicy: policy, rgPath }).map((tool) => [tool.name, tool]),
  ) as Record<ToolName, AnyToolDefinition>;
const withRg = byName(rg);
const withJs = byName(null);

function countFiles(directory: string): { files: number } {
  let files = 0;
  const stack = [directory];
  while (stack.length > 0) {
    for (const entry of readdirSync(stack.pop()!, { withFileTypes: true })) {
      if (entry.isDirectory()) stack.push(path.join(entry.parentPath ?? '', entry.name));
      else if (entry.isFile()) files += 1;
    }
  }
  return { files };
}

async function callTool(tool: AnyToolDefinition, args: Record<string, unknown>): Promise<string> {
  const result = await tool.execute(args, {
    callId: 'bench',
    toolName: tool.name,
    signal: new AbortController().signal,
    invocation: { kind: 'direct' },
  });
  if (!result.ok) throw new Error(result.error.toModelText());
  return String(result.output.details?.shown ?? result.output.details?.entries ?? '');
}

function runProcess(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

interface Contender {
  readonly name: string;
  readonly run: () => Promise<unknown>;
}

interface Scenario {
  readonly title: string;
  readonly baseline: Contender;
  readonly contenders: readonly Contender[];
}

const grepSearch = (pattern: string, mode: 'content' | 'files_with_matches') => ({
  root: tree,
  rootIsFile: false,
  pattern,
  literal: false,
  ignoreCase: false,
  multiline: false,
  context: 0,
  mode,
  glob: undefined,
  type: undefined,
  includeHidden: true,
  noIgnore: true,
});

function grepScenario(title: string, pattern: string, mode: 'content' | 'files_with_matches'): Scenario {
  const args = { pattern, path: displayTree, include_hidden: true, no_ignore: true, output_mode: mode };
  return {
    title,
    baseline: {
      name: 'rg directly (same arguments, all output)',
      run: () => runProcess(rg!, ripgrepArguments(grepSearch(pattern, mode))),
    },
    contenders: [
      { name: 'grep tool, ripgrep engine', run: () => callTool(withRg.grep, args) },
      { name: 'grep tool, JS fallback', run: () => callTool(withJs.grep, args) },
    ],
  };
}

const scenarios: Scenario[] = [
  grepScenario('grep, rare identifier (full scan, few matches)', 'createRequire\\(import\\.meta', 'content'),
  grepScenario('grep, no match at all (full scan)', 'zq_never_present_9x7', 'content'),
  grepScenario('grep, common word (limit 200 cuts early)', 'function', 'content'),
  grepScenario('grep, files_with_matches of a common word', 'export default', 'files_with_matches'),
  {
    title: 'glob "**/*.js" (all collected, sorted, first 200 shown)',
    baseline: {
      name: 'fast-glob alone',
      run: () => fastGlob('**/*.js', { cwd: tree, dot: true, onlyFiles: true, followSymbolicLinks: false }),
    },
    contenders: [
      {
        name: 'glob tool',
        run: () =>
          callTool(withRg.glob, {
            pattern: '**/*.js',
            path: displayTree,
            include_hidden: true,
            no_ignore: true,
          }),
      },
      {
        name: 'rg --files (same file set)',
        run: () =>
          runProcess(rg!, [
            '--no-config',
            '--files',
            '--hidden',
            '--no-ignore',
            '--glob',
            '*.js',
            '--',
            tree,
          ]),
      },
    ],
  },
];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const { files } = countFiles(tree);
console.log(`tree: ${tree} (${files} files), ${rounds} rounds after one warm-up, rg ${rg}`);
for (const scenario of scenarios) {
  const all = [scenario.baseline, ...scenario.contenders];
  const times = new Map<string, number[]>(all.map((contender) => [contender.name, []]));
  for (let round = 0; round <= rounds; round += 1) {
    for (const contender of all) {
      const start = performance.now();
      await contender.run();
      const elapsed = performance.now() - start;
      if (round > 0) times.get(contender.name)!.push(elapsed);
    }
  }
  const base = median(times.get(scenario.baseline.name)!);
  console.log(`\n${scenario.title}`);
  for (const contender of all) {
    const value = median(times.get(contender.name)!);
    console.log(
      `  ${contender.name.padEnd(44)} median ${value.toFixed(1).padStart(8)} ms   ratio ${(value / base).toFixed(2)}`,
    );
  }
}
