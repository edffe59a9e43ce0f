// What hooks and extensions cost per call: a small read_file through the whole pipeline on hosts that
// differ only in their interceptors: none; hooks configured for other tools only (the matcher is
// consulted, nothing runs); one extension that observes; one matching PreToolUse hook (a real process:
// `/bin/sh -c true`). Rounds alternate between the variants so drift on a shared machine hits all of
// them alike; medians per call and the ratio to the plain host are reported.
//
//   pnpm --filter @toolhost/boot exec tsx --conditions=@toolhost/source bench/dispatch-hooks.ts
//
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, type Host } from '../src/index.js';
import { tempRoot } from '../test/helpers.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const HOOK_CALLS = Number(process.env.BENCH_HOOK_CALLS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const root = tempRoot('toolhost-hooks-bench-');
writeFileSync(
  join(root.dir, 'small.txt'),
  `${Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n')}\n`,
);
const call = { name: 'read_file', arguments: { path: 'small.txt', limit: 20 } };

const variants: { name: string; calls: number; host: Host }[] = [
  { name: 'no interceptors', calls: CALLS, host: await createHost({ root: root.dir, config: false }) },
  {
    name: 'hooks for other tools',
    calls: CALLS,
    host: await createHost({
      root: root.dir,
      config: {
        hooks: {
          PreToolUse: [{ matcher: 'bash|write_file', hooks: [{ type: 'command', command: 'true' }] }],
        },
      },
    }),
  },
  {
    name: 'one observing extension',
    calls: CALLS,
    host: await createHost({
      root: root.dir,
      config: false,
      extensions: [{ name: 'observe', beforeCall: () => undefined, afterCall: () => undefined }],
    }),
  },
  {
    name: 'one matching hook (process)',
    calls: HOOK_CALLS,
    host: await createHost({
      root: root.dir,
      config: {
        hooks: { PreToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: 'true' }] }] },
      },
    }),
  },
];

const perCall = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
for (const variant of variants) await variant.host.dispatch(call);
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    const started = performance.now();
    for (let index = 0; index < variant.calls; index++) {
      const result = await variant.host.dispatch(call);
      if (result.status !== 'ok') throw new Error(`${variant.name}: ${result.output}`);
    }
    perCall.get(variant.name)?.push((performance.now() - started) / variant.calls);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const base = median(perCall.get('no interceptors') ?? []);
for (const variant of variants) {
  const value = median(perCall.get(variant.name) ?? []);
  console.log(
    `${variant.name.padEnd(30)} ${value.toFixed(3).padStart(8)} ms/call  x${(value / base).toFixed(2)}`,
  );
}
await Promise.all(variants.map((variant) => variant.host.close()));
root.cleanup();
