import {
  compileLinearRegExp,
  err,
  isJsonObject,
  type LinearRegExp,
  ok,
  type Result,
} from '@toolhost/contracts';

/** The hook events toolhost runs (Claude Code's names). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'SessionStart', 'SessionEnd'] as const;

/** One hook event. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** How long a hook command may run when its entry gives no `timeout`, in seconds (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** The longest `timeout` a hook may ask for, in seconds. */
export const MAX_HOOK_TIMEOUT_SECONDS = 3600;

/** One `type: "command"` hook. */
export interface HookCommand {
  readonly type: 'command';
  /** Run by the platform shell (`/bin/sh -c` on POSIX, `cmd.exe` on Windows) in the project root. */
  readonly command: string;
  /** Seconds; default {@link DEFAULT_HOOK_TIMEOUT_SECONDS}. */
  readonly timeout?: number;
}

/** One matcher group of an event: which tool names (or session sources) it applies to, and its hooks. */
export interface HookMatcherGroup {
  /**
   * A regular expression over tool names (`bash`, `write_file|edit_file`, `mcp__github__.*`,
   * `mcp_connect__github`); empty, missing or `*` matches everything. A plain name or `a|b` list
   * matches those names exactly, as in Claude Code. For `SessionStart` it matches the source
   * (`startup`, `resume`), for `SessionEnd` the reason (`other`).
   */
  readonly matcher?: string;
  readonly hooks: readonly HookCommand[];
}

/** The `hooks` setting: Claude Code's settings format, by event. */
export type HooksConfig = { readonly [event in HookEvent]?: readonly HookMatcherGroup[] };

/** A validated hook, ready to run: its place in the configuration names it in the audit log. */
export interface ConfiguredHook {
  readonly event: HookEvent;
  /** `hooks.PreToolUse[0].hooks[1]` */
  readonly id: string;
  /** The configuration it came from (a file path, `options.config` or `userConfig`). */
  readonly source: string;
  readonly matcher: HookMatcher;
  readonly command: string;
  readonly timeoutMs: number;
}

/** A compiled matcher. */
export interface HookMatcher {
  /** The matcher as written (`''` for match-all). */
  readonly text: string;
  matches(name: string): boolean;
}

/** What a `hooks` setting holds once validated: the hooks of every event, in configuration order. */
export interface ParsedHooks {
  readonly config: HooksConfig;
  readonly hooks: readonly ConfiguredHook[];
}

const SIMPLE_MATCHER = /^[A-Za-z0-9_|-]+$/;

/**
 * Compiles a matcher the way Claude Code reads one: empty, missing or `*` matches every name; a
 * plain name or a `|` list of plain names matches exactly; anything else is a regular expression
 * searched anywhere in the name (anchor it with `^...$` for whole names). Regular expressions run
 * on the linear-time engine of `@toolhost/contracts` (the name they meet comes from the model).
 */
export function compileHookMatcher(text: string | undefined): Result<HookMatcher, string> {
  const source = (text ?? '').trim();
  if (source === '' || source === '*') return ok({ text: '', matches: () => true });
  if (SIMPLE_MATCHER.test(source)) {
    const names = new Set(source.split('|').filter((name) => name !== ''));
    return ok({ text: source, matches: (name) => names.has(name) });
  }
  const compiled = compileLinearRegExp(source);
  if (!compiled.ok) return err(`not a usable regular expression (${compiled.error.problem})`);
  const pattern: LinearRegExp = compiled.value;
  return ok({ text: source, matches: (name) => pattern.test(name) });
}

/**
 * Validates a `hooks` setting (`source` names the file in messages). Each event is a list of
 * `{ matcher?, hooks: [{ type: "command", command, timeout? }] }`; unknown events, other hook
 * types and unknown fields are refused (a misspelt key would otherwise silently drop a policy).
 * Errors name the field, as `hooks.PreToolUse[0].hooks[1].command`.
 */
export function parseHooksConfig(
  value: unknown,
  source: string,
): Result<ParsedHooks, { readonly field: string; readonly problem: string }> {
  if (value === undefined) return ok({ config: {}, hooks: [] });
  const fail = (field: string, problem: string) => err({ field, problem });
  if (!isJsonObject(value))
    return fail('hooks', 'expected an object of events (PreToolUse, PostToolUse, ...)');
  const config: Record<string, HookMatcherGroup[]> = {};
  const hooks: ConfiguredHook[] = [];
  for (const [event, groups] of Object.entries(value)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      return fail(`hooks.${event}`, `unknown hook event; expected one of ${HOOK_EVENTS.join(', ')}`);
    }
    if (!Array.isArray(groups)) return fail(`hooks.${event}`, 'expected an array of matcher groups');
    const parsedGroups: HookMatcherGroup[] = [];
    for (const [groupIndex, group] of groups.entries()) {
      const groupField = `hooks.${event}[${groupIndex}]`;
      if (!isJsonObject(group)) return fail(groupField, 'expected an object with "matcher" and "hooks"');
      for (const key of Object.keys(group)) {
        if (key !== 'matcher' && key !== 'hooks')
          return fail(`${groupField}.${key}`, 'unknown field; expected matcher or hooks');
      }
      if (group.matcher !== undefined && typeof group.matcher !== 'string') {
        return fail(`${groupField}.matcher`, 'expected a string (a tool name, a|b, or a regular expression)');
      }
      const matcher = compileHookMatcher(group.matcher as string | undefined);
      if (!matcher.ok) return fail(`${groupField}.matcher`, matcher.error);
      if (!Array.isArray(group.hooks) || group.hooks.length === 0) {
        return fail(`${groupField}.hooks`, 'expected a non-empty array of hooks');
      }
      const commands: HookCommand[] = [];
      for (const [hookIndex, hook] of group.hooks.entries()) {
        const hookField = `${groupField}.hooks[${hookIndex}]`;
        if (!isJsonObject(hook))
          return fail(hookField, 'expected an object { "type": "command", "command" }');
        for (const key of Object.keys(hook)) {
          if (key !== 'type' && key !== 'command' && key !== 'timeout')
            return fail(`${hookField}.${key}`, 'unknown field; expected type, command or timeout');
        }
        if (hook.type !== 'command') {
          return fail(`${hookField}.type`, 'only "command" hooks are supported');
        }
        if (
          typeof hook.command !== 'string' ||
          hook.command.trim() === '' ||
          hook.command.includes('\u0000')
        ) {
          return fail(`${hookField}.command`, 'expected a non-empty shell command');
        }
        let timeout: number | undefined;
        if (hook.timeout !== undefined) {
          if (
            typeof hook.timeout !== 'number' ||
            !Number.isFinite(hook.timeout) ||
            hook.timeout <= 0 ||
            hook.timeout > MAX_HOOK_TIMEOUT_SECONDS
          ) {
            return fail(
              `${hookField}.timeout`,
              `expected a number of seconds from 0 to ${MAX_HOOK_TIMEOUT_SECONDS}`,
            );
          }
          timeout = hook.timeout;
        }
        commands.push({
          type: 'command',
          command: hook.command,
          ...(timeout === undefined ? {} : { timeout }),
        });
        hooks.push({
          event: event as HookEvent,
          id: hookField,
          source,
          matcher: matcher.value,
          command: hook.command,
          timeoutMs: Math.round((timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000),
        });
      }
      parsedGroups.push({
        ...(group.matcher === undefined ? {} : { matcher: group.matcher as string }),
        hooks: commands,
      });
    }
    config[event] = parsedGroups;
  }
  return ok({ config: config as HooksConfig, hooks });
}
