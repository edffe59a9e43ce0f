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
//
//   npx tsx --conditions=@toolhost/source test/file-benchmark.ts small [ROUNDS]
//   npx tsx --conditions=@toolhost/source test/file-benchmark.ts outside-writer [SECONDS]
//
// small: a 40-line read_file and a one-line edit_file of a small file three directories down,
// against raw fs doing the same work (promises readFile + numbering; readFile + replace + a durable
// atomic replace, and the same without fsync), interleaved in rounds of 200 calls; medians, ratios.
// outside-writer: a separate process appends a numbered line every millisecond (open, append,
// close, as `echo >>` does) while this one reads and edits the same file in a loop (read_file, then
// edit_file of the first line); afterwards, how many appended lines are missing, and how many edits
// reported that a write landed in their commit gap.
// Both take `--before`: the same tools of another revision, from `.old-src/` beside each package's
// `src/` (path-policy, read-evidence, builtins; the builtins copy importing the other two by relative
// path), run interleaved with today's in the same process (small) or one after the other
// (outside-writer). For a revision R:
//   for p in path-policy read-evidence builtins; do mkdir -p packages/$p/.old-src &&
//     git archive R packages/$p/src | tar -x --strip-components=3 -C packages/$p/.old-src; done
//   sed -i "s#from '@toolhost/\\(path-policy\\|read-evidence\\)'#from '../../../\\1/.old-src/index.js'#" \\
//     packages/builtins/.old-src/*/*.ts
// (the builtins sources sit one folder deep; for a revision before the folder move, use
// `'../../\\1/.old-src/index.js'` and `packages/builtins/.old-src/*.ts`).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPathPolicy } from '@toolhost/path-policy';
import { createObservationStore } from '@toolhost/read-evidence';
import { createFileTools } from '../../src/index.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
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

type ToolMap = Map<string, { execute: (args: never, context: never) => Promise<ToolResultLike> }>;
interface ToolResultLike {
  readonly ok: boolean;
  readonly error?: { toModelText(): string; code: string } | undefined;
  readonly output?: { content: ReadonlyArray<{ type: string; text?: string }> } | undefined;
}

/** Today's file tools over `root`, and with `before` the `.old-src` revision's too. */
async function toolEditions(root: string, before: boolean): Promise<Array<[string, ToolMap]>> {
  const make = (
    create: typeof createFileTools,
    policy: typeof createPathPolicy,
    store: typeof createObservationStore,
  ) =>
    new Map(
      create({ pathPolicy: policy({ mode: 'current_project', root }), observations: store() }).map((tool) => [
        tool.name,
        tool,
      ]),
    ) as unknown as ToolMap;
  const editions: Array<[string, ToolMap]> = [
    ['now', make(createFileTools, createPathPolicy, createObservationStore)],
  ];
  if (before) {
    const [builtins, pathPolicy, readEvidence] = await Promise.all([
      import(new URL('../../.old-src/index.ts', import.meta.url).href),
      import(new URL('../../../path-policy/.old-src/index.ts', import.meta.url).href),
      import(new URL('../../../read-evidence/.old-src/index.ts', import.meta.url).href),
    ]);
    editions.push([
      'before',
      make(builtins.createFileTools, pathPolicy.createPathPolicy, readEvidence.createObservationStore),
    ]);
  }
  return editions;
}

const textOf = (result: ToolResultLike) =>
  result.output?.content[0]?.type === 'text' ? (result.output.content[0].text ?? '') : '';

async function small(rounds: number, before: boolean): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'toolhost-bench-'));
  try {
    const nested = join(directory, 'src', 'components', 'widgets');
    await mkdir(nested, { recursive: true });
    const body = Array.from(
      { length: 40 },
      (_, index) => `export const value${index} = ${index}; // line`,
    ).join('\n');
    const rawFile = join(nested, 'raw.ts');
    await writeFile(rawFile, `head alpha\n${body}\n`);
    let rawWord = 'alpha';
    const contenders: Record<string, () => Promise<unknown>> = {
      'raw read (readFile + number 40 lines)': async () => {
        const text = await readFile(rawFile, 'utf8');
        return text
          .split('\n', 40)
          .map((line, index) => `${index + 1}→${line}`)
          .join('\n');
      },
      'raw edit (readFile, replace, writeFile)': async () => {
        const next = rawWord === 'alpha' ? 'beta' : 'alpha';
        const text = await readFile(rawFile, 'utf8');
        await writeFile(rawFile, text.replace(`head ${rawWord}`, `head ${next}`));
        rawWord = next;
      },
      'raw durable edit (temp, fsync, rename, dir fsync)': async () => {
        const next = rawWord === 'alpha' ? 'beta' : 'alpha';
        const text = await readFile(rawFile, 'utf8');
        const temp = `${rawFile}.tmp`;
        const handle = await open(temp, 'w');
        await handle.writeFile(text.replace(`head ${rawWord}`, `head ${next}`));
        await handle.sync();
        await handle.close();
        await rename(temp, rawFile);
        const dir = await open(nested, 'r');
        await dir.sync();
        await dir.close();
        rawWord = next;
      },
    };
    for (const [edition, tools] of await toolEditions(directory, before)) {
      const file = `src/components/widgets/${edition}.ts`;
      await writeFile(join(directory, file), `head alpha\n${body}\n`);
      const read = await tools
        .get('read_file')!
        .execute({ path: file, limit: 40 } as never, context() as never);
      if (!read.ok) throw new Error(read.error?.toModelText());
      let word = 'alpha';
      contenders[`read_file (${edition})`] = async () => {
        const result = await tools
          .get('read_file')!
          .execute({ path: file, limit: 40 } as never, context() as never);
        if (!result.ok) throw new Error(result.error?.toModelText());
      };
      contenders[`edit_file (${edition})`] = async () => {
        const next = word === 'alpha' ? 'beta' : 'alpha';
        const result = await tools
          .get('edit_file')!
          .execute(
            { path: file, old_string: `head ${word}`, new_string: `head ${next}` } as never,
            context() as never,
          );
        if (!result.ok) throw new Error(result.error?.toModelText());
        word = next;
      };
    }
    const CALLS = 200;
    const samples: Record<string, number[]> = Object.fromEntries(
      Object.keys(contenders).map((name) => [name, []]),
    );
    const cpuSamples: Record<string, number[]> = Object.fromEntries(
      Object.keys(contenders).map((name) => [name, []]),
    );
    for (const run of Object.values(contenders)) for (let index = 0; index < 50; index++) await run();
    for (let round = 0; round < rounds; round++) {
      for (const [name, run] of Object.entries(contenders)) {
        const started = performance.now();
        const cpu = process.cpuUsage();
        for (let index = 0; index < CALLS; index++) await run();
        const used = process.cpuUsage(cpu);
        samples[name]!.push(((performance.now() - started) * 1000) / CALLS);
        cpuSamples[name]!.push((used.user + used.system) / CALLS);
      }
    }
    const us = (name: string) => median(samples[name]!);
    const cpuUs = (name: string) => median(cpuSamples[name]!);
    console.log(
      `node ${process.version}, ${rounds} rounds x ${CALLS} calls, median µs per call (wall, then CPU time of this process)`,
    );
    for (const name of Object.keys(contenders))
      console.log(
        `${name.padEnd(52)} ${us(name).toFixed(1).padStart(8)} µs ${cpuUs(name).toFixed(1).padStart(8)} µs CPU`,
      );
    for (const edition of before ? ['now', 'before'] : ['now']) {
      const ratio = (of: (name: string) => number, tool: string, raw: string) =>
        (of(`${tool} (${edition})`) / of(raw)).toFixed(2);
      const rawRead = 'raw read (readFile + number 40 lines)';
      const rawEdit = 'raw edit (readFile, replace, writeFile)';
      const rawDurable = 'raw durable edit (temp, fsync, rename, dir fsync)';
      console.log(
        `${edition}: read_file ${ratio(us, 'read_file', rawRead)}x raw read (CPU ${ratio(cpuUs, 'read_file', rawRead)}x); edit_file ${ratio(us, 'edit_file', rawEdit)}x raw edit (CPU ${ratio(cpuUs, 'edit_file', rawEdit)}x), ${ratio(us, 'edit_file', rawDurable)}x raw durable edit (CPU ${ratio(cpuUs, 'edit_file', rawDurable)}x)`,
      );
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const APPENDER = `
const { appendFileSync } = require('node:fs');
const [file, seconds] = process.argv.slice(1);
const until = Date.now() + Number(seconds) * 1000;
const pause = new Int32Array(new SharedArrayBuffer(4));
let written = 0;
while (Date.now() < until) {
  appendFileSync(file, 'appended ' + written + '\\n');
  written++;
  Atomics.wait(pause, 0, 0, 1);
}
process.stdout.write(String(written));
`;

async function outsideWriter(seconds: number, before: boolean): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'toolhost-bench-'));
  try {
    for (const [edition, tools] of await toolEditions(directory, before)) {
      const name = `${edition}.txt`;
      const file = join(directory, name);
      await writeFile(file, 'head alpha\n');
      const appender = spawn(process.execPath, ['-e', APPENDER, file, String(seconds)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let appended = '';
      appender.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        appended += chunk;
      });
      let running = true;
      const done = new Promise<void>((resolve) =>
        appender.once('exit', () => {
          running = false;
          resolve();
        }),
      );
      let word = 'alpha';
      let edits = 0;
      let stale = 0;
      let reported = 0;
      while (running) {
        const read = await tools
          .get('read_file')!
          .execute({ path: name, limit: 1 } as never, context() as never);
        if (!read.ok) continue;
        const next = word === 'alpha' ? 'beta' : 'alpha';
        const edit = await tools
          .get('edit_file')!
          .execute(
            { path: name, old_string: `head ${word}`, new_string: `head ${next}` } as never,
            context() as never,
          );
        if (!edit.ok) {
          if (edit.error?.code === 'FS_STALE_VERSION') stale++;
          else throw new Error(edit.error?.toModelText());
          continue;
        }
        edits++;
        word = next;
        if (textOf(edit).includes('[warning: another program wrote to')) reported++;
      }
      await done;
      const total = Number(appended);
      const present = new Set(
        (await readFile(file, 'utf8')).split('\n').filter((line) => line.startsWith('appended ')),
      );
      const lost = total - present.size;
      console.log(
        `${edition}, ${seconds} s: ${total} lines appended, ${lost} lost (${((lost / total) * 100).toFixed(3)}%); ${edits} edits committed, ${stale} refused as stale, ${reported} reported a write in their commit gap`,
      );
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'child') await child(rest[0]!, rest[1]!, Number(rest[2]));
else if (command === 'read-1gb') await read1gb(Number(rest[0] ?? 1024));
else if (command === 'edit-50mb') await edit50mb(Number(rest[0] ?? 7));
else if (command === 'small')
  await small(Number(rest.find((arg) => /^\d+$/.test(arg)) ?? 15), rest.includes('--before'));
else if (command === 'outside-writer')
  await outsideWriter(Number(rest.find((arg) => /^\d+$/.test(arg)) ?? 20), rest.includes('--before'));
else
  console.error(
    'usage: file-benchmark.ts read-1gb [SIZE_MB] | edit-50mb [ROUNDS] | small [ROUNDS] | outside-writer [SECONDS]',
  );
