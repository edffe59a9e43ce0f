import type { ToolInvocation } from '@toolhost/contracts';

/** A call as an extension sees it: resolved and validated, its arguments a frozen copy. */
export interface ExtensionCall {
  readonly sessionId: string;
  readonly callId: string;
  /** The name as the model called it (`tool:grep`, `shell` ...). */
  readonly calledName: string;
  /** The registered tool it resolved to. */
  readonly toolName: string;
  /** The validated arguments (a deep-frozen copy: changing the call means returning `replace`). */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly invocation: ToolInvocation;
  /** Whether the session is in its plan phase. */
  readonly planning: boolean;
  /** Fires when the call is cancelled. */
  readonly signal: AbortSignal;
}

/** What the tool produced, as an extension's `afterCall` sees it (the text before shaping). */
export interface ExtensionToolResponse {
  readonly status: 'ok' | 'error';
  readonly output: string;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * What `beforeCall` decides. `continue` (or nothing) lets the call go on to the permission step;
 * `deny` refuses it (`HOOK_BLOCKED`, the reason goes to the model); `ask` makes a person confirm it
 * after the permission step allowed it; `replace` swaps in another call (a tool name and arguments),
 * which is resolved, validated and permitted again from the start; `stop` refuses it and asks the
 * embedding loop to stop (the reason is for the person). `additionalContext` is added to the text
 * the model sees with the result.
 */
export type ExtensionDecision =
  | { readonly action: 'continue'; readonly additionalContext?: string }
  | { readonly action: 'deny'; readonly reason: string }
  | { readonly action: 'ask'; readonly reason: string; readonly additionalContext?: string }
  | {
      readonly action: 'replace';
      /** Default: the same tool. */
      readonly name?: string;
      readonly arguments: unknown;
    }
  | { readonly action: 'stop'; readonly reason: string };

/** What `afterCall` may add: context for the model, or a request to stop the embedding loop. */
export interface ExtensionAfterResult {
  readonly additionalContext?: string;
  readonly stop?: string;
}

/**
 * A programmatic interceptor of every call of a host's sessions (`createHost({ extensions })`), with
 * the powers of a hook: observe, deny, ask, replace the call, add context, stop. `beforeCall` runs
 * after validation and before permission (pipeline: resolve → validate → extensions → permission →
 * PreToolUse hooks → execute → PostToolUse hooks → extensions' `afterCall` → shape). A replacement
 * goes back through resolve, validate and permission, so an extension never widens what the policy
 * allows. An extension that throws, or takes longer than its call's budget (60 s), fails its call
 * closed in `beforeCall` (`HOOK_BLOCKED`) and is only audited in `afterCall`.
 */
export interface HostExtension {
  /** Named in the audit log and in refusals. */
  readonly name: string;
  readonly beforeCall?: (
    call: ExtensionCall,
  ) => ExtensionDecision | undefined | Promise<ExtensionDecision | undefined>;
  readonly afterCall?: (
    call: ExtensionCall & { readonly response: ExtensionToolResponse },
  ) => ExtensionAfterResult | undefined | Promise<ExtensionAfterResult | undefined>;
}

/** How long an extension's `beforeCall` or `afterCall` may take, in ms. */
export const EXTENSION_TIMEOUT_MS = 60_000;
