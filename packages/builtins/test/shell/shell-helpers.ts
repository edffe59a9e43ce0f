import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestContext } from 'node:test';
import {
  type AnyToolDefinition,
  outputText,
  type ToolCallContext,
  type ToolResult,
  validateArguments,
} from '@toolhost/contracts';
import { createJobManager, type JobManager, type JobManagerOptions, type SandboxMode } from '@toolhost/jobs';
import { createPathPolicy } from '@toolhost/path-policy';
import { createShellTools, type ShellToolsOptions } from '../../src/index.js';

/** The shell tools over a fresh temporary project, with their job manager. */
export interface ShellFixture {
  readonly root: string;
  readonly jobs: JobManager;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  /** Validates the arguments against the tool's schema (as the host does), then executes. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

let callCounter = 0;

/** Builds the shell tools for one test; the manager is closed (every job killed) after it. */
export function shellFixture(
  t: TestContext,
  options: {
    mode?: SandboxMode;
    platform?: ShellToolsOptions['platform'];
    jobs?: Partial<JobManagerOptions>;
    tools?: Partial<ShellToolsOptions>;
  } = {},
): ShellFixture {
  const root = realpathSync.native(mkdtempSync(path.join(tmpdir(), 'shell-tools-')));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const jobs = createJobManager({
    killGraceMs: 300,
    ...options.jobs,
    sandbox: { mode: options.mode ?? 'danger_full_access', roots: [root] },
  });
  t.after(() => jobs.close());
  const pathPolicy = createPathPolicy({ mode: 'current_project', root });
  const list = createShellTools({
    jobs,
    pathPolicy,
    platform: options.platform ?? 'posix',
    ...options.tools,
  });
  const tools = new Map(list.map((tool) => [tool.name, tool]));
  return {
    root,
    jobs,
    tools,
    async call(name, args, signal = new AbortController().signal) {
      const tool = tools.get(name);
      if (!tool) throw new Error(`no tool ${name}`);
      const checked = validateArguments({
        toolName: tool.name,
        source: tool.source,
        schema: tool.modelTool.inputSchema,
        arguments: args,
      });
      if (!checked.ok) return { ok: false, error: checked.error };
      const context: ToolCallContext = {
        callId: `call-${++callCounter}`,
        toolName: name,
        signal,
        invocation: { kind: 'direct' },
      };
      return tool.execute(checked.value.arguments, context);
    },
  };
}

/** The model-visible text of a result (an error's `CODE: cause; recovery` line, then any output). */
export function resultText(result: ToolResult): string {
  if (result.ok) return outputText(result.output);
  const output = outputText(result.output);
  return output ? `${result.error.toModelText()}\n${output}` : result.error.toModelText();
}

/** Live processes whose whole command line is exactly `needle` (arguments joined by spaces). */
export function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
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

let tagCounter = 0;

/** A unique `sleep` argument for one test; leftovers are killed afterwards should the test fail. */
export function uniqueTag(t: TestContext): number {
  tagCounter += 1;
  const tag = 40_000 + ((process.pid * 89 + tagCounter * 17) % 20_000);
  t.after(() => {
    for (const pid of processesMatching(`sleep ${tag}`)) process.kill(pid, 'SIGKILL');
  });
  return tag;
}

/** Polls until `predicate` holds (generous: a loaded 2-core machine). */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await delay(20);
  }
}
