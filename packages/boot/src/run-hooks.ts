import { isJsonObject, utf8BoundaryBefore } from '@toolhost/contracts';
import { createJobEnvironment } from '@toolhost/jobs';
import type { AuditLog } from './audit-log.js';
import type { ConfiguredHook, HookEvent } from './hook-config.js';
import { type HookCommandRun, runHookCommand } from './run-hook-command.js';

/** What every hook gets on stdin (Claude Code's field names), besides the event's own fields. */
export interface HookInput {
  readonly session_id: string;
  readonly cwd: string;
  readonly hook_event_name: HookEvent;
  /** `plan` during a session's plan phase, else `default`. */
  readonly permission_mode: 'plan' | 'default';
  readonly tool_name?: string;
  readonly tool_input?: unknown;
  readonly tool_use_id?: string;
  readonly tool_response?: unknown;
  /** SessionStart: `startup` or `resume`. */
  readonly source?: string;
  /** SessionEnd: why the session ended. */
  readonly reason?: string;
}

/** How one hook's run was read. */
export type HookVerdict = 'continue' | 'allow' | 'deny' | 'ask' | 'block' | 'stop' | 'error';

/** What the hooks of one event decided together. */
export interface HooksOutcome {
  /** How many hooks matched and ran. */
  readonly ran: number;
  /**
   * PreToolUse: `deny` when any hook refused (exit 2, `permissionDecision: "deny"`, `decision:
   * "block"`), else `ask` when any asked, else `allow` when any allowed, else `none`.
   * PostToolUse: `deny` means a hook sent feedback with `decision: "block"` or exit 2.
   */
  readonly decision: 'none' | 'allow' | 'ask' | 'deny';
  /** The refusing hooks' reasons (stderr of exit 2, or the JSON reason), for the model. */
  readonly denyReasons: readonly string[];
  /** The asking hooks' reasons, for the person. */
  readonly askReasons: readonly string[];
  /** A rewritten tool input; `conflict` when hooks returned different ones. */
  readonly updatedInput?: Record<string, unknown>;
  /** Set when the output was unusable for the decision it tried to make (the call must not go on). */
  readonly invalid?: string;
  readonly additionalContext: readonly string[];
  /** `continue: false`: the embedding loop should stop; the reason is for the person, not the model. */
  readonly stop?: { readonly reason: string };
}

/** The hooks of a host, matched and run per event. */
export interface HookRunner {
  /** Whether any hook of the event matches the name (a tool name, a session source or reason). */
  matches(event: HookEvent, name: string): boolean;
  /** Runs every matching hook of the event at once and combines what they said. Never rejects. */
  run(event: HookEvent, name: string, input: HookInput, options: RunHooksOptions): Promise<HooksOutcome>;
}

/** Options of {@link HookRunner.run}. */
export interface RunHooksOptions {
  readonly audit: AuditLog;
  readonly callId?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Options of {@link createHookRunner}. */
export interface HookRunnerOptions {
  readonly hooks: readonly ConfiguredHook[];
  /** The working directory of hook commands (the project root). */
  readonly cwd: string;
  /** The environment hooks are derived from; default `process.env`. */
  readonly hostEnvironment?: NodeJS.ProcessEnv;
}

/** The longest reason (stderr or JSON reason) given to the model or the person, in UTF-8 bytes. */
export const MAX_HOOK_REASON_BYTES = 4096;
/** The largest `tool_input` / `tool_response` text a hook gets on stdin, in UTF-8 bytes. */
export const MAX_HOOK_INPUT_TEXT_BYTES = 256 * 1024;

const NO_HOOKS: HooksOutcome = Object.freeze({
  ran: 0,
  decision: 'none',
  denyReasons: [],
  askReasons: [],
  additionalContext: [],
});

/**
 * Creates the runner of a host's configured hooks. A hook runs as a real process
 * ({@link runHookCommand}) in the project root with the environment rules of the shell sandbox
 * (`createJobEnvironment` of `@toolhost/jobs`: an allowlist, names that look like secrets stay in the
 * host) plus `TOOLHOST_PROJECT_DIR` and `CLAUDE_PROJECT_DIR`, with its input as one JSON object on
 * stdin. Its exit code decides as in Claude Code: 0 continues (stdout may be a JSON object with
 * `continue`, `stopReason`, `decision`, `reason`, `hookSpecificOutput.permissionDecision`,
 * `permissionDecisionReason`, `updatedInput`, `additionalContext`), 2 blocks with stderr as the
 * reason, anything else (a timeout included) is a non-blocking error. Every hook's verdict is one
 * `hook-decided` audit event (value-free: the hook's place, its exit, the verdict and sizes).
 */
export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const environment = createJobEnvironment(options.hostEnvironment ?? process.env, {
    set: { TOOLHOST_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd },
  });
  const matching = (event: HookEvent, name: string): ConfiguredHook[] => {
    const seen = new Set<string>();
    // Identical commands of one event run once, as in Claude Code.
    return options.hooks.filter((hook) => {
      if (hook.event !== event || !hook.matcher.matches(name)) return false;
      if (seen.has(hook.command)) return false;
      seen.add(hook.command);
      return true;
    });
  };
  return {
    matches: (event, name) => matching(event, name).length > 0,
    async run(event, name, input, runOptions) {
      const hooks = matching(event, name);
      if (hooks.length === 0) return NO_HOOKS;
      const stdin = JSON.stringify(input);
      const runs = await Promise.all(
        hooks.map(async (hook) => {
          const run = await runHookCommand({
            command: hook.command,
            input: stdin,
            cwd: options.cwd,
            env: environment,
            timeoutMs: hook.timeoutMs,
            signal: runOptions.signal,
          });
          const reading = readHookRun(event, run);
          runOptions.audit.emit('hook-decided', {
            ...(runOptions.callId ? { callId: runOptions.callId } : {}),
            ...(input.tool_name ? { toolName: input.tool_name } : {}),
            event,
            hook: hook.id,
            hookSource: hook.source,
            ...(hook.matcher.text ? { matcher: hook.matcher.text } : {}),
            ending: run.ending,
            ...(run.exitCode === null ? {} : { exitCode: run.exitCode }),
            verdict: reading.verdict,
            ...(reading.problem ? { problem: reading.problem } : {}),
            ...(reading.updatedInput ? { updatedInput: true } : {}),
            ...(reading.additionalContext ? { additionalContext: true } : {}),
            ...(reading.reason ? { reasonBytes: Buffer.byteLength(reading.reason) } : {}),
            durationMs: Math.round(run.durationMs),
          });
          return reading;
        }),
      );
      return combine(runs);
    },
  };
}

/** One hook's run, read by the rules of its event. */
interface HookReading {
  readonly verdict: HookVerdict;
  readonly reason?: string;
  readonly updatedInput?: Record<string, unknown>;
  readonly additionalContext?: string;
  readonly stopReason?: string;
  /** Why an error verdict, or why an output was refused (value-free). */
  readonly problem?: string;
  /** The output tried to decide and could not be read: fail closed. */
  readonly invalid?: boolean;
}

function readHookRun(event: HookEvent, run: HookCommandRun): HookReading {
  if (run.ending === 'timeout') return { verdict: 'error', problem: 'timed out (killed)' };
  if (run.ending === 'aborted') return { verdict: 'error', problem: 'cancelled with its call' };
  if (run.ending === 'spawn_failed') return { verdict: 'error', problem: 'could not be started' };
  if (run.exitCode === 2) {
    const reason = boundReason(run.stderr) || 'a hook refused this call (exit code 2, no message)';
    return { verdict: 'block', reason };
  }
  if (run.exitCode !== 0) {
    return {
      verdict: 'error',
      problem: run.exitCode === null ? 'ended by a signal' : `exit code ${run.exitCode}`,
    };
  }
  const text = run.stdout.trim();
  if (!text.startsWith('{')) {
    // Plain stdout is context only at session start (as in Claude Code); elsewhere it is ignored.
    return event === 'SessionStart' && text !== ''
      ? { verdict: 'continue', additionalContext: boundReason(text) }
      : { verdict: 'continue' };
  }
  let output: unknown;
  try {
    output = run.truncated ? undefined : JSON.parse(text);
  } catch {
    output = undefined;
  }
  if (!isJsonObject(output)) {
    return { verdict: 'error', problem: run.truncated ? 'output too large' : 'stdout is not valid JSON' };
  }
  return readHookJson(event, output);
}

function readHookJson(event: HookEvent, output: Record<string, unknown>): HookReading {
  const specific = isJsonObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const contextText =
    typeof specific.additionalContext === 'string' && specific.additionalContext.trim() !== ''
      ? boundReason(specific.additionalContext)
      : undefined;
  const withContext = (reading: HookReading): HookReading =>
    contextText === undefined ? reading : { ...reading, additionalContext: contextText };
  if (output.continue === false) {
    const stopReason =
      typeof output.stopReason === 'string' && output.stopReason.trim() !== ''
        ? boundReason(output.stopReason)
        : 'a hook stopped the session';
    return withContext({ verdict: 'stop', stopReason });
  }
  const jsonReason = (value: unknown): string | undefined =>
    typeof value === 'string' && value.trim() !== '' ? boundReason(value) : undefined;
  if (event === 'PreToolUse') {
    const decision = specific.permissionDecision;
    const reason = jsonReason(specific.permissionDecisionReason) ?? jsonReason(output.reason);
    let updatedInput: Record<string, unknown> | undefined;
    if (specific.updatedInput !== undefined) {
      if (!isJsonObject(specific.updatedInput)) {
        // The hook meant to rewrite the call: running the original instead would ignore its policy.
        return {
          verdict: 'deny',
          reason: 'a hook returned an updatedInput that is not an object',
          invalid: true,
          problem: 'updatedInput is not an object',
        };
      }
      updatedInput = specific.updatedInput;
    }
    const rewrite = updatedInput ? { updatedInput } : {};
    if (decision === 'deny' || output.decision === 'block') {
      return withContext({ verdict: 'deny', reason: reason ?? 'a PreToolUse hook refused this call' });
    }
    if (decision === 'ask') {
      return withContext({
        verdict: 'ask',
        reason: reason ?? 'a PreToolUse hook asks a person to confirm',
        ...rewrite,
      });
    }
    if (decision === 'allow' || output.decision === 'approve') {
      return withContext({ verdict: 'allow', ...(reason ? { reason } : {}), ...rewrite });
    }
    if (decision !== undefined) {
      return {
        verdict: 'deny',
        reason: 'a hook returned an unknown permissionDecision',
        invalid: true,
        problem: 'unknown permissionDecision',
      };
    }
    return withContext({ verdict: 'continue', ...rewrite });
  }
  if (event === 'PostToolUse' && output.decision === 'block') {
    return withContext({
      verdict: 'block',
      reason: jsonReason(output.reason) ?? 'a PostToolUse hook objected to this result',
    });
  }
  return withContext({ verdict: 'continue' });
}

function combine(readings: readonly HookReading[]): HooksOutcome {
  const denyReasons: string[] = [];
  const askReasons: string[] = [];
  const additionalContext: string[] = [];
  let allowed = false;
  let stop: { reason: string } | undefined;
  let invalid: string | undefined;
  let updatedInput: Record<string, unknown> | undefined;
  let updatedKey: string | undefined;
  for (const reading of readings) {
    if (reading.additionalContext) additionalContext.push(reading.additionalContext);
    if (reading.invalid) invalid ??= reading.problem ?? 'unusable hook output';
    if (reading.verdict === 'stop') stop ??= { reason: reading.stopReason ?? 'a hook stopped the session' };
    if (reading.verdict === 'deny' || reading.verdict === 'block') denyReasons.push(reading.reason ?? '');
    if (reading.verdict === 'ask') askReasons.push(reading.reason ?? '');
    if (reading.verdict === 'allow') allowed = true;
    if (reading.updatedInput) {
      const key = JSON.stringify(reading.updatedInput);
      if (updatedKey !== undefined && key !== updatedKey) {
        invalid ??= 'hooks returned different updatedInput values';
        denyReasons.push('the hooks of this call returned different rewritten inputs');
      }
      updatedKey ??= key;
      updatedInput ??= reading.updatedInput;
    }
  }
  const decision =
    denyReasons.length > 0 ? 'deny' : askReasons.length > 0 ? 'ask' : allowed ? 'allow' : 'none';
  return {
    ran: readings.length,
    decision,
    denyReasons,
    askReasons,
    ...(updatedInput && decision !== 'deny' ? { updatedInput } : {}),
    ...(invalid ? { invalid } : {}),
    additionalContext,
    ...(stop ? { stop } : {}),
  };
}

/** A hook's text for the model or a person: trimmed, control characters dropped, at most 4 KiB. */
function boundReason(text: string): string {
  const clean = text
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim();
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= MAX_HOOK_REASON_BYTES) return clean;
  const end = utf8BoundaryBefore(bytes, MAX_HOOK_REASON_BYTES - 3);
  return `${bytes.subarray(0, end).toString('utf8')}...`;
}

/**
 * A value for a hook's stdin: JSON as is when its text fits {@link MAX_HOOK_INPUT_TEXT_BYTES}; a long
 * string is cut (and `truncated` set on the response object by the caller).
 */
export function boundHookText(text: string): { readonly text: string; readonly truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_HOOK_INPUT_TEXT_BYTES) return { text, truncated: false };
  const end = utf8BoundaryBefore(bytes, MAX_HOOK_INPUT_TEXT_BYTES);
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}
