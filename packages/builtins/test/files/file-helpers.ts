import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  type AnyToolDefinition,
  outputText,
  type ToolCallContext,
  type ToolResult,
  validateArguments,
} from '@toolhost/contracts';
import { createPathPolicy, type PathPolicy } from '@toolhost/path-policy';
import { createObservationStore, type MutationLocks, type ObservationStore } from '@toolhost/read-evidence';
import { createFileTools, type FileToolLimits } from '../../src/index.js';

/** One agent's file tools over a fresh temp project. */
export interface FileToolsFixture {
  readonly root: string;
  readonly policy: PathPolicy;
  readonly store: ObservationStore;
  readonly tools: ReadonlyMap<string, AnyToolDefinition>;
  /** Validates the arguments against the tool's schema (as the host does), then executes. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
}

let callCounter = 0;

/** Calls a tool the way the host does after validation (schema check included). */
export async function callTool(
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolResult> {
  const checked = validateArguments({
    toolName: tool.name,
    source: tool.source,
    schema: tool.modelTool.inputSchema,
    arguments: args,
  });
  if (!checked.ok) return { ok: false, error: checked.error };
  const context: ToolCallContext = {
    callId: `call-${++callCounter}`,
    toolName: tool.name,
    signal,
    invocation: { kind: 'direct' },
  };
  return tool.execute(checked.value.arguments, context);
}

/** Creates the file tools for one agent over `root` (a fresh temp dir unless given). */
export async function fileTools(
  t: TestContext,
  options: { root?: string; limits?: FileToolLimits; locks?: MutationLocks; store?: ObservationStore } = {},
): Promise<FileToolsFixture> {
  const root = options.root ?? (await tempProject(t));
  const policy = createPathPolicy({ mode: 'current_project', root });
  const store = options.store ?? createObservationStore();
  const list = createFileTools({
    pathPolicy: policy,
    observations: store,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.locks ? { locks: options.locks } : {}),
  });
  const tools = new Map(list.map((tool) => [tool.name, tool]));
  return {
    root,
    policy,
    store,
    tools,
    call: (name, args, signal) => callTool(tools.get(name)!, args, signal),
  };
}

/** A fresh real temp directory, removed after the test. */
export async function tempProject(t: TestContext): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'toolhost-files-')));
  t.after(() => rm(root, { recursive: true, force: true }));
  return root;
}

/** The model text of a successful result (fails the test otherwise). */
export function okText(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected success, got ${result.error.toModelText()}`);
  return outputText(result.output);
}

/** The error of a failed result (fails the test otherwise). */
export function errorOf(result: ToolResult): { code: string; text: string; output: string } {
  if (result.ok) throw new Error(`expected a failure, got: ${outputText(result.output)}`);
  return { code: result.error.code, text: result.error.toModelText(), output: outputText(result.output) };
}

/** Lines "1\n2\n...\nN\n" as "line k". */
export function numberedLines(count: number, ending = '\n'): string {
  let text = '';
  for (let line = 1; line <= count; line++) text += `line ${line}${ending}`;
  return text;
}
