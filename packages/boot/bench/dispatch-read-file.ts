// Dispatch overhead: a small read_file through the whole Host pipeline (resolve, validate,
// permission with the path policy, execute, shape, record) against the same window read raw, side by
// side in one process. Rounds alternate between the variants so drift on a shared machine hits all of
// them alike; the median and the best round are reported.
//
//   pnpm --filter @toolhost/boot bench
//
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineTool, textResult } from '@toolhost/contracts';
import { createHost } from '../src/index.js';
import { tempRoot } from '../test/helpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const LINES = 40;

const root = tempRoot('toolhost-boot-bench-');
const lines = Array.from({ length: 200 }, (_, index) => `line ${index + 1}: ${'lorem ipsum '.repeat(4)}`);
writeFileSync(join(root.dir, 'small.txt'), `${lines.join('\n')}\n`);

// A tool that does nothing but declares a path like read_file: the pipeline's own cost, path policy included.
const noop = defineTool<{ path: string }>({
  name: 'bench_noop',
  source: 'dynamic',
  group: 'read_only_builtins',
  category: 'read',
  annotations: { readOnly: true, destructive: false, openWorld: false },
  execution: { mode: 'parallel', timeoutMs: 10_000, abortable: true },
  pathAccess: 'current_project',
  visibility: 'listed',
  modelTool: {
    name: 'bench_noop',
    description: 'Nothing.',
    inputSchema: { type: 'object', required: ['path'], properties: { path: { type: 'string' } } },
  },
  permission: { paths: (input) => [{ argument: 'path', path: input.path, access: 'read' }] },
  execute: async () => textResult('ok'),
});
const host = await createHost({ root: root.dir, config: false, tools: [noop] });
const audited = await createHost({
  root: root.dir,
  config: false,
  onAudit: () => undefined,
  stateDir: join(root.dir, '.toolhost-audited'),
});
const readFileTool = host.registry.get('read_file')!.definition;
const args = { path: 'small.txt', offset: 0, limit: LINES };
const signal = new AbortController().signal;

/** The window as a reader would build it: split, take, number the lines. */
function window(text: string): string {
  const all = text.split('\n');
  let out = '';
  for (let index = 0; index < LINES && index < all.length; index++) out += `${index + 1}→${all[index]}\n`;
  return out;
}

const variants: Record<string, () => Promise<unknown>> = {
  'raw readFileSync + window': async () => window(readFileSync(join(root.dir, 'small.txt'), 'utf8')),
  'raw fs.promises.readFile + window': async () =>
    window(await readFile(join(root.dir, 'small.txt'), 'utf8')),
  'read_file handler alone': () =>
    readFileTool.execute(args, {
      callId: 'x',
      toolName: 'read_file',
      signal,
      invocation: { kind: 'direct' },
      // The handler alone still runs in the host's default session (its observation store).
      sessionId: host.defaultSession().id,
    }),
  'host.dispatch (audit off)': () => host.dispatch({ id: 'c', name: 'read_file', arguments: args }),
  'host.dispatch (onAudit on)': () => audited.dispatch({ id: 'c', name: 'read_file', arguments: args }),
  'no-op handler alone': () =>
    noop.execute(
      { path: 'small.txt' },
      { callId: 'x', toolName: 'bench_noop', signal, invocation: { kind: 'direct' } },
    ),
  'host.dispatch of the no-op tool': () =>
    host.dispatch({ id: 'c', name: 'bench_noop', arguments: { path: 'small.txt' } }),
  'host.dispatch (JSON string args)': () =>
    host.dispatch({ id: 'c', name: 'read_file', arguments: JSON.stringify(args) }),
};

// Sanity: the pipeline really reads the window.
const check = await host.dispatch({ id: 'check', name: 'read_file', arguments: args });
if (check.status !== 'ok' || !check.output.includes(`${LINES}→line ${LINES}:`)) {
  throw new Error(`read_file did not return the window: ${check.output.slice(0, 200)}`);
}

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (const run of Object.values(variants)) for (let index = 0; index < 500; index++) await run();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < CALLS; index++) await run();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e3;
    samples[name]!.push(elapsed / CALLS);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const best = (values: number[]) => Math.min(...values);
const baseline = median(samples['raw fs.promises.readFile + window']!);
console.log(
  `node ${process.version}, ${CALLS} calls x ${ROUNDS} rounds, ${LINES}-line window of a ${lines.length}-line file`,
);
console.log(
  'variant'.padEnd(36),
  'median us'.padStart(10),
  'best us'.padStart(9),
  'calls/s'.padStart(9),
  'x async raw'.padStart(12),
);
for (const name of Object.keys(variants)) {
  const us = median(samples[name]!);
  console.log(
    name.padEnd(36),
    us.toFixed(1).padStart(10),
    best(samples[name]!).toFixed(1).padStart(9),
    Math.round(1e6 / us)
      .toString()
      .padStart(9),
    (us / baseline).toFixed(2).padStart(12),
  );
}
// Under interference the best round is the steadiest estimate of what a call costs.
const overhead = (a: string, b: string) => best(samples[a]!) - best(samples[b]!);
console.log(
  `pipeline overhead (best rounds): ${overhead('host.dispatch of the no-op tool', 'no-op handler alone').toFixed(1)} us per call for a no-op tool, ${overhead('host.dispatch (audit off)', 'read_file handler alone').toFixed(1)} us per read_file call`,
);
await host.close();
await audited.close();
root.cleanup();
