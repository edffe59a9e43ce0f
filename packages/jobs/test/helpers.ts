import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestContext } from 'node:test';
import {
  createJobManager,
  type JobManager,
  type JobManagerOptions,
  type SandboxMode,
  type SandboxOptions,
} from '../src/index.js';

/** A fresh real temporary directory, removed after the test. */
export function tempDir(t: TestContext, prefix = 'jobs-test-'): string {
  const dir = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), prefix)));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A job manager for one test, closed after it (which kills whatever is still running). */
export function manager(
  t: TestContext,
  mode: SandboxMode,
  roots: string[],
  extra: Partial<Omit<JobManagerOptions, 'sandbox'>> & { sandbox?: Partial<SandboxOptions> } = {},
): JobManager {
  const jobs = createJobManager({ killGraceMs: 300, ...extra, sandbox: { mode, roots, ...extra.sandbox } });
  t.after(() => jobs.close());
  return jobs;
}

/**
 * Live (non-zombie) processes whose whole command line is `needle` (arguments joined by spaces), read
 * straight from /proc: `processesMatching('sleep 70001')` finds the sleepers, not the shell whose
 * script mentions them.
 */
export function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'latin1')
        .replace(/\0$/, '')
        .replace(/\0/g, ' ');
      if (commandLine === needle) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** Polls until `predicate` holds (generous: a loaded 2-core machine), failing with `what` otherwise. */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(20);
  }
}

/**
 * A unique number to tag the processes of one test (`sleep <tag>`) so /proc can find them. Should a
 * test fail half-way, its tagged sleepers are killed afterwards so they never outlive the run.
 */
let tagCounter = 0;
export function uniqueTag(t: TestContext): number {
  tagCounter += 1;
  const tag = 70_000 + ((process.pid * 97 + tagCounter * 13) % 20_000);
  t.after(() => {
    for (const suffix of ['', '.9', '.18'])
      for (const pid of processesMatching(`sleep ${tag}${suffix}`)) process.kill(pid, 'SIGKILL');
  });
  return tag;
}

/**
 * Everything observable about a directory tree: type, mode, size, content hash and link target of
 * every entry. Two equal snapshots mean nothing changed.
 */
export function snapshotTree(root: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stats = lstatSync(full);
      const key = path.relative(root, full);
      if (stats.isDirectory()) {
        result[key] = `dir ${stats.mode.toString(8)}`;
        walk(full);
      } else if (stats.isSymbolicLink()) {
        result[key] = `link ${readlinkSync(full)}`;
      } else {
        const hash = createHash('sha256').update(readFileSync(full)).digest('hex').slice(0, 16);
        result[key] = `file ${stats.mode.toString(8)} ${stats.size} ${hash}`;
      }
    }
  };
  walk(root);
  return result;
}

/** Runs one bash command to its end and returns its snapshot and its whole output (asserting it started). */
export async function runText(jobs: JobManager, cwd: string, command: string, background = false) {
  const started = await jobs.start({ shell: 'bash', command, cwd, background });
  assert.ok(started.ok, started.ok ? '' : `${started.error.code}: ${started.error.message}`);
  const waited = await jobs.wait(started.value.id);
  assert.ok(waited.ok);
  const excerpt = jobs.output(started.value.id, { headBytes: 1 << 20, tailBytes: 1 << 20 });
  assert.ok(excerpt.ok);
  return { snapshot: waited.value.snapshot, text: excerpt.value.head + excerpt.value.tail };
}
