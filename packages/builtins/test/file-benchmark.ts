// Measurements of the file tools for the issue note (not a test: run it by hand; it writes ~1.1 GB
// under the system temp directory and deletes it afterwards).
//
//   npx tsx --conditions=@toolhost/source test/file-benchmark.ts read-1gb [SIZE_MB]
//   npx tsx --conditions=@toolhost/source test/file-benchmark.ts edit-50mb [ROUNDS]
//
// read-1gb: generates a file of SIZE_MB (default 1024) and, in fresh child processes, reads a
// 50-line window at its end with read_file, reporting the peak RSS against a child that loads the
// same modules and only stats the file, and the time against `wc -l` and against node:readline
// keeping the last 50 lines, over the same file.
// edit-50mb: edit_file on a 50 MB file against a raw read-replace-write baseline (and the same with
// fsync), run side by side: each round runs every contender once, in turn; medians and ratios.
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPathPolicy } from '@toolhost/path-policy';
import { createObservationStore } from '@toolhost/read-evidence';
import { createFileTools } from '../src/index.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const context = () => ({
  callId: 'bench',
  toolName: 'bench',
  signal: new AbortController().signal,
  invocation: { kind: 'direct' as const },
});
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function generate(path: string, bytes: number): Promise<number> {
  const stream = createWriteStream(path);
  let written = 0;
  let line = 0;
  const pad = 'x'.repeat(80);
  while (written < bytes) {
    let chunk = '';
    for (let index = 0; index < 10_000; index++) chunk += `line ${++line} ${pad}\n`;
    written += chunk.length;
    if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return line;
}

/** Child mode: read the last window (or only stat, for the baseline) and print peak RSS and time. */
async function child(mode: string, file: string, lines: number): Promise<void> {
  const root = join(file, '..');
  const tools = createFileTools({
    pathPolicy: createPathPolicy({ mode: 'current_project', root }),
    observations: createObservationStore(),
  });
  const readTool = tools.find((tool) => tool.name === 'read_file')!;
  const started = performance.now();
  let text = '';
  if (mode === 'read') {
    const result = await readTool.execute({ path: 'big.txt', offset: lines - 50, limit: 50 }, context());
    if (!result.ok) throw new Error(result.error.toModelText());
    text = result.output.content[0]?.type === 'text' ? result.output.content[0].text : '';
  } else if (mode === 'readline') {
    // The usual JavaScript way: stream lines with node:readline and keep the last 50.
    const lines: string[] = [];
    const reader = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of reader) {
      lines.push(line);
      if (lines.length > 50) lines.shift();
    }
    text = lines.at(-1) ?? '';
  } else await stat(file);
  const elapsed = performance.now() - started;
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `${JSON.stringify({ mode, elapsed, maxRssMiB, lastLine: text.split('\n').at(-1) })}\n`,
  );
}

async function read1gb(sizeMiB: number): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'toolhost-bench-'));
  try {
    const file = join(directory, 'big.txt');
    const lines = await generate(file, sizeMiB * 1024 * 1024);
    const size = (await stat(file)).size;
    console.log(`generated ${(size / 2 ** 20).toFixed(0)} MiB, ${lines} lines`);
    const run = (mode: string) => {
      const result = spawnSync(
        process.execPath,
        [
          '--conditions=@toolhost/source',
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          'child',
          mode,
          file,
          String(lines),
        ],
        { cwd: packageDir, encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(result.stderr);
      return JSON.parse(result.stdout.trim()) as { elapsed: number; maxRssMiB: number; lastLine: string };
    };
    const wc = () => {
      const started = performance.now();
      spawnSync('wc', ['-l', file]);
      return performance.now() - started;
    };
    const reads: Array<{ elapsed: number; maxRssMiB: number; lastLine: string }> = [];
    const readlines: Array<{ elapsed: number; maxRssMiB: number }> = [];
    const baselines: Array<{ maxRssMiB: number }> = [];
    const wcTimes: number[] = [];
    for (let round = 0; round < 3; round++) {
      baselines.push(run('stat'));
      reads.push(run('read'));
      readlines.push(run('readline'));
      wcTimes.push(wc());
    }
    const read = median(reads.map((r) => r.elapsed));
    console.log(`last line shown: ${reads[0]!.lastLine.slice(0, 60)}`);
    console.log(
      `peak RSS: read_file ${median(reads.map((r) => r.maxRssMiB)).toFixed(1)} MiB, baseline process ${median(
        baselines.map((r) => r.maxRssMiB),
      ).toFixed(1)} MiB (max over rounds ${Math.max(...reads.map((r) => r.maxRssMiB)).toFixed(1)} MiB)`,
    );
    const readline = median(readlines.map((r) => r.elapsed));
    console.log(
      `time: read_file ${read.toFixed(0)} ms; wc -l ${median(wcTimes).toFixed(0)} ms (ratio ${(read / median(wcTimes)).toFixed(2)}); node:readline keeping the last 50 lines ${readline.toFixed(0)} ms, peak RSS ${median(readlines.map((r) => r.maxRssMiB)).toFixed(1)} MiB (ratio ${(read / readline).toFixed(2)})`,
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function edit50mb(rounds: number): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'toolhost-bench-'));
  try {
    const toolFile = join(directory, 'tool.txt');
    const rawFile = join(directory, 'raw.txt');
    const syncFile = join(directory, 'sync.txt');
    for (const file of [toolFile, rawFile, syncFile]) await generate(file, 50 * 1024 * 1024);
    const size = (await stat(toolFile)).size;
    const tools = createFileTools({
      pathPolicy: createPathPolicy({ mode: 'current_project', root: directory }),
      observations: createObservationStore(),
    });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const read = await byName.get('read_file')!.execute({ path: 'tool.txt', limit: 1 }, context());
    if (!read.ok) throw new Error(read.error.toModelText());
    const times = { tool: [] as number[], raw: [] as number[], rawSync: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const from = `line ${250_000 + round} x`;
      const to = `LINE ${250_000 + round} x`;
      let started = performance.now();
      const edited = await byName
        .get('edit_file')!
        .execute({ path: 'tool.txt', old_string: from, new_string: to }, context());
      if (!edited.ok) throw new Error(edited.error.toModelText());
      times.tool.push(performance.now() - started);

      started = performance.now();
      const text = await readFile(rawFile, 'utf8');
      await writeFile(rawFile, text.replace(from, to));
      times.raw.push(performance.now() - started);

      started = performance.now();
      const syncText = await readFile(syncFile, 'utf8');
      const handle = await open(syncFile, 'w');
      await handle.writeFile(syncText.replace(from, to));
      await handle.sync();
      await handle.close();
      times.rawSync.push(performance.now() - started);
    }
    const [tool, raw, rawSync] = [median(times.tool), median(times.raw), median(times.rawSync)];
    console.log(`file ${(size / 2 ** 20).toFixed(1)} MiB, ${rounds} rounds, medians:`);
    console.log(
      `edit_file ${tool.toFixed(0)} ms; raw read-replace-write ${raw.toFixed(0)} ms (ratio ${(tool / raw).toFixed(2)})`,
    );
    console.log(
      `raw read-replace-write + fsync ${rawSync.toFixed(0)} ms (ratio ${(tool / rawSync).toFixed(2)})`,
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'child') await child(rest[0]!, rest[1]!, Number(rest[2]));
else if (command === 'read-1gb') await read1gb(Number(rest[0] ?? 1024));
else if (command === 'edit-50mb') await edit50mb(Number(rest[0] ?? 7));
else console.error('usage: file-benchmark.ts read-1gb [SIZE_MB] | edit-50mb [ROUNDS]');
