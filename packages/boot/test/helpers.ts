import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  type JsonObject,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import type { AuditEvent } from '../src/index.js';

/** A fresh temporary directory (real path) and its removal. */
export function tempRoot(prefix = 'toolhost-boot-'): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Collects audit events. */
export function auditSink(): {
  events: AuditEvent[];
  onAudit: (event: AuditEvent) => void;
  types: (callId?: string) => string[];
} {
  const events: AuditEvent[] = [];
  return {
    events,
    onAudit: (event) => events.push(event),
    types: (callId) =>
      events.filter((event) => callId === undefined || event.callId === callId).map((event) => event.type),
  };
}

/** Something a test can wait on instead of sleeping. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const pathSchema: JsonObject = {
  type: 'object',
  required: ['path'],
  additionalProperties: false,
  properties: { path: { type: 'string', minLength: 1 }, content: { type: 'string' } },
};

/** A log of what the test tools did, in order. */
export interface ToolLog {
  readonly entries: string[];
  running: number;
  maxRunning: number;
}

export function toolLog(): ToolLog {
  return { entries: [], running: 0, maxRunning: 0 };
}

/** A sequential writer: writes `content` to `path` (resolved under `root`). */
export function sequentialWriter(root: string, log: ToolLog): AnyToolDefinition {
  return defineTool<{ path: string; content?: string }>({
    name: 'test_write',
    source: 'dynamic',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: 10_000, abortable: false },
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: { name: 'test_write', description: 'Write a file.', inputSchema: pathSchema },
    permission: {
      paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }],
      preview: (args) => `write ${args.path}`,
    },
    async execute(args) {
      log.entries.push(`write:start:${args.path}`);
      log.running++;
      log.maxRunning = Math.max(log.maxRunning, log.running);
      await new Promise((resolve) => setImmediate(resolve));
      writeFileSync(join(root, args.path), args.content ?? '');
      log.running--;
      log.entries.push(`write:end:${args.path}`);
      return textResult(`wrote ${args.path}`);
    },
  });
}

/** A parallel reader that waits for `gate` (when given) so a test can see concurrency. */
export function parallelReader(log: ToolLog, gate?: Promise<void>): AnyToolDefinition {
  return defineTool<{ path: string }>({
    name: 'test_read',
    source: 'dynamic',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: 10_000, abortable: true },
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: { name: 'test_read', description: 'Read a file.', inputSchema: pathSchema },
    permission: { paths: (args) => [{ argument: 'path', path: args.path, access: 'read' }] },
    async execute(args) {
      log.entries.push(`read:start:${args.path}`);
      log.running++;
      log.maxRunning = Math.max(log.maxRunning, log.running);
      if (gate) await gate;
      else await new Promise((resolve) => setImmediate(resolve));
      log.running--;
      log.entries.push(`read:end:${args.path}`);
      if (args.path.startsWith('missing')) {
        return {
          ok: false,
          error: new ToolhostError({ code: 'FS_NOT_FOUND', message: `${args.path} does not exist` }),
        };
      }
      return textResult(`read ${args.path}`);
    },
  });
}

/** An abortable tool that stops when signalled (or never settles when `ignoreSignal`). */
export function slowAbortable(
  log: ToolLog,
  options: { ignoreSignal?: boolean; timeoutMs?: number } = {},
): AnyToolDefinition {
  return defineTool<Record<string, never>>({
    name: options.ignoreSignal ? 'test_stuck' : 'test_slow',
    source: 'dynamic',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: options.timeoutMs ?? 150, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name: options.ignoreSignal ? 'test_stuck' : 'test_slow',
      description: 'Wait until stopped.',
      inputSchema: { type: 'object', properties: {} },
    },
    execute(_args, context) {
      log.entries.push('slow:start');
      if (options.ignoreSignal) return new Promise(() => undefined);
      return new Promise((resolve) => {
        context.signal.addEventListener('abort', () => {
          log.entries.push('slow:signalled');
          resolve({
            ok: false,
            error: new ToolhostError({ code: 'ABORTED', message: 'stopped' }),
            output: { content: [{ type: 'text', text: 'partial output before the stop' }] },
          });
        });
      });
    },
  });
}

/**
 * A non-abortable writer that ignores its signal: when the timeout fires it still writes `path`,
 * a few milliseconds later, then succeeds.
 */
export function stubbornWriter(root: string, log: ToolLog): AnyToolDefinition {
  return defineTool<{ path: string; content?: string }>({
    name: 'test_stubborn',
    source: 'dynamic',
    group: 'editing_builtins',
    category: 'write',
    annotations: { readOnly: false, destructive: true, openWorld: false },
    execution: { mode: 'sequential', timeoutMs: 100, abortable: false },
    pathAccess: 'current_project',
    visibility: 'listed',
    modelTool: { name: 'test_stubborn', description: 'Write slowly.', inputSchema: pathSchema },
    permission: { paths: (args) => [{ argument: 'path', path: args.path, access: 'write' }] },
    execute(args, context) {
      log.entries.push('stubborn:start');
      return new Promise((resolve) => {
        context.signal.addEventListener('abort', () => {
          log.entries.push('stubborn:signalled');
          setTimeout(() => {
            writeFileSync(join(root, args.path), args.content ?? 'late');
            log.entries.push('stubborn:wrote');
            resolve(textResult(`wrote ${args.path}`));
          }, 150);
        });
      });
    },
  });
}

/** A tool that throws a plain error. */
export function thrower(): AnyToolDefinition {
  return defineTool<Record<string, never>>({
    name: 'test_throw',
    source: 'dynamic',
    group: 'utility_builtins',
    category: 'utility',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: 1000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: { name: 'test_throw', description: 'Throw.', inputSchema: { type: 'object', properties: {} } },
    execute() {
      throw new Error('boom');
    },
  });
}

/** A tool whose schema does not compile: `mcp` runs unvalidated, `builtin` is a host error. */
export function uncompilable(source: 'mcp' | 'builtin', log: ToolLog): AnyToolDefinition {
  const name = source === 'mcp' ? 'mcp__srv__weird' : 'test_broken';
  return defineTool<Record<string, unknown>>({
    name,
    source,
    group: 'utility_builtins',
    category: 'utility',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: 1000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name,
      description: 'A tool with a schema that does not compile.',
      inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
    },
    async execute(args) {
      log.entries.push(`${name}:ran`);
      return textResult(`ran with ${Object.keys(args).join(',')}`);
    },
  });
}

/** A tool with a big output and a chosen result shape. */
export function bigOutput(
  bytes: number,
  shape: 'shell' | 'read' | 'search' | 'default' = 'default',
): AnyToolDefinition {
  return defineTool<Record<string, never>>({
    name: 'test_big',
    source: 'dynamic',
    group: 'read_only_builtins',
    category: 'read',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: 5000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    resultShape: shape,
    modelTool: {
      name: 'test_big',
      description: 'Print a lot.',
      inputSchema: { type: 'object', properties: {} },
    },
    async execute() {
      const line = `${'b'.repeat(99)}\n`;
      return textResult(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
    },
  });
}

/** A tool that fails with a chosen error. */
export function failing(
  name: string,
  code: 'COMMAND_FAILED' | 'EXECUTION_ERROR',
  message: () => string,
): AnyToolDefinition {
  return defineTool<Record<string, unknown>>({
    name,
    source: 'dynamic',
    group: 'utility_builtins',
    category: 'utility',
    annotations: { readOnly: true, destructive: false, openWorld: false },
    execution: { mode: 'parallel', timeoutMs: 1000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name,
      description: 'Fail.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
    },
    async execute() {
      return { ok: false, error: new ToolhostError({ code, message: message() }) };
    },
  });
}

/** A tool with unknown annotations (so on_request asks), recording its runs. */
export function unannotated(log: ToolLog): AnyToolDefinition {
  return defineTool<{ command?: string }>({
    name: 'test_unknown',
    aliases: ['test_unknown_legacy'],
    source: 'dynamic',
    group: 'utility_builtins',
    category: 'utility',
    annotations: {},
    execution: { mode: 'sequential', timeoutMs: 5000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    modelTool: {
      name: 'test_unknown',
      description: 'Do something unknown.',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } } },
    },
    permission: { subject: (args) => args.command ?? '', preview: (args) => `run ${args.command ?? ''}` },
    async execute(args) {
      log.entries.push(`unknown:${args.command ?? ''}`);
      return textResult('done');
    },
  });
}
