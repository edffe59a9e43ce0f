// Measures `toolhost tools` wall time against bare `node -e 0`, interleaved run by run so both see
// the same machine load, and prints the medians and their ratio. Usage (after `pnpm build`):
//   node apps/cli/scripts/measure-startup.mjs [runs] [-- extra toolhost args]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const separator = process.argv.indexOf('--');
const runs = Number(process.argv[2] && process.argv[2] !== '--' ? process.argv[2] : 21);
const extra = separator === -1 ? [] : process.argv.slice(separator + 1);
const project = mkdtempSync(join(tmpdir(), 'toolhost-startup-'));

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: project, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

try {
  time(['-e', '0']);
  time([cli, 'tools', ...extra]);
  const bare = [];
  const tools = [];
  for (let run = 0; run < runs; run += 1) {
    bare.push(time(['-e', '0']));
    tools.push(time([cli, 'tools', ...extra]));
  }
  const bareMedian = median(bare);
  const toolsMedian = median(tools);
  console.log(`runs: ${runs} each, interleaved`);
  console.log(`node -e 0:      median ${bareMedian.toFixed(1)} ms`);
  console.log(`toolhost tools: median ${toolsMedian.toFixed(1)} ms ${extra.join(' ')}`);
  console.log(`ratio: ${(toolsMedian / bareMedian).toFixed(2)}x`);
} finally {
  rmSync(project, { recursive: true, force: true });
}
