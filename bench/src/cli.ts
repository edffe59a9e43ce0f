// `pnpm bench [--quick] [--only ID[,ID...]] [--out FILE] [--json FILE]`
//
// The full run (no --quick, no --only) writes BENCHMARKS.md at the repository root. A quick run or a
// partial run prints the report instead, unless --out names a file. Exit 1 when a benchmark failed.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { BENCHMARK_IDS, type BenchmarkId } from './benchmark-types.js';
import { renderReport } from './report.js';
import { runBenchmarks } from './run-benchmarks.js';
import { REPO_ROOT, requireBuilt } from './workspace.js';

const USAGE = `usage: pnpm bench [--quick] [--only ${BENCHMARK_IDS.join('|')}[,...]] [--out FILE] [--json FILE]
  --quick   small sizes and few runs (a smoke run; figures are not measurements)
  --only    run these benchmarks only (the report is printed unless --out is given)
  --out     write the Markdown report here (default for a full run: BENCHMARKS.md at the repository root)
  --json    also write the raw results as JSON`;

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let quick = false;
let only: BenchmarkId[] | undefined;
let out: string | undefined;
let json: string | undefined;
const argv = process.argv.slice(2).filter((argument) => argument !== '--');
for (let index = 0; index < argv.length; index += 1) {
  const argument = argv[index]!;
  const value = () => {
    index += 1;
    const next = argv[index];
    if (next === undefined || next.startsWith('--')) fail(`${argument} needs a value`);
    return next;
  };
  if (argument === '--quick') quick = true;
  else if (argument === '--only') {
    only ??= [];
    for (const id of value().split(',')) {
      if (!(BENCHMARK_IDS as readonly string[]).includes(id)) fail(`unknown benchmark "${id}"`);
      only.push(id as BenchmarkId);
    }
  } else if (argument === '--out') out = resolve(value());
  else if (argument === '--json') json = resolve(value());
  else if (argument === '--help' || argument === '-h') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else fail(`unknown argument "${argument}"`);
}
if (out === undefined && !quick && only === undefined) out = `${REPO_ROOT}/BENCHMARKS.md`;

requireBuilt(REPO_ROOT);
const suite = await runBenchmarks({
  quick,
  ...(only ? { only } : {}),
  log: (line) => process.stderr.write(`${line}\n`),
});
const report = renderReport(suite);
if (out !== undefined) {
  writeFileSync(out, report);
  // A report inside the repository must pass `biome format` like every other file (`pnpm check`).
  if (out.startsWith(`${REPO_ROOT}/`)) {
    const formatted = spawnSync(`${REPO_ROOT}/node_modules/.bin/biome`, ['format', '--write', out], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    if (formatted.status !== 0) {
      process.stderr.write(`bench: biome could not format ${out}: ${formatted.stderr || formatted.error}\n`);
      process.exitCode = 1;
    }
  }
  process.stderr.write(`wrote ${out}\n`);
} else {
  process.stdout.write(report);
}
if (json !== undefined) writeFileSync(json, `${JSON.stringify(suite, null, 2)}\n`);
for (const result of suite.results) {
  for (const target of result.targets) {
    process.stderr.write(
      `${target.met ? 'met    ' : 'NOT MET'}  ${result.number}. ${target.target}: ${target.measured}\n`,
    );
  }
}
if (suite.failures.length > 0) {
  process.stderr.write(
    `${suite.failures.length} benchmark(s) failed: ${suite.failures.map((failure) => failure.id).join(', ')}\n`,
  );
  process.exitCode = 1;
}
