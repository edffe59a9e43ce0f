// Measurement for the issue note (not a test: run it by hand; each round writes a 1 GiB log under
// the system temp directory and deletes it afterwards).
//
//   npx tsx --conditions=@toolhost/source test/output-flood-benchmark.ts [ROUNDS] [MODE]
//
// A background job printing 1 GiB (`yes | head -c 1G`) through the job manager, against the same
// command writing to /dev/null started at the same moment by a bare child process (side by side),
// and then the two one after the other (in turn). Reports medians and ratios, the host's CPU time
// while the job runs, and the host's resident memory: before, sampled every 20 ms during the floods,
// and the kernel's high-water mark (VmHWM) at the end. MODE is a sandbox mode (default read_only).
// In turn it also times the command writing a plain file: the floor for a full on-disk log.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createJobManager, type SandboxMode } from '../src/index.js';

const rounds = Number(process.argv[2] ?? 5);
const mode = (process.argv[3] ?? 'read_only') as SandboxMode;
const command = 'yes | head -c 1G';

function memory(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function bare(target: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${command} > ${target}`], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - start));
  });
}

const baseline = () => bare('/dev/null');

/** The same command writing a plain file (then deleted): the floor for any full on-disk log. */
async function plainFile(): Promise<number> {
  const file = join(root, 'plain.bin');
  const ms = await bare(file);
  await rm(file, { force: true });
  return ms;
}

const root = await mkdtemp(join(tmpdir(), 'flood-root-'));
// Warm up the sandbox probe and the modules so the first round is not special.
{
  const jobs = createJobManager({ sandbox: { mode, roots: [root] } });
  const warm = await jobs.start({ shell: 'bash', command: 'true', cwd: root });
  if (!warm.ok) throw new Error(warm.error.message);
  await jobs.wait(warm.value.id);
  await jobs.close();
}

let peakSample = memory('VmRSS');
const sampler = setInterval(() => {
  peakSample = Math.max(peakSample, memory('VmRSS'));
}, 20);
const before = memory('VmRSS');

// Each flood gets its own manager, closed (its 1 GiB log deleted) before the next one: kept logs
// would pile up dirty pages and the kernel's write-back throttling would time that instead.
async function flood(): Promise<{ ms: number; cpuMs: number; bytes: number }> {
  const jobs = createJobManager({ sandbox: { mode, roots: [root] } });
  const cpu = process.cpuUsage();
  const start = performance.now();
  const started = await jobs.start({ shell: 'bash', command, cwd: root, background: true });
  if (!started.ok) throw new Error(started.error.message);
  const waited = await jobs.wait(started.value.id);
  if (!waited.ok) throw new Error(waited.error.message);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  // Read the tail the way job_output would, to include that cost in the memory figures.
  await jobs.readNew(started.value.id);
  await jobs.close();
  return { ms, cpuMs: (used.user + used.system) / 1000, bytes: waited.value.snapshot.outputBytes };
}

const sideBySide = { job: [] as number[], baseline: [] as number[], cpu: [] as number[] };
const inTurn = { job: [] as number[], baseline: [] as number[], file: [] as number[] };
let bytes = 0;
for (let round = 0; round < rounds; round++) {
  const [job, base] = await Promise.all([flood(), baseline()]);
  sideBySide.job.push(job.ms);
  sideBySide.baseline.push(base);
  sideBySide.cpu.push(job.cpuMs);
  bytes = job.bytes;
  inTurn.job.push((await flood()).ms);
  inTurn.baseline.push(await baseline());
  inTurn.file.push(await plainFile());
}
clearInterval(sampler);
const line = (label: string, set: { job: number[]; baseline: number[] }) =>
  `${label}: job ${median(set.job).toFixed(0)} ms, /dev/null ${median(set.baseline).toFixed(0)} ms, ratio ${(median(set.job) / median(set.baseline)).toFixed(2)}`;
console.log(`mode ${mode}, ${rounds} rounds, ${bytes} bytes per job`);
console.log(line('side by side', sideBySide));
console.log(line('in turn', inTurn));
console.log(
  `in turn, the same command writing a plain file: ${median(inTurn.file).toFixed(0)} ms (job / file ratio ${(median(inTurn.job) / median(inTurn.file)).toFixed(2)})`,
);
console.log(`host CPU while a job ran (median): ${median(sideBySide.cpu).toFixed(0)} ms`);
console.log(`host RSS before ${mib(before)}, sampled peak ${mib(peakSample)}, VmHWM ${mib(memory('VmHWM'))}`);
await rm(root, { recursive: true, force: true });
