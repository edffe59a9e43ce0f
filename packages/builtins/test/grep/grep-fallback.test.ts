import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ToolhostError } from '@toolhost/contracts';
import fc from 'fast-check';
import { GrepCollector, type GrepOutputMode } from '../../src/grep/grep-collector.js';
import {
  type GrepFallbackOptions,
  grepFallbackWorkerCounts,
  runGrepFallback,
} from '../../src/grep/grep-fallback.js';
import { formatGrep } from '../../src/grep/grep-format.js';
import { compileGrepRegex } from '../../src/grep/grep-regex.js';
import type { GrepSearchOutcome } from '../../src/grep/grep-search.js';
import {
  call,
  ENGINES,
  fileBytes,
  grepPattern,
  makeTree,
  okText,
  type Tree,
  type TreeEntry,
  toolsFor,
  writeTree,
} from './grep-fixtures.js';

// The JS engine of grep spreads the walk and the search over a pool of worker threads, skips files
// whose bytes lack a required literal, and merges results back in walk order. What must not
// change: the output (the prefilter never drops a match; the order and a cut by the limit do not
// depend on which worker found what; ripgrep gives the same text), and the workers' lifetime (an
// abort, a timeout, the limit or the output budget stops every worker; one stuck in a runaway regex
// is terminated).

interface JsArgs {
  readonly pattern: string;
  readonly path?: string;
  readonly literal?: boolean;
  readonly ignoreCase?: boolean;
  readonly multiline?: boolean;
  readonly context?: number;
  readonly mode?: GrepOutputMode;
  readonly limit?: number;
  readonly budgetBytes?: number;
  readonly glob?: string;
  readonly includeHidden?: boolean;
  readonly noIgnore?: boolean;
}

/** Runs the JS engine directly (as the grep tool does) and formats the result as the tool would. */
async function runJs(
  tree: Tree,
  args: JsArgs,
  options: GrepFallbackOptions = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<{ text: string; outcome: GrepSearchOutcome; files: number }> {
  const mode = args.mode ?? 'content';
  const collector = new GrepCollector({
    mode,
    limit: args.limit ?? 200,
    context: mode === 'content' ? (args.context ?? 0) : 0,
    budgetBytes: args.budgetBytes ?? 28 * 1024,
  });
  const root = args.path === undefined ? tree.root : path.join(tree.root, args.path);
  const includeHidden = args.includeHidden ?? false;
  const noIgnore = args.noIgnore ?? false;
  const outcome = await runGrepFallback(
    {
      root,
      rootIsFile: false,
      pattern: args.pattern,
      literal: args.literal ?? false,
      ignoreCase: args.ignoreCase ?? false,
      multiline: args.multiline ?? false,
      context: collector.options.context,
      mode,
      glob: args.glob,
      type: undefined,
      includeHidden,
      noIgnore,
      policy: tree.policy,
      collector,
      signal,
    },
    options,
  );
  if (!outcome.ok) return { text: `error ${outcome.reason}: ${outcome.problem}`, outcome, files: 0 };
  const formatted = formatGrep(collector, {
    displayRoot: tree.policy.displayPathOf(root),
    includeHidden,
    noIgnore,
    unreadable: outcome.unreadable,
  });
  return { text: formatted.text, outcome, files: collector.files.length };
}

/** Waits (polling, generously) until `condition` holds. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 3000; attempt += 1) {
    if (condition()) return;
    await delay(10);
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Live worker threads that are neither idle in the pool nor held by a search: must be none between searches. */
function strayWorkers(): number {
  const counts = grepFallbackWorkerCounts();
  return counts.started - counts.exited - counts.idle - counts.inUse;
}

const EVIL_LINE = `${'a'.repeat(64)}!\n`;
const ripgrep = ENGINES.find((engine) => engine.rgPath !== null);

describe('runGrepFallback', () => {
  let tree: Tree;
  before(async () => {
    tree = await makeTree({ 'seed.txt': 'seed\n' });
  });
  after(() => tree.remove());

  // The timeout only turns a hang (a bug) into a failure; no figure is asserted.
  it('never drops a file that has a match: with the byte prefilter the output equals decoding every file (property)', {
    timeout: 300_000,
  }, async () => {
    let runs = 0;
    let withMatches = 0;
    const filler = 'filler line\n'.repeat(6000);
    const encode = (bytes: Buffer, kind: string): Buffer => {
      switch (kind) {
        case 'bom':
          return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
        case 'utf16':
          return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(bytes.toString('utf8'), 'utf16le')]);
        case 'early-nul':
          return Buffer.concat([bytes, Buffer.from([0]), bytes]);
        case 'late-nul':
          return Buffer.concat([bytes, Buffer.from(`\n${filler}`), bytes, Buffer.from([0]), bytes]);
        default:
          return bytes;
      }
    };
    await fc.assert(
      fc.asyncProperty(
        grepPattern(),
        fc.record({
          ignoreCase: fc.boolean(),
          multiline: fc.boolean(),
          literal: fc.constantFrom(false, false, false, true),
          mode: fc.constantFrom<GrepOutputMode>('content', 'content', 'files_with_matches', 'count'),
          context: fc.nat(2),
        }),
        fc.array(
          fc.tuple(
            fileBytes(),
            fc.constantFrom('plain', 'plain', 'bom', 'utf16', 'utf16', 'early-nul', 'late-nul'),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        async (pattern, options, files) => {
          fc.pre(compileGrepRegex({ pattern, ...options }).ok);
          const directory = `property-${runs++}`;
          const entries: Record<string, TreeEntry> = {};
          files.forEach(([bytes, kind], index) => {
            entries[`${directory}/f${index}.txt`] = encode(bytes, kind);
          });
          await writeTree(tree.root, entries);
          const args: JsArgs = { pattern, path: directory, ...options, limit: 2000 };
          const prefiltered = await runJs(tree, args);
          const decoded = await runJs(tree, args, { prefilter: false });
          assert.equal(prefiltered.text, decoded.text);
          if (decoded.files > 0) withMatches += 1;
        },
      ),
      { numRuns: 300 },
    );
    assert.ok(withMatches > 60, `only ${withMatches} of ${runs} runs found a match`);
  });

  describe('on a tree spread over many directories', () => {
    let wide: Tree;
    before(async () => {
      const entries: Record<string, TreeEntry> = {
        '.gitignore': '*.log\n/out/\n',
        'out/o.txt': 'needle out\n',
        'top.txt': 'needle 0 top\n',
      };
      for (let directory = 0; directory < 12; directory += 1) {
        for (let sub = 0; sub < 4; sub += 1) {
          for (let file = 0; file < 3; file += 1) {
            const lines = Array.from({ length: 12 }, (_, line) =>
              (line + directory + sub + file) % 5 === 0 ? `needle ${line} in d${directory}` : `plain ${line}`,
            );
            entries[`d${directory}/s${sub}/f${file}.txt`] = `${lines.join('\n')}\n`;
          }
        }
      }
      Object.assign(entries, {
        'd3/.gitignore': 's1/\n!keep.log\n',
        'd3/s0/keep.log': 'needle kept log\n',
        'd3/s0/drop.log': 'needle dropped log\n',
        'd5/.ignore': 'f1.txt\n',
        'd5/s2/.ignore': '!f1.txt\n',
        'd7/s2/.rgignore': '*.txt\n!f2.txt\n',
        'd8/.hidden/h.txt': 'needle hidden\n',
        'd8/.h.txt': 'needle hidden file\n',
        'd9/node_modules/m.js': 'needle module\n',
        'd10/.git/HEAD': 'needle git\n',
        'd10/.git/info/exclude': 'ex.txt\n',
        'd10/ex.txt': 'needle excluded\n',
        'd10/x.log': 'needle repo log\n',
        'd11/bin.dat': Buffer.from('needle\u0000binary\n'),
        'd11/.env': 'needle secret\n',
      });
      wide = await makeTree(entries);
    });
    after(() => wide.remove());

    const cases: JsArgs[] = [
      { pattern: 'needle' },
      { pattern: 'needle', includeHidden: true },
      { pattern: 'needle', noIgnore: true },
      { pattern: 'needle', includeHidden: true, noIgnore: true },
      { pattern: 'needle', glob: '*.log' },
      { pattern: 'needle', glob: '!d1*' },
      { pattern: 'needle \\d+ in d1\\b', context: 1 },
      { pattern: 'NEEDLE', ignoreCase: true, mode: 'count' },
      { pattern: 'needle', mode: 'files_with_matches', includeHidden: true },
      { pattern: 'plain 3\\nneedle', multiline: true },
      { pattern: 'zq_missing' },
    ];
    const toolArgs = (args: JsArgs) => ({
      pattern: args.pattern,
      ...(args.ignoreCase ? { ignore_case: true } : {}),
      ...(args.multiline ? { multiline: true } : {}),
      ...(args.context ? { context: args.context } : {}),
      ...(args.mode ? { output_mode: args.mode } : {}),
      ...(args.glob ? { glob: args.glob } : {}),
      ...(args.includeHidden ? { include_hidden: true } : {}),
      ...(args.noIgnore ? { no_ignore: true } : {}),
      limit: 2000,
    });

    for (const args of cases) {
      it(`gives ripgrep's output, whatever the job size, for ${JSON.stringify(args)}`, {
        skip: ripgrep === undefined ? 'rg is not on PATH' : false,
      }, async () => {
        const rg = okText(
          await call(toolsFor(wide.policy, { rgPath: ripgrep!.rgPath }).grep, toolArgs(args)),
        );
        const js = okText(await call(toolsFor(wide.policy, { rgPath: null }).grep, toolArgs(args)));
        assert.equal(js, rg);
        // Every job walking one directory (the most shuffling between workers) changes nothing.
        const all = { ...args, limit: 2000 };
        assert.equal((await runJs(wide, all, { jobBudget: 1 })).text, (await runJs(wide, all)).text);
      });
    }

    for (const args of [
      { pattern: 'needle', limit: 7 },
      { pattern: 'needle', limit: 3, mode: 'files_with_matches' },
      { pattern: 'needle', limit: 5, mode: 'count', noIgnore: true },
      { pattern: 'needle', budgetBytes: 300 },
      { pattern: 'needle', limit: 4, context: 2 },
    ] satisfies JsArgs[]) {
      it(`cuts at the same results whatever the job size, for ${JSON.stringify(args)}`, async () => {
        const expected = (await runJs(wide, args)).text;
        assert.match(expected, /Result limit reached|Output cut/);
        for (const jobBudget of [1, 2, 5, 1000])
          assert.equal((await runJs(wide, args, { jobBudget })).text, expected, `jobBudget ${jobBudget}`);
      });
    }
  });

  describe('workers', () => {
    it('go back to the pool when a search completes, one per core at most', async () => {
      const local = await makeTree(
        Object.fromEntries(
          Array.from({ length: 40 }, (_, index) => [`d${index}/f.txt`, `needle ${index}\n`]),
        ),
      );
      try {
        const result = await runJs(local, { pattern: 'needle' }, { jobBudget: 1 });
        assert.equal(result.files, 40);
        const counts = grepFallbackWorkerCounts();
        assert.equal(counts.inUse, 0);
        assert.ok(counts.idle >= 1 && counts.idle <= availableParallelism(), `${counts.idle} idle`);
        assert.equal(strayWorkers(), 0);
      } finally {
        await local.remove();
      }
    });

    for (const [label, reason] of [
      ['abort', undefined],
      ['timeout', new ToolhostError({ code: 'TIMEOUT', message: 'grep timed out' })],
    ] as const) {
      it(`are all terminated on ${label}, even inside a runaway regex, and the host stays responsive`, async () => {
        // Runaway files in many directories, one job per directory: every worker gets stuck.
        const local = await makeTree(
          Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`d${index}/evil.txt`, EVIL_LINE])),
        );
        try {
          const before = grepFallbackWorkerCounts();
          const controller = new AbortController();
          const pending = runJs(local, { pattern: '(a+)+$' }, { jobBudget: 1 }, controller.signal);
          const expectedWorkers = Math.min(availableParallelism(), 8);
          await until(() => grepFallbackWorkerCounts().inUse >= expectedWorkers, 'every worker is busy');
          // This timer fires only because the main thread is free while the workers backtrack.
          await delay(100);
          controller.abort(reason);
          const { outcome } = await pending;
          assert.deepEqual(outcome, { ok: false, reason: 'aborted', problem: 'the search was stopped' });
          const afterwards = grepFallbackWorkerCounts();
          assert.equal(afterwards.inUse, 0);
          assert.equal(strayWorkers(), 0, 'no live worker outside the pool');
          assert.ok(afterwards.exited - before.exited >= expectedWorkers, 'the busy workers exited');
          assert.ok(afterwards.idle <= before.idle, 'no worker of the aborted search went back to the pool');
          // The engine works again right away.
          assert.equal((await runJs(local, { pattern: 'a{64}!' })).files, 8);
        } finally {
          await local.remove();
        }
      });
    }

    it('stop at the limit, and one stuck in a runaway regex is terminated', {
      skip: availableParallelism() < 2 ? 'needs two workers (one core here)' : false,
      timeout: 120_000,
    }, async () => {
      // One job per directory: `a` (walked first) goes to one worker, the runaway files in z0..z3
      // make a backlog that starts another. The limit is reached from a/x.txt, whose first line
      // takes that worker most of a second of backtracking (finite: 24 a's) before the two
      // matching lines, so by then the other worker is deep inside a runaway line and must be
      // terminated.
      const local = await makeTree({
        'a/x.txt': `${'a'.repeat(24)}!\naaa\naaa\n`,
        ...Object.fromEntries(Array.from({ length: 4 }, (_, index) => [`z${index}/evil.txt`, EVIL_LINE])),
      });
      try {
        const before = grepFallbackWorkerCounts();
        const result = await runJs(local, { pattern: '(a+)+$', limit: 1 }, { jobBudget: 1 });
        assert.match(result.text, /^a\/x\.txt:2: aaa\n\n\[Result limit reached/);
        const afterwards = grepFallbackWorkerCounts();
        assert.equal(afterwards.inUse, 0);
        assert.equal(strayWorkers(), 0);
        assert.ok(afterwards.exited > before.exited, 'the stuck worker was terminated');
        // No stuck worker went back to the pool: the next search runs.
        assert.equal((await runJs(local, { pattern: 'aaa', path: 'a' })).files, 1);
      } finally {
        await local.remove();
      }
    });

    // The timeout only turns a hang (the regression this test is about) into a failure.
    it('stop at the limit from results sent file by file, before a runaway file in the same directory', {
      timeout: 120_000,
    }, async () => {
      // The worker that walks `flat` sends each file's matches as soon as it has them: were they
      // sent per directory, the runaway file at the end would hold them back and the search
      // would never end. Whether the worker sees the stop flag before that file or is terminated
      // inside it, the call returns with the first five matches.
      const local = await makeTree({
        ...Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`flat/f${index}.txt`, 'aaa\n'])),
        'flat/zz-evil.txt': EVIL_LINE,
      });
      try {
        const result = await runJs(local, { pattern: '(a+)+$', limit: 5 });
        assert.deepEqual(
          result.text.split('\n').slice(0, 5),
          [0, 1, 2, 3, 4].map((index) => `flat/f${index}.txt:1: aaa`),
        );
        assert.match(result.text, /Result limit reached/);
        const counts = grepFallbackWorkerCounts();
        assert.equal(counts.inUse, 0);
        assert.equal(strayWorkers(), 0);
        assert.equal((await runJs(local, { pattern: '^aaa$', path: 'flat', limit: 2000 })).files, 10);
      } finally {
        await local.remove();
      }
    });

    it('stop at the output budget and go back to the pool', async () => {
      const local = await makeTree(
        Object.fromEntries(
          Array.from({ length: 30 }, (_, index) => [`d${index}/f.txt`, 'needle line\n'.repeat(50)]),
        ),
      );
      try {
        const result = await runJs(local, { pattern: 'needle', budgetBytes: 200, limit: 2000 });
        assert.match(result.text, /\[Output cut at/);
        const counts = grepFallbackWorkerCounts();
        assert.equal(counts.inUse, 0);
        assert.equal(strayWorkers(), 0);
        assert.ok(counts.idle >= 1);
      } finally {
        await local.remove();
      }
    });
  });
});
