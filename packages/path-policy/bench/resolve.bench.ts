// Cost of one `resolve` of an existing file against a bare realpath of the same path, run side by
// side (interleaved rounds, so machine load hits both alike). Prints µs per call and the ratios.
// Run: pnpm --filter @toolhost/path-policy bench
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPathPolicy } from '../src/index.js';

const dir = realpathSync.native(mkdtempSync(path.join(tmpdir(), 'path-policy-bench-')));
const root = path.join(dir, 'proj');
mkdirSync(path.join(root, 'src/components/widgets'), { recursive: true });
const relative = 'src/components/widgets/button.tsx';
const absolute = path.join(root, relative);
writeFileSync(absolute, 'export {};');
const policy = createPathPolicy({ mode: 'current_project', root });

const subjects: Record<string, () => unknown> = {
  'fs.realpathSync.native': () => realpathSync.native(absolute),
  'fs.realpathSync (JS)': () => realpathSync(absolute),
  'policy.resolve (read)': () => policy.resolve(relative, { access: 'read' }),
  'policy.resolve (write)': () => policy.resolve(relative, { access: 'write' }),
  'policy.resolve (new file)': () => policy.resolve('src/components/widgets/new.tsx', { access: 'write' }),
  'policy.displayPathOf': () => policy.displayPathOf(absolute),
  'policy.allows (read)': () => policy.allows(absolute, 'read'),
  // A pin of a directory pinned before (the cached descriptor is confirmed by readlink), the
  // confirmation a reader makes after its read, and the release: what a file tool adds to resolve.
  'pinTarget + verify + close': () => {
    const pinned = policy.pinTarget(absolute, { access: 'read' });
    if (!pinned.ok) throw new Error(pinned.error.message);
    pinned.value.verify();
    pinned.value.close();
  },
};

const ROUNDS = 15;
const CALLS = 20_000;
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((name) => [name, []]));
for (const run of Object.values(subjects)) for (let index = 0; index < 2_000; index += 1) run(); // warm up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, run] of Object.entries(subjects)) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < CALLS; index += 1) run();
    samples[name]!.push(Number(process.hrtime.bigint() - start) / 1_000 / CALLS);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const baseline = median(samples['fs.realpathSync.native']!);
console.log(`node ${process.version}, ${ROUNDS} rounds x ${CALLS} calls, median µs per call`);
for (const [name, values] of Object.entries(samples)) {
  const value = median(values);
  console.log(
    `${name.padEnd(28)} ${value.toFixed(2).padStart(7)} µs   x${(value / baseline).toFixed(2)} of realpathSync.native`,
  );
}
rmSync(dir, { recursive: true, force: true });
