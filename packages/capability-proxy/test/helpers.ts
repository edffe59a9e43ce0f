import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputText, type ToolCallContext, type ToolResult } from '@toolhost/contracts';
import type {
  CapabilityAuthorization,
  CapabilityAuthorizationRequest,
  CapabilityProxy,
  McpServerConfig,
} from '../src/index.js';

const require = createRequire(import.meta.url);

/** The misbehaving fixture server, started with node itself (no npx download). */
export const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/misbehaving-server.mjs', import.meta.url));

/** A stdio entry for the fixture server with the given flags. */
export function fixtureServer(...flags: string[]): McpServerConfig {
  return { command: process.execPath, args: [FIXTURE_SERVER, ...flags] };
}

/** A stdio entry for one of the real npm servers, run from its installed bin with this node. */
export function npmServer(name: 'everything' | 'filesystem' | 'memory', ...args: string[]): McpServerConfig {
  const bin = require.resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
  return { command: process.execPath, args: [bin, ...args] };
}

/** A fresh temp directory removed after the test. */
export function tempDir(t: { after(fn: () => void): void }, prefix = 'capability-proxy-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A call context as a host would pass it. */
export function context(callId: string, signal: AbortSignal = new AbortController().signal): ToolCallContext {
  return { callId, toolName: 'use_capability', signal, invocation: { kind: 'direct' } };
}

/** An `authorize` that allows everything and records every request. */
export function recordingAuthorize(
  decide?: (request: CapabilityAuthorizationRequest) => CapabilityAuthorization,
): {
  readonly requests: CapabilityAuthorizationRequest[];
  readonly authorize: (request: CapabilityAuthorizationRequest) => Promise<CapabilityAuthorization>;
} {
  const requests: CapabilityAuthorizationRequest[] = [];
  return {
    requests,
    authorize: async (request) => {
      requests.push(request);
      return decide ? decide(request) : { allowed: true };
    },
  };
}

/** The text the model would see: the error line (if any) and the output text. */
export function seen(result: ToolResult): string {
  if (result.ok) return outputText(result.output);
  const output = outputText(result.output);
  return output ? `${result.error.toModelText()}\n${output}` : result.error.toModelText();
}

/** Runs one `use_capability` call. */
export function run(
  proxy: CapabilityProxy,
  args: Record<string, unknown>,
  callId = 'call-1',
  signal?: AbortSignal,
): Promise<ToolResult> {
  // biome-ignore lint/suspicious/noExplicitAny: tests also send arguments the schema rejects.
  return proxy.tool.execute(args as any, context(callId, signal));
}

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
}

function processes(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: parse after the last ")".
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

/** Live (non-zombie) direct children of this test process. */
export function childPids(): number[] {
  return processes()
    .filter((info) => info.ppid === process.pid)
    .map((info) => info.pid);
}

/** Live members of a process group. */
export function groupMembers(pgid: number): number[] {
  return processes()
    .filter((info) => info.pgrp === pgid)
    .map((info) => info.pid);
}

/** Whether a pid is alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `check` is true (generous: the machine may be loaded); throws after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Timeouts for tests against real servers: generous, so a loaded 2-core machine still passes (a fixture
 * server once needed more than 30 s to answer the handshake at a load average of 30).
 */
export const GENEROUS_TIMEOUTS = { handshakeMs: 90_000, requestMs: 60_000, totalMs: 120_000 } as const;
