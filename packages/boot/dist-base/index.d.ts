import { Result, ToolSource, ToolGroup, ToolCategory, ToolAnnotations, ToolInvocation, ContentBlock, ErrorCode, ErrorDetails, ToolProgress, TurnOrigin, ToolhostError, RegisteredTool, ModelTool, JsonValue, AnyToolDefinition, ToolRegistry, ResultShape, ResolvedToolPath, ToolResult } from '@toolhost/contracts';
export { TurnOrigin, closeNames } from '@toolhost/contracts';
import { PathPolicy } from '@toolhost/path-policy';
import { CompileToolsOptions, CompiledTools, DialectName } from '@toolhost/provider-dialects';
import { McpServerConfig } from '@toolhost/capability-proxy';
export { DEFAULT_MCP_LOGIN_TIMEOUT_MS, MCP_OAUTH_DIR_NAME, McpLoginOutcome, McpServerConfig, McpSignInReport, ResolvedMcpServer, loginMcpServer, logoutMcpServer, mcpServerSignIn, mcpSignInTarget, parseMcpServers } from '@toolhost/capability-proxy';
import { EnvironmentInheritance, JobEnvironmentOptions } from '@toolhost/jobs';
import { ConversationPort, TodoItem, GoalState, Deliverable, GoalRound, GoalRecord, SubagentStatus } from '@toolhost/builtins';
export { ConversationCompressOutcome, ConversationCompressRequest, ConversationPort, ConversationUserMessage, Deliverable, GoalActivation, GoalRecord, GoalRound, GoalStatus, GoalStopReason, SubagentStatus, TodoItem, TodoStatus } from '@toolhost/builtins';
import { ObservationStoreSnapshot } from '@toolhost/read-evidence';

/** The event names, one per decision and step of a call (noun-verb). */
type AuditEventType = 'host-created' | 'host-restored' | 'config-resolved' | 'sessions-pruned' | 'session-opened' | 'session-resumed' | 'session-closed' | 'session-persist-failed' | 'batch-received' | 'call-received' | 'call-resolved' | 'call-validated' | 'permission-decided' | 'approval-requested' | 'approval-resolved' | 'call-started' | 'call-finished' | 'result-stored' | 'batch-finished' | 'loop-guard-noticed' | 'notes-drained' | 'subagent-started' | 'subagent-finished' | 'goal-round-started' | 'hook-decided' | 'extension-decided' | 'plan-approved' | 'host-closed';
/**
 * One audit record. Value-free by construction: it carries names, codes, decisions, resolved paths
 * and sizes, never argument values, file contents or tool output.
 */
interface AuditEvent {
    readonly type: AuditEventType;
    /** ISO time. */
    readonly at: string;
    /** Increases by one per event of a host. */
    readonly seq: number;
    /** The session the event belongs to (absent on host-level events). */
    readonly sessionId?: string;
    readonly callId?: string;
    readonly batchId?: string;
    readonly toolName?: string;
    readonly [key: string]: unknown;
}
/** Options of {@link createAuditLog}. */
interface AuditLogOptions {
    /** Called synchronously with every event; a throwing callback is reported once on stderr and ignored. */
    readonly onAudit?: ((event: AuditEvent) => void) | undefined;
    /** Appends every event as one JSON line (file mode 0600, parent created). */
    readonly file?: string | undefined;
}
/** Where a host's audit events go. */
interface AuditLog {
    emit(type: AuditEventType, fields?: Omit<AuditEvent, 'type' | 'at' | 'seq'>): void;
    /** Flushes and closes the file. */
    close(): Promise<void>;
    readonly enabled: boolean;
}
/**
 * Creates the audit sink of a host. The JSONL file is written through one append stream, so events
 * keep their order without a synchronous write per event; `close()` waits until they are on disk.
 */
declare function createAuditLog(options: AuditLogOptions): AuditLog;

/** The three rule lists of a configuration, evaluated deny → ask → allow. */
interface PermissionRuleLists {
    readonly allow?: readonly string[];
    readonly ask?: readonly string[];
    readonly deny?: readonly string[];
}
/** The effect of a rule list. */
type PermissionRuleEffect = 'deny' | 'ask' | 'allow';
/** One parsed rule: an exact tool name, optionally with an argument pattern matched against the call's subject. */
interface PermissionRule {
    /** The rule as written. */
    readonly text: string;
    readonly toolName: string;
    /** Absent: every call of the tool. `domain`: a host name and its subdomains (web_fetch). */
    readonly argument?: {
        readonly kind: 'exact' | 'prefix' | 'domain';
        readonly value: string;
    };
}
/** The rule that decided, with its effect. */
interface PermissionRuleMatch {
    readonly effect: PermissionRuleEffect;
    readonly rule: string;
}
/** Parsed rule lists with a matcher. */
interface PermissionRules {
    /**
     * The first matching rule in the order deny → ask → allow, or `undefined`. `subject` is the text
     * argument rules match (the shell command); a call without a subject matches only plain name rules.
     */
    match(toolName: string, subject?: string): PermissionRuleMatch | undefined;
    readonly size: number;
}
/**
 * Parses one rule: `name` (an exact tool name, such as `read_file`, `mcp__github__create_issue` or
 * `mcp_connect__github`) or `name(pattern)` where `pattern` is an exact subject (`bash(npm test)`)
 * or a prefix ending in `:*` (`bash(git status:*)`, matching `git status` and `git status --short`
 * but not `git statusx`). Names are never wildcards: `mcp__github__*` is rejected. `web_fetch`
 * rules name a domain, `web_fetch(domain:example.com)`, which matches the host and its subdomains.
 */
declare function parsePermissionRule(text: unknown): Result<PermissionRule, string>;
/**
 * Builds a matcher from rule lists. Throws a `TypeError` naming the list and index of a malformed
 * rule (configuration loading reports these as `CONFIG_INVALID` before this is reached).
 *
 * Subject matching is shell-aware, because the only subjects today are shell commands: a command
 * is split into simple commands at unquoted `;`, `&&`, `||`, `|`, `&`, newlines and substitutions
 * (`$(`, backticks, `<(`, `>(`). A deny or ask rule matches when any simple command matches it; an
 * allow rule matches only a single simple command with no redirection or substitution, so
 * `bash(git status:*)` never approves `git status && rm -rf x`. This is a best-effort reading of the
 * command; the OS sandbox remains the boundary.
 */
declare function createPermissionRules(lists?: PermissionRuleLists): PermissionRules;
/**
 * The prefix rule a person's "allow for this session" of one shell command remembers:
 * `name(<command> [<subcommand>]:*)`, such as `bash(git push:*)` for `git push origin main` or
 * `bash(ls:*)` for `ls -la`. The second word is kept when it looks like a subcommand (letters and
 * `-`, no leading `-`). `undefined` for a command that an allow rule never matches (a compound,
 * redirected or substituted command, a leading assignment) or whose first word is not a plain word
 * (quoted, escaped, expanded), so such a command is asked again each time.
 */
declare function sessionPrefixRule(toolName: string, subject: string): string | undefined;

/** The sandbox axis of a run policy. */
type SandboxMode = 'read_only' | 'workspace_write' | 'danger_full_access';
/** The approval axis of a run policy (`never` = never ask a person; it never bypasses a boundary). */
type ApprovalPolicy = 'strict' | 'on_request' | 'never';
/** Who or what made a permission decision. */
type PermissionSource = 'sandbox' | 'path_policy' | 'rule' | 'policy' | 'annotation' | 'config' | 'user' | 'host' | 'plan' | 'hook' | 'extension';
/** The facts about a tool the permission step uses. */
interface PermissionToolFacts {
    readonly name: string;
    readonly source: ToolSource;
    readonly group: ToolGroup;
    readonly category: ToolCategory;
    readonly annotations: ToolAnnotations;
    /**
     * Installation trust: a configured MCP server's tools that do not declare themselves destructive
     * are allowed without asking (the user trusted the server by configuring it). Never set in a
     * `read_only` run for tools, see the README.
     */
    readonly trusted?: boolean;
    /**
     * Set when the target must be approved by a person whatever the rules allow (a server defined by
     * an unapproved project configuration): the reason. Only a deny rule decides before it.
     */
    readonly approvalRequired?: string;
    /**
     * The tool changes only the calling session's own bookkeeping (`ToolDefinition.sessionScoped`:
     * the task list, goal, deliverables): no sandbox refuses it, and it is allowed without asking.
     */
    readonly sessionScoped?: boolean;
}
/** The input of {@link decidePermission}. */
interface PermissionRequest {
    readonly tool: PermissionToolFacts;
    readonly sandbox: SandboxMode;
    readonly approval: ApprovalPolicy;
    readonly rules?: PermissionRules;
    /** The text argument rules match (the shell command). */
    readonly subject?: string;
    /**
     * The session is in its plan phase: writers are refused with `PLAN_NOT_APPROVED` (see
     * {@link planDenial}) and the shell is decided as in the read-only sandbox it runs in.
     */
    readonly planPhase?: boolean;
    /** A path-policy refusal for one of the call's targets, computed after the sandbox step. */
    readonly pathDenial?: {
        readonly code: string;
        readonly message: string;
        readonly argument: string;
    };
}
/** The outcome of the permission step. Only a deny carries an error code. */
type PermissionDecision = {
    readonly type: 'allow';
    readonly source: PermissionSource;
    readonly reason: string;
    readonly rule?: string;
} | {
    readonly type: 'ask';
    readonly source: PermissionSource;
    readonly reason: string;
    readonly rule?: string;
} | {
    readonly type: 'deny';
    readonly source: PermissionSource;
    readonly reason: string;
    readonly code: string;
    readonly rule?: string;
};
/**
 * The sandbox step alone: whether the run's sandbox refuses this kind of tool outright. In a
 * `read_only` run a tool that writes (category `write`, the editing group, `readOnly: false` or
 * `destructive: true`) is refused with `PERMISSION_DENIED`, except shell tools, which run inside the
 * read-only OS sandbox, and session-scoped tools, which change nothing outside the session. Nothing
 * else is refused here.
 */
declare function sandboxDenial(tool: PermissionToolFacts, sandbox: SandboxMode): Extract<PermissionDecision, {
    type: 'deny';
}> | undefined;
/**
 * The plan-phase step alone: whether a session that is still planning refuses this tool. Refused
 * with `PLAN_NOT_APPROVED`: what the read-only sandbox refuses (category `write`, the editing group,
 * `readOnly: false`, `destructive: true`), `present`, and an MCP tool not known to be read-only (its
 * hints unknown, or only claimed by a server that is not trusted). The shell is not refused: it runs
 * in the read-only OS sandbox during the plan phase. Connecting a server is not refused either.
 */
declare function planDenial(tool: PermissionToolFacts): Extract<PermissionDecision, {
    type: 'deny';
}> | undefined;
/**
 * Decides one call. Pure: no I/O, no prompts, the same answer for the same input. The order is
 * fixed (BT-PERM-1 in REQUIREMENTS.md, with the sandbox checked before anything else):
 *
 * 1. sandbox: a writer in a `read_only` run → deny `PERMISSION_DENIED` (whatever the surface);
 *    then, in a plan phase, a writer → deny `PLAN_NOT_APPROVED` ({@link planDenial});
 * 2. path policy: a refused target → deny with the policy's code (final, also under `never`);
 * 3. configured rules on the exact tool name: `deny` → deny `APPROVAL_DENIED`; then a target that
 *    needs a person whatever the rules say (`approvalRequired`) → ask; then `ask`, then `allow` rules;
 * 4. session-scoped tools (they change only the session's own task list, goal or deliverables) →
 *    allow (source `policy`); writers (category `write`): `strict` → ask, otherwise allow (source `policy`);
 * 5. shell inside an OS sandbox (`read_only`, `workspace_write`): `strict` → ask, otherwise allow
 *    (source `sandbox`); under `danger_full_access` the shell falls through to its annotations;
 * 6. approval `never` → allow;
 * 7. safe annotations (`readOnly: true`, `openWorld: false`, not destructive) → allow (source `annotation`);
 * 8. `strict` → ask;
 * 9. installation trust (configured MCP, not declared destructive) → allow (source `config`);
 * 10. risky annotations (`destructive` or `openWorld`) → ask; 11. anything else (unknown) → ask.
 */
declare function decidePermission(request: PermissionRequest): PermissionDecision;

/** A call as an extension sees it: resolved and validated, its arguments a frozen copy. */
interface ExtensionCall {
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
interface ExtensionToolResponse {
    readonly status: 'ok' | 'error';
    readonly output: string;
    readonly error: {
        readonly code: string;
        readonly message: string;
    } | null;
}
/**
 * What `beforeCall` decides. `continue` (or nothing) lets the call go on to the permission step;
 * `deny` refuses it (`HOOK_BLOCKED`, the reason goes to the model); `ask` makes a person confirm it
 * after the permission step allowed it; `replace` swaps in another call (a tool name and arguments),
 * which is resolved, validated and permitted again from the start; `stop` refuses it and asks the
 * embedding loop to stop (the reason is for the person). `additionalContext` is added to the text
 * the model sees with the result.
 */
type ExtensionDecision = {
    readonly action: 'continue';
    readonly additionalContext?: string;
} | {
    readonly action: 'deny';
    readonly reason: string;
} | {
    readonly action: 'ask';
    readonly reason: string;
    readonly additionalContext?: string;
} | {
    readonly action: 'replace';
    /** Default: the same tool. */
    readonly name?: string;
    readonly arguments: unknown;
} | {
    readonly action: 'stop';
    readonly reason: string;
};
/** What `afterCall` may add: context for the model, or a request to stop the embedding loop. */
interface ExtensionAfterResult {
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
interface HostExtension {
    /** Named in the audit log and in refusals. */
    readonly name: string;
    readonly beforeCall?: (call: ExtensionCall) => ExtensionDecision | undefined | Promise<ExtensionDecision | undefined>;
    readonly afterCall?: (call: ExtensionCall & {
        readonly response: ExtensionToolResponse;
    }) => ExtensionAfterResult | undefined | Promise<ExtensionAfterResult | undefined>;
}
/** How long an extension's `beforeCall` or `afterCall` may take, in ms. */
declare const EXTENSION_TIMEOUT_MS = 60000;

/** One tool call as the model proposed it. */
interface ToolCall {
    /** The provider's call id; generated (`call_<n>`) when missing. */
    readonly id?: string;
    readonly name: string;
    /** An object, a JSON string, or empty / `null` (meaning `{}`). */
    readonly arguments?: unknown;
}

/** Options of `dispatch` and `dispatchBatch` (of a session or of the host's default session). */
interface DispatchOptions {
    /** Cancels the calls still running (reported as `ABORTED`). */
    readonly signal?: AbortSignal;
    /**
     * Receives the progress of the running calls (a tool's own reports, and an upstream MCP server's
     * progress reached through `use_capability`), with the call id.
     */
    readonly onProgress?: (progress: ToolProgress & {
        readonly callId: string;
    }) => void;
    /**
     * Who started this turn; default a person's direct turn. It reaches every call's handler
     * (`ToolCallContext.turn`): the goal tools take their authority from it.
     */
    readonly turn?: TurnOrigin;
    /**
     * A W3C `traceparent` of the caller (an MCP client's `_meta.traceparent`): recorded on
     * `call-received`, so traces of the calls continue the caller's. Ignored unless well-formed.
     */
    readonly traceparent?: string;
}
/** The error part of a dispatch result: `message` is the model text without the code (`cause; recovery`). */
interface DispatchError {
    readonly code: ErrorCode;
    readonly message: string;
    readonly details: ErrorDetails;
}
/**
 * The outcome of one call: exactly what a session line needs. `output` is the model-visible text
 * (for a failure, `CODE: cause; recovery` followed by any output the tool produced), at most 32 KiB.
 */
interface DispatchResult {
    readonly id: string;
    /** The name as called. */
    readonly name: string;
    /** The tool it resolved to, or `null` when it did not resolve. */
    readonly toolName: string | null;
    readonly status: 'ok' | 'error';
    readonly output: string;
    /** The model-visible blocks: the shaped text first (when any), then images and links as the tool returned them. */
    readonly content: readonly ContentBlock[];
    readonly error: DispatchError | null;
    /** Set when the result was truncated and its full body kept for `session:tool_result`. */
    readonly resultRef: string | null;
    readonly truncated: boolean;
    /** The tool's value-free details (sizes, ids, statuses), for hosts and audits, never for the model. */
    readonly details?: Readonly<Record<string, unknown>>;
    /** Third-party text the model must not treat as instructions. */
    readonly untrusted?: boolean;
    /** The storm breaker's advisory guidance, on a single dispatch (a batch carries it on the batch). */
    readonly notice?: string;
    /** The permission decision, when the call got that far. */
    readonly permission?: PermissionDecision;
    /**
     * Set when a hook (`continue: false`) or an extension asked the embedding loop to stop: the reason
     * is for the person, not the model. Later calls of the batch were not run.
     */
    readonly stop?: StopRequest;
    readonly durationMs: number;
}
/** A hook's or an extension's request that the embedding loop stop. */
interface StopRequest {
    readonly reason: string;
    /** `hook:<event>` or `extension:<name>`. */
    readonly by: string;
}
/** The outcome of one assistant turn's calls, in the model's order. */
interface BatchResult {
    readonly results: readonly DispatchResult[];
    /** The storm breaker's advisory guidance, when it speaks. */
    readonly notice?: string;
    /** The first stop request of the batch (see {@link DispatchResult.stop}). */
    readonly stop?: StopRequest;
}
/** A path a call touches, after the path policy resolved it. */
interface ResolvedPathTarget {
    readonly argument: string;
    /** The real path the policy resolved. */
    readonly path: string;
    /** The path as shown to people and the model (root-relative where possible). */
    readonly displayPath: string;
    readonly access: 'read' | 'write' | 'list';
}
/** What a person is asked to approve. */
interface ApprovalRequest {
    readonly callId: string;
    readonly toolName: string;
    readonly source: ToolSource;
    readonly group: ToolGroup;
    readonly category: ToolCategory;
    readonly annotations: ToolAnnotations;
    readonly invocation: ToolInvocation;
    readonly sandbox: SandboxMode;
    readonly approval: ApprovalPolicy;
    /** Why the call needs approval. */
    readonly reason: string;
    readonly decisionSource: PermissionSource;
    readonly rule?: string;
    /** What argument rules match (the shell command), for "always allow" prompts. */
    readonly subject?: string;
    /** A short human preview of the action (may quote arguments: it is for the person, never logged). */
    readonly preview?: string;
    readonly paths: readonly ResolvedPathTarget[];
    /** What the person may answer: `allow_session` only when {@link ApprovalRequest.remember} is set. */
    readonly choices: readonly ApprovalChoice[];
    /**
     * What "allow for this session" would remember: the exact tool name, or for a shell command a
     * prefix rule such as `bash(git push:*)`. Absent when the answer cannot be remembered (a configured
     * `ask` rule, a hook's or the plan's question, a compound command).
     */
    readonly remember?: string;
    /** Fires when the approval times out or the call is cancelled. */
    readonly signal: AbortSignal;
}
/**
 * A person's three answers: run this call once, run it and every call {@link ApprovalRequest.remember}
 * covers for the rest of the session without asking, or refuse it.
 */
type ApprovalChoice = 'allow_once' | 'allow_session' | 'deny';
/**
 * A person's answer: a choice, `true` / `false` (once / deny), or an object with a reason that the
 * model sees on a denial. `{ decision: 'unavailable' }` says no one could be asked after all (an MCP
 * client without elicitation): the call fails closed with `APPROVAL_REQUIRED`, naming what would allow it.
 */
type ApprovalAnswer = boolean | ApprovalChoice | {
    readonly approved: boolean;
    readonly reason?: string;
} | {
    readonly decision: ApprovalChoice | 'unavailable';
    readonly reason?: string;
};
/** A host's way to ask a person. */
type ApproveCallback = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;

/** The hook events toolhost runs (Claude Code's names). */
declare const HOOK_EVENTS: readonly ["PreToolUse", "PostToolUse", "SessionStart", "SessionEnd"];
/** One hook event. */
type HookEvent = (typeof HOOK_EVENTS)[number];
/** How long a hook command may run when its entry gives no `timeout`, in seconds (Claude Code's default). */
declare const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The longest `timeout` a hook may ask for, in seconds. */
declare const MAX_HOOK_TIMEOUT_SECONDS = 3600;
/** One `type: "command"` hook. */
interface HookCommand {
    readonly type: 'command';
    /** Run by the platform shell (`/bin/sh -c` on POSIX, `cmd.exe` on Windows) in the project root. */
    readonly command: string;
    /** Seconds; default {@link DEFAULT_HOOK_TIMEOUT_SECONDS}. */
    readonly timeout?: number;
}
/** One matcher group of an event: which tool names (or session sources) it applies to, and its hooks. */
interface HookMatcherGroup {
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
type HooksConfig = {
    readonly [event in HookEvent]?: readonly HookMatcherGroup[];
};
/** A validated hook, ready to run: its place in the configuration names it in the audit log. */
interface ConfiguredHook {
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
interface HookMatcher {
    /** The matcher as written (`''` for match-all). */
    readonly text: string;
    matches(name: string): boolean;
}
/**
 * Compiles a matcher the way Claude Code reads one: empty, missing or `*` matches every name; a
 * plain name or a `|` list of plain names matches exactly; anything else is a regular expression
 * searched anywhere in the name (anchor it with `^...$` for whole names). Regular expressions run
 * on the linear-time engine of `@toolhost/contracts` (the name they meet comes from the model).
 */
declare function compileHookMatcher(text: string | undefined): Result<HookMatcher, string>;

/**
 * The `sandbox` settings of a configuration: what the shell's OS sandbox shows and allows beyond the
 * run policy (DESIGN.md "Shell sandbox settings"). Paths are as written (`~/` and paths relative to
 * the project root allowed); the host checks and realpaths them.
 */
interface SandboxConfig {
    /** The host's network for shell commands in `workspace_write` (never in `read_only`). Default false. */
    readonly network?: boolean;
    /** Extra directories shell commands may write in `workspace_write`, such as a build cache. */
    readonly writableRoots: readonly string[];
    /** Paths outside the roots shown read-only to shell commands (the only way to show a credential store). */
    readonly readableRoots: readonly string[];
    /** Directory entries the protected-path listing may read before commands are refused. Default 200 000. */
    readonly maxPlanEntries?: number;
}
/**
 * The `shellEnvironment` settings: which host variables shell commands see. `inherit` starts from
 * `core` (the allowlist, default), `all` (every name that does not look like a secret) or `none`;
 * `include` adds names (exact, or prefixes ending in `*`; a secret-looking name only when named
 * exactly), `exclude` removes names (wins over both), `set` sets values (never logged).
 */
interface ShellEnvironmentConfig {
    readonly inherit?: EnvironmentInheritance;
    readonly include: readonly string[];
    readonly exclude: readonly string[];
    readonly set: Readonly<Record<string, string>>;
}
/** The `sandbox` object as written in a configuration. */
interface SandboxConfigInput {
    readonly network?: boolean;
    readonly writableRoots?: readonly string[];
    readonly readableRoots?: readonly string[];
    readonly maxPlanEntries?: number;
}
/** The `shellEnvironment` object as written in a configuration. */
interface ShellEnvironmentConfigInput {
    readonly inherit?: EnvironmentInheritance;
    readonly include?: readonly string[];
    readonly exclude?: readonly string[];
    readonly set?: Readonly<Record<string, string>>;
}
/** The largest `sandbox.maxPlanEntries` a configuration may ask for. */
declare const MAX_PLAN_ENTRIES_LIMIT = 10000000;
/** The default `sandbox.maxPlanEntries` (the jobs package's). */
declare const DEFAULT_MAX_PLAN_ENTRIES = 200000;
/**
 * Validates a configuration's `sandbox` object: `network` (boolean), `writableRoots` and
 * `readableRoots` (path strings), `maxPlanEntries` (an integer from 1 to 10 000 000). Unknown fields
 * are `CONFIG_INVALID` naming the field.
 */
declare function parseSandboxConfig(value: unknown, source: string): Result<SandboxConfig, ToolhostError>;
/**
 * Validates a configuration's `shellEnvironment` object: `inherit` (`core`, `all`, `none`),
 * `include` and `exclude` (variable names or `*`-terminated prefixes) and `set` (names to string
 * values). Messages name the field and never a value.
 */
declare function parseShellEnvironment(value: unknown, source: string): Result<ShellEnvironmentConfig, ToolhostError>;
/** What the shell's job managers get from the configuration, checked. */
interface ShellSandboxSettings {
    readonly network: boolean;
    /** Real paths, checked against the path policy (see {@link resolveShellSandbox}). */
    readonly writableRoots: readonly string[];
    /** Real paths (missing ones left out). */
    readonly readableRoots: readonly string[];
    readonly maxPlanEntries: number;
    readonly environment: JobEnvironmentOptions;
}
/** Options of {@link resolveShellSandbox}. */
interface ResolveShellSandboxOptions {
    readonly sandbox: SandboxConfig;
    readonly shellEnvironment: ShellEnvironmentConfig;
    /** The host's `network` option, which wins over the configuration. */
    readonly network?: boolean | undefined;
    readonly pathPolicy: PathPolicy;
    readonly stateDir: string;
    readonly userConfigDir: string;
    /** Default `os.homedir()`. */
    readonly home?: string;
}
/**
 * Checks the configuration's shell sandbox settings against the run's path policy and returns what
 * the job managers get. `~` means the home directory. A writable or readable root that does not exist
 * is left out. `CONFIG_INVALID` naming the entry (never its value) for a writable root that is `/`,
 * a protected or secret path of the path policy, one that contains a root (and so the roots' protected
 * paths), the home directory or a directory above it, one inside a credential store or a system
 * secret, or one that overlaps the state directory or the user configuration directory; and for a
 * readable root that is `/` or overlaps the state directory or the user configuration directory
 * where no root already covers them.
 */
declare function resolveShellSandbox(options: ResolveShellSandboxOptions): ShellSandboxSettings;

/** The name of the configuration file looked up in the root. */
declare const CONFIG_FILE_NAME = "toolhost.config.json";

/** Which built-ins go on the provider surface. */
type SurfaceProfile = 'lean' | 'full';
/** Defaults a configuration may set; explicit host options win over them. */
interface HostConfigDefaults {
    readonly sandbox?: SandboxMode;
    readonly approval?: ApprovalPolicy;
    readonly surface?: SurfaceProfile;
    /** How long an approval may wait for a person, in ms; default 120000. */
    readonly approvalTimeoutMs?: number;
}
/** The `webFetch` settings: which local or private hosts web_fetch may reach. */
interface WebFetchConfig {
    /** Host names and IP literals fetched whatever they resolve to (local development servers). */
    readonly allowHosts: readonly string[];
    /** Loopback, private, link-local and shared addresses are allowed (cloud metadata addresses never). */
    readonly allowPrivateNetwork: boolean;
}
/** A validated `toolhost.config.json`. */
interface HostConfig {
    readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
    readonly permissions: {
        readonly allow: readonly string[];
        readonly ask: readonly string[];
        readonly deny: readonly string[];
    };
    /** Extra protected paths (glob patterns relative to the root), added to the built-in ones. */
    readonly protectedPaths: readonly string[];
    /** Extra secret paths (never read into context), added to the built-in ones. */
    readonly secretPaths: readonly string[];
    /** Extra roots the run may access besides the project root. */
    readonly allowedRoots: readonly string[];
    readonly defaults: HostConfigDefaults;
    /** Write the JSONL audit log: `true` for `<state dir>/audit.jsonl`, or a path. */
    readonly audit?: boolean | string;
    /**
     * Argument keys that MCP clients are known to add to every call (Gemini CLI's `wait_for_previous`):
     * dropped before validation when the tool's schema does not declare them, and reported in the
     * audit log. Added to the default list.
     */
    readonly clientInjectedKeys?: readonly string[];
    /** web_fetch's address guard exceptions; default none. */
    readonly webFetch: WebFetchConfig;
    /** The shell's OS sandbox: network, writable and readable roots, the plan limit (`sandbox-config.ts`). */
    readonly sandbox: SandboxConfig;
    /** Which host variables shell commands see (`sandbox-config.ts`). */
    readonly shellEnvironment: ShellEnvironmentConfig;
    /**
     * Hook commands (Claude Code's `hooks` format), validated and in configuration order, each named
     * by its place (`hooks.PreToolUse[0].hooks[1]`) and file. An untrusted project configuration's
     * hooks are never here (they are commands: see `resolveHostConfig`).
     */
    readonly hooks: readonly ConfiguredHook[];
}
/** The configuration as written (every field optional), for passing one in code. */
interface HostConfigInput {
    readonly $schema?: string;
    readonly mcpServers?: Readonly<Record<string, unknown>>;
    readonly permissions?: {
        readonly allow?: readonly string[];
        readonly ask?: readonly string[];
        readonly deny?: readonly string[];
    };
    readonly protectedPaths?: readonly string[];
    readonly secretPaths?: readonly string[];
    readonly allowedRoots?: readonly string[];
    readonly defaults?: HostConfigDefaults;
    readonly audit?: boolean | string;
    readonly clientInjectedKeys?: readonly string[];
    readonly webFetch?: {
        readonly allowHosts?: readonly string[];
        readonly allowPrivateNetwork?: boolean;
    };
    readonly sandbox?: SandboxConfigInput;
    readonly shellEnvironment?: ShellEnvironmentConfigInput;
    readonly hooks?: HooksConfig;
}
/** An empty configuration (what a missing default file means). */
declare const EMPTY_HOST_CONFIG: HostConfig;
/**
 * Validates a parsed configuration. Every failure is `CONFIG_INVALID` naming the file and the field
 * (`permissions.allow[2]`, `mcpServers.github.command` ...). Unknown top-level fields are refused,
 * because a misspelt `permisions` would otherwise silently drop the rules.
 */
declare function parseHostConfig(value: unknown, source?: string): Result<HostConfig, ToolhostError>;
/**
 * Parses and validates a configuration file's text (a leading BOM is skipped). Invalid JSON is
 * `CONFIG_INVALID` with the parser's position, naming `source`.
 */
declare function parseConfigText(text: string, source: string): Result<HostConfig, ToolhostError>;
/**
 * Reads and validates a configuration file. A missing file is an empty configuration when
 * `optional` is set, and `CONFIG_INVALID` otherwise; so are unreadable files and invalid JSON (with
 * the parser's position). Hosts read their layers with `resolveHostConfig`, which also refuses links.
 */
declare function loadHostConfig(file: string, options?: {
    readonly optional?: boolean;
}): Result<HostConfig, ToolhostError>;

/** Where a configuration layer came from, and whether what it widens counts. */
type ConfigRole = 'user' | 'explicit' | 'project' | 'options';
/** One configuration layer that was read. */
interface ConfigLayerReport {
    readonly role: ConfigRole;
    /** The file, for file layers. */
    readonly file?: string;
    /** Whether the layer may widen the run policy (a project layer only after the user approved its bytes). */
    readonly trusted: boolean;
    /** SHA-256 of the file's bytes, for file layers. */
    readonly sha256?: string;
}
/** A setting of an untrusted project configuration that was not applied because it would widen the policy. */
interface IgnoredSetting {
    /** The field, such as `defaults.sandbox`, `permissions.allow[0]`, `allowedRoots[1]`, `mcpServers.x.trusted`. */
    readonly field: string;
    readonly reason: string;
}
/** The effective configuration of a host and how it was assembled. */
interface ResolvedHostConfig {
    readonly config: HostConfig;
    readonly layers: readonly ConfigLayerReport[];
    /** What an untrusted project configuration asked for and did not get. */
    readonly ignored: readonly IgnoredSetting[];
    /** MCP servers defined only by an untrusted project configuration: connecting them needs a person. */
    readonly untrustedServers: ReadonlySet<string>;
    /** The configuration files read that lie inside the project (protected from the model). */
    readonly files: readonly string[];
}
/** Options of {@link resolveHostConfig}. */
interface ResolveHostConfigOptions {
    /** The project root (absolute). */
    readonly root: string;
    /**
     * The host's own configuration: an object or an explicit file (the user's choice, trusted), `false`
     * for none, or `undefined` for the project's `<root>/toolhost.config.json` (untrusted unless approved).
     */
    readonly config?: HostConfigInput | string | false;
    /** The user's own configuration (trusted): an object, a file, or `undefined`/`false` for none. */
    readonly userConfig?: HostConfigInput | string | false;
    /**
     * Whether the project configuration may widen the policy: `true`, `false`, or `'store'` (default):
     * only when the user approved its exact bytes (`toolhost trust`, {@link isProjectConfigTrusted}).
     */
    readonly projectTrust?: boolean | 'store';
    /** The user configuration directory that holds the trust store; default {@link resolveUserConfigDir}. */
    readonly userConfigDir?: string;
}
/** A project configuration larger than this is refused (it is a small JSON file). */
declare const MAX_CONFIG_BYTES: number;
/**
 * Reads a configuration file without following a final symbolic link, without blocking on a FIFO and
 * within {@link MAX_CONFIG_BYTES}. `missingOk` turns a missing file into `undefined`.
 */
declare function readConfigFile(file: string, options?: {
    readonly missingOk?: boolean;
    readonly refuseSymlink?: boolean;
}): Result<{
    readonly bytes: Buffer;
} | undefined, ToolhostError>;
/**
 * Assembles a host's configuration from its layers: the user's own configuration (trusted), then
 * either an explicit configuration (an object in code or a `--config` file: the user's choice,
 * trusted) or the project's `<root>/toolhost.config.json`.
 *
 * The project file is data the model may have written: it is read only as a regular file (a symbolic
 * link is `CONFIG_INVALID`), and unless the user approved its exact bytes it can only narrow what the
 * other layers grant. Dropped, each listed in `ignored`: `defaults.sandbox` / `defaults.approval` wider
 * than the built-in defaults (`read_only`, `on_request`) or the user's, `allowedRoots`, `permissions.allow`,
 * `!` exceptions in `protectedPaths` / `secretPaths`, an `audit` path, a server that replaces one of the
 * user's, `trusted` on its servers, `webFetch` exceptions, every hook (a hook is a command), and the
 * shell settings that widen (`sandbox.network: true`, writable and readable roots, a higher
 * `sandbox.maxPlanEntries`, `shellEnvironment.include`, a wider `inherit`, `set`). Its other
 * servers stay listed, but connecting one asks a person (`untrustedServers`). Narrowing settings (deny and ask rules, more protected and secret patterns,
 * a stricter default) apply.
 */
declare function resolveHostConfig(options: ResolveHostConfigOptions): Result<ResolvedHostConfig, ToolhostError>;

/** The host's operating-system family: it picks the shell (`bash` on POSIX, `pwsh` on Windows). */
type HostPlatform = 'posix' | 'windows';
/** The name of the fixed capability proxy, on every surface. */
declare const USE_CAPABILITY = "use_capability";
/** The lean profile's tools besides the shell (the seed's unified boot surface). */
declare const LEAN_SURFACE_TOOLS: readonly string[];
/**
 * Tools that need the embedding loop's conversation: listed (on the lean surface too, as the seed
 * says) only in a session that was given a conversation port, and nowhere else.
 */
declare const CONVERSATION_TOOLS: readonly string[];
/** The shell tool of a platform. */
declare function shellToolName(platform: HostPlatform): 'bash' | 'pwsh';
/** Options of {@link selectSurface}. */
interface SelectSurfaceOptions {
    readonly profile: SurfaceProfile;
    readonly sandbox: SandboxMode;
    readonly platform: HostPlatform;
    /** Every registered tool (hidden ones are never selected). */
    readonly tools: readonly RegisteredTool[];
    /**
     * Whether the session has a conversation port: the {@link CONVERSATION_TOOLS} go on the surface
     * (lean and full); without one they are on no surface. Default false.
     */
    readonly conversation?: boolean;
}
/**
 * The provider-visible tools of a run, sorted by name:
 * - `lean`: the platform shell, `job_output`, `job_kill`, `read_file`, `write_file`, `edit_file`,
 *   `view_image`, `use_capability`;
 * - `full`: every listed built-in plus `use_capability`;
 * plus `compress` in both when the session has a conversation port (never otherwise); in both, the editing group is dropped in a `read_only` run, only the platform's shell is kept
 * (`bash` xor `pwsh`), and hidden aliases and non-built-in tools never appear. A name the registry
 * lacks is simply absent (the boot contract test pins the exact lists).
 */
declare function selectSurface(options: SelectSurfaceOptions): RegisteredTool[];

/** Compile options of `providerTools` (the dialect's own; hosted tools come from the registry). */
type ProviderToolsOptions = Omit<CompileToolsOptions, 'dialect' | 'hosted'>;
/** A compiled surface: the dialect's compiled tools plus the fingerprint of the exact `tools` bytes. */
type ProviderTools = CompiledTools & {
    /** 16 hex characters of SHA-256 of `JSON.stringify(tools)`. */
    readonly fingerprint: string;
};
/** A session's run policy: never wider than its host's (or its parent's, for a child). */
interface SessionPolicy {
    readonly sandbox: SandboxMode;
    readonly approval: ApprovalPolicy;
    readonly surface: SurfaceProfile;
}
/** Options of `host.openSession` and `session.openChild`. */
interface SessionOptions {
    /** The session's id (1-80 of `[A-Za-z0-9_-]`); default a new `ses_...`. An id that exists is `CONFIG_INVALID`. */
    readonly id?: string;
    /** At most the host's (parent's); default the same. A wider one is `CONFIG_INVALID`. */
    readonly sandbox?: SandboxMode;
    /** At least as strict as the host's (parent's); default the same. */
    readonly approval?: ApprovalPolicy;
    /** `full` only on a `full` host; default the same. */
    readonly surface?: SurfaceProfile;
    /** Asks this session's person; default the host's. */
    readonly approve?: ApproveCallback;
    /**
     * Start in a plan phase (default the host's `plan`): the surface is the normal one plus
     * `exit_plan_mode`, fixed for the session's life; until a person approves a plan through it,
     * editing tools, writing or destructive MCP tools and `present` are refused (`PLAN_NOT_APPROVED`)
     * and the shell runs in the read-only sandbox.
     */
    readonly plan?: boolean;
    /**
     * Keep the session on disk (`<state dir>/sessions/<id>/`: the snapshot, stored results, job logs)
     * so `host.resumeSession(id)` continues it after a restart. Default true.
     */
    readonly persist?: boolean;
    /**
     * The embedding loop's view of the session's provider-visible conversation. On a host created
     * with `conversationTools`, it puts `compress` on the session's surface (lean and full) and lets it
     * run; without it (or on another host) the session lists no conversation tool.
     */
    readonly conversation?: ConversationPort;
}
/** Options of `session.openChild`: a subagent's or planner's session over the same connections. */
interface ChildSessionOptions extends Omit<SessionOptions, 'persist' | 'plan'> {
    /**
     * A strict read-only child: read-only sandbox, editing tools refused, MCP tools only when their
     * server is trusted and they declare `readOnlyHint: true` and are not destructive.
     */
    readonly readOnlyStrict?: boolean;
}
/** The resumable state of a session ({@link Session.snapshot}). */
interface SessionSnapshot {
    readonly format: 'toolhost-session-v1';
    readonly id: string;
    readonly parentId: string | null;
    /** The real project root it was taken over. */
    readonly root: string;
    readonly takenAt: string;
    readonly policy: SessionPolicy;
    readonly surfaceFingerprint: string;
    readonly observations: ObservationStoreSnapshot;
    /** The background jobs the session knew (their processes end with it; their logs are not kept). */
    readonly jobs: readonly SessionJobRecord[];
    /** Stored (truncated) results, oldest first; their bodies stay in the session's directory. */
    readonly results: readonly SessionResultRecord[];
    /** The task list of `todo_write` (absent in snapshots taken before the session tools). */
    readonly todos?: readonly TodoItem[];
    /** The goal (without its in-process activation), or `null`. */
    readonly goal?: GoalRecord | null;
    /** The deliverables `present` recorded. */
    readonly deliverables?: readonly Deliverable[];
    /** Set for a session opened in plan mode: whether it was still in its plan phase. */
    readonly plan?: {
        readonly active: boolean;
    };
}
/** A goal as a session reports it: the record, its activation in this process and its stop reason. */
type SessionGoal = GoalState;
/** A job as a snapshot remembers it. */
interface SessionJobRecord {
    readonly id: string;
    readonly shell: string;
    readonly label: string;
    readonly background: boolean;
    readonly state: string;
    readonly exitCode?: number;
    readonly startedAt: number;
    readonly endedAt?: number;
}
/** A stored result as a snapshot remembers it. */
interface SessionResultRecord {
    readonly resultRef: string;
    readonly callId: string;
    readonly toolName: string;
    readonly totalBytes: number;
    readonly sha256: string;
}
/**
 * One agent's conversation with a host: its own policy, file observations, background jobs, stored
 * results, storm-breaker streak and audit ledger, over the host's shared registry, surfaces, MCP
 * connections and sandbox probe.
 */
interface Session {
    /** `ses_...` (or the id it was opened with). */
    readonly id: string;
    /** The parent session of a child, else `null`. */
    readonly parentId: string | null;
    readonly policy: SessionPolicy;
    /** Whether the session keeps its state on disk. */
    readonly persistent: boolean;
    /**
     * True while the session is in its plan phase (opened with `plan: true` and no plan approved yet).
     * A child opened meanwhile runs in `read_only`.
     */
    readonly planning: boolean;
    /** The session's directory (its snapshot, stored results and job logs when persistent). */
    readonly dir: string;
    /** The provider-visible tools' names, sorted; fixed for the session's life. */
    surfaceNames(): readonly string[];
    /** The provider-neutral surface of this session's policy. */
    modelTools(): readonly ModelTool[];
    /** First 16 hex characters of SHA-256 of the serialised {@link Session.modelTools}. */
    surfaceFingerprint(): string;
    /**
     * The hints a client of this session should be given for a surface tool: its contract's
     * annotations, except that the shell carries its sandbox's (read-only only inside the read-only
     * sandbox) and `use_capability` the widest of what it can reach in this session (read-only only
     * when every reachable target is). `undefined` for a name that is not registered.
     */
    effectiveAnnotations(toolName: string): ToolAnnotations | undefined;
    /** The session's surface compiled for one dialect; the same frozen object on every call. */
    providerTools(dialect: DialectName, options?: ProviderToolsOptions): ProviderTools;
    /** Runs one call as a batch of one (the storm breaker's notice, when any, is on the result). */
    dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
    /** Runs one assistant turn's calls: read-only calls in parallel (at most 8), writers alone, in order. */
    dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
    /** What happened in the background since the last call, for the next turn, or `undefined`. */
    drainNotes(): string | undefined;
    /** The task list `todo_write` keeps, in order. */
    todos(): readonly TodoItem[];
    /** The goal, its in-process activation and its stop reason, or `null` when there is none. */
    goal(): SessionGoal | null;
    /** The files `present` recorded as deliverables (paths and descriptions only). */
    deliverables(): readonly Deliverable[];
    /**
     * The embedding loop's question after the model answered: may an automatic round of the goal run
     * now? While the goal is active and its activation has rounds left, the round is counted and
     * returned (its calls go with `turn: { origin: 'goal_round', goalId }`); otherwise `undefined`,
     * and {@link Session.goal} tells why (`stopReason`).
     */
    startGoalRound(): GoalRound | undefined;
    /** The session's resumable state as plain JSON. */
    snapshot(): SessionSnapshot;
    /** A child session over the same connections with a policy no wider than this one's. */
    openChild(options?: ChildSessionOptions): Promise<Session>;
    /**
     * Cancels the session's running calls, ends its jobs, keeps its snapshot (when persistent) and
     * releases it; the host's connections stay. Idempotent.
     */
    close(): Promise<void>;
    readonly closed: boolean;
}

/**
 * The resumable state of a host's default session ({@link Host.snapshot}), in the wave-1 format:
 * the same content as a session snapshot, plus the session's id so its stored results are found again.
 */
interface HostSnapshot {
    readonly format: 'toolhost-host-v1';
    /** The real project root it was taken over. */
    readonly root: string;
    readonly takenAt: string;
    readonly surfaceFingerprint: string;
    readonly observations: ObservationStoreSnapshot;
    /** The background jobs the host knew (their processes end with the host; logs are not kept). */
    readonly jobs: readonly SessionJobRecord[];
    /** Stored (truncated) results, oldest first. */
    readonly results: readonly SessionResultRecord[];
    /** The default session's id (absent in snapshots of hosts before sessions existed). */
    readonly sessionId?: string;
    /** The default session's task list, goal and deliverables (absent before the session tools). */
    readonly todos?: readonly TodoItem[];
    readonly goal?: GoalRecord | null;
    readonly deliverables?: readonly Deliverable[];
}

/** What an earlier run of a subagent left, handed back when `continue_from` resumes it. */
interface SubagentResume {
    /** The runner's own state of that run (its conversation), as it returned it; `undefined` when none was kept. */
    readonly state: JsonValue | undefined;
    readonly status: SubagentStatus;
    /** That run's last visible answer. */
    readonly answer: string;
    /** How many runs the reference had so far. */
    readonly runs: number;
}
/** One subagent to run, as the host hands it to its {@link SubagentRunner}. */
interface SubagentRunRequest {
    /** The stable `Subagent reference` (`sa_...`), the same across continuations. */
    readonly reference: string;
    readonly description: string;
    /** The instructions (for a continuation: the next instruction). */
    readonly prompt: string;
    /** A strict read-only subagent (its session is a `readOnlyStrict` child). */
    readonly readOnly: boolean;
    /**
     * The subagent's own session, a child of the caller's: dispatch its calls here (its policy is
     * never wider than the caller's). The host opened it and closes it after the run.
     */
    readonly session: Session;
    readonly parentSessionId: string;
    /** Set when `continue_from` resumes an earlier run. */
    readonly resume?: SubagentResume;
    /** Fires when the caller's call is cancelled: stop promptly (the host records `cancelled`). */
    readonly signal: AbortSignal;
}
/** How a subagent's run ended, as the runner reports it. */
interface SubagentRunOutcome {
    /** `completed` (it answered), `partial` (stopped by its step limit), `failed`, `cancelled`. */
    readonly status: SubagentStatus;
    /** The last visible answer ('' when there is none). */
    readonly answer: string;
    /** Whether `continue_from` may resume it. Default: `true` for all but `completed`. */
    readonly retryable?: boolean;
    /** What a continuation needs (the conversation), JSON only; handed back as {@link SubagentResume.state}. */
    readonly state?: JsonValue;
    /** For `failed`: a code and a value-free message. */
    readonly error?: {
        readonly code: string;
        readonly message: string;
    };
    /** Where the run's transcript was written, if anywhere. */
    readonly transcript?: string;
}
/**
 * The port an embedding agent loop gives the host (`createHost({ subagents })`) to run subagents:
 * the host registers `task`, `parallel_tasks` and `read_subagent_result` only when it has one. The
 * host opens each subagent's child session, persists the outcome per session lineage and renders
 * the results; the runner only talks to the model. `run` should not reject: a rejection is
 * recorded as `failed` (or `cancelled`, once the signal fired).
 */
interface SubagentRunner {
    run(request: SubagentRunRequest): Promise<SubagentRunOutcome>;
}
/** One persisted subagent result (`<state dir>/sessions/<lineage root>/subagents/<reference>.json`). */
interface SubagentRecord {
    readonly format: 'toolhost-subagent-v1';
    readonly reference: string;
    /** The root session of the lineage it belongs to. */
    readonly lineageId: string;
    /** The real project root. */
    readonly root: string;
    readonly parentSessionId: string;
    readonly description: string;
    readonly readOnly: boolean;
    readonly status: SubagentStatus;
    readonly retryable: boolean;
    readonly runs: number;
    /** The child session of every run, oldest first. */
    readonly sessionIds: readonly string[];
    /** The transcripts the runner reported, oldest first. */
    readonly transcripts: readonly string[];
    /** The answer's file (next to the record), its size in UTF-8 bytes and SHA-256. */
    readonly answerFile: string;
    readonly answerBytes: number;
    readonly answerSha256: string;
    /** Set when the answer was longer than the host keeps ({@link MAX_SUBAGENT_ANSWER_BYTES}). */
    readonly answerTruncated?: true;
    /** The runner's state file, when one is kept. */
    readonly stateFile?: string;
    readonly error?: {
        readonly code: string;
        readonly message: string;
    };
    readonly createdAt: string;
    readonly updatedAt: string;
}
/** The longest answer kept: 8 MiB (a longer one is cut on a character boundary and marked). */
declare const MAX_SUBAGENT_ANSWER_BYTES: number;
/** The largest runner state kept for `continue_from`: 64 MiB (a larger one makes the result not retryable). */
declare const MAX_SUBAGENT_STATE_BYTES: number;

/** Options of {@link createHost}. Explicit options win over the configuration's `defaults`. */
interface HostOptions {
    /** The project root; default the current directory. Must be an existing directory. */
    readonly root?: string;
    /** More roots the run may access (added to the configuration's `allowedRoots`). */
    readonly allowedRoots?: readonly string[];
    /** Default `read_only`. */
    readonly sandbox?: SandboxMode;
    /** Default `on_request`. */
    readonly approval?: ApprovalPolicy;
    /** Default `lean`. */
    readonly surface?: SurfaceProfile;
    /** Default: detected (`windows` on win32, `posix` elsewhere). */
    readonly platform?: HostPlatform;
    /**
     * The configuration: a parsed object or a file path (both the caller's choice, trusted), or `false`
     * for none. Default: the project's `<root>/toolhost.config.json` when it exists, which is read only
     * from a regular file and, until the user approved its exact bytes, can only narrow the policy
     * (see `resolveHostConfig`; what it could not widen is in {@link Host.configReport}).
     */
    readonly config?: HostConfigInput | string | false;
    /**
     * The user's own configuration (trusted; the project layer goes on top of it): an object or a file.
     * Default none; the `toolhost` command passes `<user config dir>/config.json`.
     */
    readonly userConfig?: HostConfigInput | string | false;
    /**
     * Whether the project configuration may widen the policy: `'store'` (default: only when the user
     * approved its exact bytes with `toolhost trust`), `true` or `false`.
     */
    readonly projectConfigTrust?: boolean | 'store';
    /** The user configuration directory (the trust store); default `resolveUserConfigDir()`. */
    readonly userConfigDir?: string;
    /** Caches, job logs, the result store and the audit log; default `<root>/.toolhost`. */
    readonly stateDir?: string;
    /** Asks a person; without it an "ask" decision fails closed with `APPROVAL_REQUIRED`. */
    readonly approve?: ApproveCallback;
    /** How long `approve` may take, in ms; default the configuration's, else 120000. */
    readonly approvalTimeoutMs?: number;
    /** Receives every audit event, synchronously. */
    readonly onAudit?: (event: AuditEvent) => void;
    /** Writes the JSONL audit log: `true` for `<stateDir>/audit.jsonl`, or a path. Default the configuration's `audit`. */
    readonly auditFile?: boolean | string;
    /**
     * More tools (source `dynamic`, `mcp` or `builtin` for tests), registered beside the built-ins:
     * reachable by name and as `tool:<name>`, never on the provider surface.
     */
    readonly tools?: readonly AnyToolDefinition[];
    /**
     * A snapshot of an earlier host over the same root ({@link Host.snapshot}): its file observations
     * come back (re-validated by content on first use), so a resumed session need not re-read files.
     * Stored results are found again in the state directory. A snapshot of another root or format is
     * `CONFIG_INVALID`.
     */
    readonly restore?: HostSnapshot;
    /**
     * Let shell commands reach the network in a `workspace_write` run (never in `read_only`). Default
     * the configuration's `sandbox.network`, else false.
     */
    readonly network?: boolean;
    /**
     * How long session directories are kept after their last activity and how much disk they may use
     * together; older ones, then the oldest beyond the budget, are removed when a host starts (never one
     * in use). Default 7 days and 2 GiB.
     */
    readonly sessionRetention?: {
        readonly maxAgeMs?: number;
        readonly maxBytes?: number;
    };
    /**
     * Top-level argument keys clients add to every call, ignored (and audited) when a tool does not
     * declare them; added to `wait_for_previous` (Gemini CLI) and the configuration's `clientInjectedKeys`.
     */
    readonly clientInjectedKeys?: readonly string[];
    /** The ripgrep executable for `grep`; `null` for the built-in engine; default `rg` on PATH. */
    readonly rgPath?: string | null;
    /**
     * The embedding loop's subagent runner: with it the host registers `task`, `parallel_tasks` and
     * `read_subagent_result` (reachable as `tool:<name>`; on the `full` surface); without it they do
     * not exist. Default none.
     */
    readonly subagents?: SubagentRunner;
    /**
     * Register the tools that need the embedding loop's conversation (`compress`): a loop that owns
     * its sessions' conversations (`toolhost run`) sets it and opens its sessions with a
     * `conversation` port, and only those sessions list and run them. Default false: `compress` is not
     * registered (`toolhost session` and `serve` never list it).
     */
    readonly conversationTools?: boolean;
    /**
     * Programmatic interceptors of every call of the host's sessions, in order: they observe, deny,
     * ask, replace calls (re-resolved, re-validated and re-permitted) and add context. See `HostExtension`.
     */
    readonly extensions?: readonly HostExtension[];
    /**
     * Open sessions in plan mode by default (the default session included): the surface gains
     * `exit_plan_mode`, and writes wait for an approved plan. Default false.
     */
    readonly plan?: boolean;
}

/**
 * A host: what every agent session over one project shares (configuration, registry and surfaces,
 * compiled provider tools, MCP connections and their schema cache, the sandbox probe, the state
 * directory), and the sessions themselves. `dispatch`, `dispatchBatch`, `drainNotes` and `snapshot`
 * act on the host's default session, opened on first use.
 */
interface Host {
    /** The real project root. */
    readonly root: string;
    readonly sandbox: SandboxMode;
    readonly approval: ApprovalPolicy;
    readonly surface: SurfaceProfile;
    readonly platform: HostPlatform;
    readonly stateDir: string;
    /** The effective configuration (every layer merged). */
    readonly config: HostConfig;
    /** Which configuration layers were read, and what an untrusted project configuration did not get. */
    readonly configReport: {
        readonly layers: readonly ConfigLayerReport[];
        readonly ignored: readonly IgnoredSetting[];
    };
    /** Every registered tool, surface or not. */
    readonly registry: ToolRegistry;
    readonly pathPolicy: PathPolicy;
    /** The provider-visible tools' names of the host's policy, sorted. Frozen at creation. */
    surfaceNames(): readonly string[];
    /** The provider-neutral surface (`{ name, description, inputSchema }`, canonical). Frozen at creation. */
    modelTools(): readonly ModelTool[];
    /** First 16 hex characters of SHA-256 of the serialised {@link Host.modelTools}. */
    surfaceFingerprint(): string;
    /**
     * The surface compiled for one provider dialect: `tools` is exactly the array the provider
     * receives. Computed once per dialect and options and returned as the same frozen object on every
     * later call, so its bytes never change for the life of the host (MCP servers connecting included).
     * Throws `DialectError` `CONFIG_INVALID` for an unknown dialect.
     */
    providerTools(dialect: DialectName, options?: ProviderToolsOptions): ProviderTools;
    /**
     * Opens a new agent session: its own id, policy (never wider than the host's), observations,
     * jobs, stored results, storm breaker and ledger. `CONFIG_INVALID` for a wider policy or an id in use.
     */
    openSession(options?: SessionOptions): Promise<Session>;
    /**
     * Continues a persisted session of this project by id: the same id, observations and stored
     * results (its jobs did not survive; the first note says so). `SESSION_NOT_FOUND` when there is no
     * such session, `SESSION_IN_USE` when a live host has it open.
     */
    resumeSession(id: string, options?: Omit<SessionOptions, 'id'>): Promise<Session>;
    /** The sessions open now (the default one included once opened), oldest first. */
    sessions(): readonly Session[];
    /** The host's default session (opened on first use), which the methods below act on. */
    defaultSession(): Session;
    /** Runs one call in the default session, as a batch of one. */
    dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
    /** Runs one assistant turn's calls in the default session. */
    dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
    /** The default session's background notes for the next turn, or `undefined`. */
    drainNotes(): string | undefined;
    /**
     * The default session's resumable state as plain JSON (observations, stored results, jobs known
     * now, the session id). Pass it as `restore` to a later host over the same root.
     */
    snapshot(): HostSnapshot;
    /** Closes every session, then ends the MCP servers and flushes the audit log. Idempotent. */
    close(): Promise<void>;
}
/**
 * Creates a host: reads and validates the configuration, composes the registry (built-ins in their
 * groups, `use_capability`, extra tools), freezes the provider surface for the run policy and
 * prunes old sessions of the project. Nothing starts: sessions open on demand (the default one on
 * first use), MCP servers on their first call.
 *
 * Defaults: root = cwd, sandbox `read_only`, approval `on_request`, surface `lean`, platform
 * detected, configuration `<root>/toolhost.config.json` when present (untrusted until approved),
 * state directory `<root>/.toolhost` (with a `.gitignore` of `*`), approval timeout 120 s, sessions
 * kept 7 days within 2 GiB. Throws `ToolhostError` `CONFIG_INVALID` naming the field for a bad option
 * or configuration.
 */
declare function createHost(options?: HostOptions): Promise<Host>;

/** The longest reason (stderr or JSON reason) given to the model or the person, in UTF-8 bytes. */
declare const MAX_HOOK_REASON_BYTES = 4096;

/** The model sees at most this many UTF-8 bytes of one result's text. */
declare const MAX_MODEL_RESULT_BYTES: number;
/** Where full bodies of truncated results are kept (the capability proxy's result store fits). */
interface ResultStore {
    put(entry: {
        readonly callId: string;
        readonly toolName: string;
        readonly body: string;
    }): Promise<StoredResult> | StoredResult;
}
/** What the store answers for a kept body. */
interface StoredResult {
    readonly resultRef: string;
    readonly totalBytes: number;
    readonly sha256: string;
}
/** Head and tail byte budgets per result shape (BT-SHAPE-2 in REQUIREMENTS.md). `read` keeps a prefix only. */
declare const RESULT_BUDGETS: Readonly<Record<ResultShape, {
    readonly head: number;
    readonly tail: number;
}>>;
/** Options of {@link shapeResultText}. */
interface ShapeResultOptions {
    readonly text: string;
    readonly shape: ResultShape;
    /** A failed call: the tail gets at least a third of the budget (a failure's cause is usually at the end). */
    readonly failed: boolean;
    readonly callId: string;
    readonly toolName: string;
    /** Keeps the full body; without one the marker says it could not be kept. */
    readonly store?: ResultStore | undefined;
    /** Default {@link MAX_MODEL_RESULT_BYTES}; only lower it in tests. */
    readonly maxBytes?: number;
}
/** A result's text as the model will see it. */
interface ShapedResultText {
    readonly text: string;
    readonly truncated: boolean;
    /** Set when the full body was kept. */
    readonly resultRef: string | null;
    readonly originalBytes: number;
    /** Bytes of the original body the model sees (head plus tail, marker excluded). */
    readonly keptBytes: number;
    /** For `read`: the `offset` to pass to read_file to continue after the kept prefix. */
    readonly nextOffset?: number;
    /** Set when keeping the body failed; the marker then says so. */
    readonly storeError?: string;
}
/**
 * Shapes one result for the model. A text of at most `maxBytes` (32 KiB) passes byte-identical;
 * a longer one is cut to a head and a tail by the shape's budget (shell 8000/8000, search
 * 10000/1000, default 12000/2000; `read` keeps a line-bounded prefix and reports `next_offset`), cut
 * on UTF-8 character boundaries and preferably at line ends, with a marker between them that names
 * the tool, call id, `result_ref`, original and kept byte counts and the exact
 * `use_capability(action="call", capability_id="session:tool_result", ...)` recipe. The whole body is
 * put in the store first, so nothing the tool produced is lost. The result never exceeds `maxBytes`.
 */
declare function shapeResultText(options: ShapeResultOptions): Promise<ShapedResultText>;

/** One call's outcome as the storm breaker sees it. */
interface StormOutcome {
    /** The resolved tool name (the name as called when it did not resolve). */
    readonly toolName: string;
    readonly ok: boolean;
    /** The call's arguments with sorted keys (JSON), for the repeated-call guard. */
    readonly argumentsKey?: string;
    /** The model-visible output, for the repeated-call guard. */
    readonly output?: string;
    readonly error?: {
        readonly code: string;
        readonly message: string;
        readonly signature?: string | undefined;
        readonly details?: Readonly<Record<string, unknown>>;
    };
}
/** Advisory guidance produced when a streak reaches the threshold. */
interface StormNotice {
    /**
     * `failed`: every call failed the same way; `blocked`: every call was refused by policy;
     * `repeated`: the same calls with the same arguments gave the same output again.
     */
    readonly kind: 'failed' | 'blocked' | 'repeated';
    /** How many equivalent batches in a row. */
    readonly count: number;
    /** The batch signature: `tool` NUL `category` per call, joined by NUL. */
    readonly signature: string;
    /** The text for the model (and a person): starts with `[loop guard]`. */
    readonly text: string;
}
/** Options of {@link createStormBreaker}. */
interface StormBreakerOptions {
    /** Equivalent all-failed batches in a row before guidance; default 3. */
    readonly threshold?: number;
    /**
     * Identical batches in a row (same tools, arguments up to key order, and outputs) before the
     * repeated-call notice; default 4 (the fourth occurrence speaks).
     */
    readonly repeatThreshold?: number;
}
/** The repeated-failure loop guard. Advisory: it never blocks, rewrites or stops anything. */
interface StormBreaker {
    /**
     * Records one assistant turn's batch (a single call is a batch of one) and returns guidance when
     * the streak reaches the threshold (and on every further equivalent batch). Several failing calls
     * in one batch advance the streak by one.
     */
    observe(batch: readonly StormOutcome[]): StormNotice | undefined;
    /** Forgets both streaks. */
    reset(): void;
    /** The current failed-batch streak length. */
    readonly streak: number;
}
/**
 * Normalises an error to its storm category, so rewording (or different argument values) does not
 * evade the breaker: an `argument_validation:` signature passes unchanged; "exit status N" / "exit
 * code N" (or `details.exitCode`) → `tool:exit:N`; timeouts and deadlines → `tool:transient:timeout`;
 * connection failures → `tool:transient:connection`; text with both "fail" and "test" →
 * `tool:test_failure`; anything else → `tool:<CODE>` (plus the signature when the error has one).
 */
declare function stormCategory(error: NonNullable<StormOutcome['error']>): string;
/**
 * Creates the storm breaker (BT-STORM-1..BT-STORM-6 in REQUIREMENTS.md): a batch counts only when every call failed; its
 * signature is every call's (tool, category); the same signature as the previous failed batch adds
 * one, a different one restarts at 1, any success resets. At the threshold (default 3) it returns
 * one `[loop guard]` notice naming the tool (or "this batch of N tool calls"), the original error
 * and advice by category. Batches where every call was blocked by policy keep their own streak.
 */
declare function createStormBreaker(options?: StormBreakerOptions): StormBreaker;

/** At most this many read-only calls of one batch run at once. */
declare const MAX_PARALLEL_CALLS = 8;
/** How many times one call may be replaced (by extensions and hooks together) before it is refused. */
declare const MAX_CALL_REPLACEMENTS = 4;

/** The name of the tool that ends a session's plan phase. */
declare const EXIT_PLAN_MODE = "exit_plan_mode";

/**
 * A session's policy from its options and its ceiling (the host's, or the parent's for a child):
 * never wider. Throws `CONFIG_INVALID` naming the field for a wider or unknown value.
 */
declare function narrowPolicy(ceiling: SessionPolicy, options: Pick<SessionOptions, 'sandbox' | 'approval' | 'surface'>, readOnlyStrict?: boolean): SessionPolicy;

/** A session id: `ses_` + random characters for new sessions; a chosen id is 1-80 of `[A-Za-z0-9_-]`. */
declare const SESSION_ID_PATTERN: RegExp;
/** Default retention of session directories: 7 days since their last activity. */
declare const DEFAULT_SESSION_MAX_AGE_MS: number;
/** Default disk budget of all session directories together: 2 GiB. */
declare const DEFAULT_SESSIONS_MAX_BYTES: number;

/** How deep subagents nest: a subagent (depth 1) may not start subagents of its own. */
declare const MAX_SUBAGENT_DEPTH = 1;

/** A `Subagent reference`: `sa_` + 24 lowercase hex characters (96 random bits). */
declare const SUBAGENT_REFERENCE_PATTERN: RegExp;

/**
 * How long an abortable tool may take to settle after its signal fired before the host reports
 * the timeout or abort without it. Its late result is then ignored (an abortable tool promises to
 * stop, so nothing it does afterwards is reported as the call's outcome).
 */
declare const ABORT_GRACE_MS = 500;
/** Options of {@link runTool}. */
interface RunToolOptions {
    readonly tool: AnyToolDefinition;
    readonly args: unknown;
    readonly callId: string;
    readonly invocation: ToolInvocation;
    /** Cancels the call (a batch or the whole host); reported as `ABORTED`. */
    readonly signal?: AbortSignal | undefined;
    /** Receives the tool's progress reports. */
    readonly onProgress?: ((progress: ToolProgress) => void) | undefined;
    /** The session the call belongs to (tools with per-agent state pick it by this). */
    readonly sessionId?: string | undefined;
    /** Who started the call's turn (the session tools' authority); absent means a person's turn. */
    readonly turn?: TurnOrigin | undefined;
    /** The paths the permission step resolved, handed to the handler (`ToolCallContext.resolvedPaths`). */
    readonly resolvedPaths?: readonly ResolvedToolPath[] | undefined;
    /** Overrides the tool's own `execution.timeoutMs`. */
    readonly timeoutMs?: number;
    /** Called with every handler promise still running after the call was reported (close() waits for them). */
    readonly onStraggler?: (settled: Promise<unknown>) => void;
}
/** What ran and how it ended. */
interface RunToolOutcome {
    readonly result: ToolResult;
    /** `timeout` / `aborted`: the host stopped the call; `completed`: the handler's own result. */
    readonly ending: 'completed' | 'timeout' | 'aborted';
    /** For a stopped non-abortable tool: whether its handler succeeded after all. */
    readonly lateOutcome?: 'succeeded' | 'failed';
}
/**
 * Runs one handler within its bounds. The handler always gets an abort signal; when the timeout
 * elapses or `signal` fires, the signal is fired and:
 * - an abortable tool has {@link ABORT_GRACE_MS} to settle, then `TIMEOUT` / `ABORTED` is reported
 *   whether or not it did (so the call ends promptly);
 * - a non-abortable tool is awaited to the end before `TIMEOUT` / `ABORTED` is reported, so a write
 *   never lands after the report; the report says whether it succeeded after all and carries its output.
 * A handler that throws yields its `ToolhostError` or `EXECUTION_ERROR`; a malformed result is
 * `EXECUTION_ERROR`. Never rejects.
 */
declare function runTool(options: RunToolOptions): Promise<RunToolOutcome>;

/** The user's configuration file inside {@link resolveUserConfigDir}. */
declare const USER_CONFIG_FILE_NAME = "config.json";
/** The trust store inside {@link resolveUserConfigDir}: project configurations the user approved. */
declare const TRUST_STORE_FILE_NAME = "trusted-projects.json";
/** Options of {@link resolveUserConfigDir}. */
interface UserConfigDirOptions {
    /** Default `process.env`. */
    readonly env?: Readonly<Record<string, string | undefined>>;
    /** Default `process.platform`. */
    readonly platform?: NodeJS.Platform;
    /** Default `os.homedir()`. */
    readonly home?: string;
}
/**
 * The directory that holds what belongs to the user and never to a project: the user's own
 * configuration, the project-trust store and MCP sign-ins (`mcp-oauth/`, `toolhost mcp login`).
 * `TOOLHOST_CONFIG_DIR` wins; then `%APPDATA%\toolhost` on Windows, `$XDG_CONFIG_HOME/toolhost`, else
 * `~/.config/toolhost`.
 */
declare function resolveUserConfigDir(options?: UserConfigDirOptions): string;
/** One approved project configuration: its real path and the SHA-256 of the bytes the user approved. */
interface ProjectTrustEntry {
    readonly sha256: string;
    readonly trustedAt: string;
}
/** SHA-256 (hex) of a configuration file's bytes, the identity trust is granted to. */
declare function configDigest(bytes: Uint8Array | string): string;
/**
 * Whether the user approved exactly these bytes of the project configuration at `file` (a real
 * path). Any change to the file ends the trust until it is approved again.
 */
declare function isProjectConfigTrusted(dir: string, file: string, sha256: string): boolean;
/** The approved entry for a project configuration, if any (its bytes may have changed since). */
declare function projectTrustEntry(dir: string, file: string): ProjectTrustEntry | undefined;
/**
 * Records (or with `sha256: null`, removes) the user's approval of a project configuration. The store
 * is written atomically (temporary file, fsync, rename) with mode 0600 in a 0700 directory.
 */
declare function writeProjectTrust(dir: string, file: string, sha256: string | null): void;

/** A sink that turns a host's audit events into OpenTelemetry spans (see {@link createToolTelemetry}). */
interface ToolTelemetry {
    /** Feed it every audit event (chain it with the host's `onAudit`). */
    readonly onAudit: (event: AuditEvent) => void;
    /** Ends open spans and flushes the exporter. Idempotent. */
    shutdown(): Promise<void>;
    /** The OTLP protocol in use. */
    readonly protocol: 'http/protobuf' | 'http/json';
}
/** Options of {@link createToolTelemetry}. */
interface ToolTelemetryOptions {
    /** The environment the standard `OTEL_*` variables are read from; default `process.env`. */
    readonly env?: Readonly<Record<string, string | undefined>>;
    /** `service.name` when `OTEL_SERVICE_NAME` is not set; default `toolhost`. */
    readonly serviceName?: string;
    readonly serviceVersion?: string;
    /** Where a one-line warning goes when the configuration cannot be honoured (default stderr). */
    readonly warn?: (message: string) => void;
}
/**
 * Traces tool calls with OpenTelemetry when, and only when, the standard variables ask for it:
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` set, `OTEL_SDK_DISABLED` not
 * `true` and `OTEL_TRACES_EXPORTER` not `none`. Otherwise it resolves to `undefined` and loads nothing.
 *
 * One `execute_tool <tool>` span per call (kind INTERNAL) with the GenAI semantic conventions:
 * `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, plus
 * `toolhost.session.id`, `toolhost.tool.source` and the capability id a call went through; its
 * events are validation, the permission decision and its source, approvals, hooks, the start of the
 * handler and result shaping; a failure sets the status to ERROR with `error.type` = the error code.
 * A call that carried a W3C `traceparent` (an MCP client's `_meta.traceparent`) is a child of that
 * trace. Spans are built from the host's audit events, which are value-free by construction, so no
 * argument value, file content or output ever reaches a span. `OTEL_EXPORTER_OTLP_PROTOCOL` (or the
 * traces one) picks `http/protobuf` (default) or `http/json`; `grpc` is not supported and falls back
 * to `http/protobuf` with a warning. Endpoint, headers and timeouts are the exporters' own variables.
 */
declare function createToolTelemetry(options?: ToolTelemetryOptions): Promise<ToolTelemetry | undefined>;

export { ABORT_GRACE_MS, type ApprovalAnswer, type ApprovalChoice, type ApprovalPolicy, type ApprovalRequest, type ApproveCallback, type AuditEvent, type AuditEventType, type AuditLog, type AuditLogOptions, type BatchResult, CONFIG_FILE_NAME, CONVERSATION_TOOLS, type ChildSessionOptions, type ConfigLayerReport, type ConfigRole, type ConfiguredHook, DEFAULT_HOOK_TIMEOUT_SECONDS, DEFAULT_MAX_PLAN_ENTRIES, DEFAULT_SESSIONS_MAX_BYTES, DEFAULT_SESSION_MAX_AGE_MS, type DispatchError, type DispatchOptions, type DispatchResult, EMPTY_HOST_CONFIG, EXIT_PLAN_MODE, EXTENSION_TIMEOUT_MS, type ExtensionAfterResult, type ExtensionCall, type ExtensionDecision, type ExtensionToolResponse, HOOK_EVENTS, type HookCommand, type HookEvent, type HookMatcher, type HookMatcherGroup, type HooksConfig, type Host, type HostConfig, type HostConfigDefaults, type HostConfigInput, type HostExtension, type HostOptions, type HostPlatform, type HostSnapshot, type IgnoredSetting, LEAN_SURFACE_TOOLS, MAX_CALL_REPLACEMENTS, MAX_CONFIG_BYTES, MAX_HOOK_REASON_BYTES, MAX_HOOK_TIMEOUT_SECONDS, MAX_MODEL_RESULT_BYTES, MAX_PARALLEL_CALLS, MAX_PLAN_ENTRIES_LIMIT, MAX_SUBAGENT_ANSWER_BYTES, MAX_SUBAGENT_DEPTH, MAX_SUBAGENT_STATE_BYTES, type PermissionDecision, type PermissionRequest, type PermissionRule, type PermissionRuleEffect, type PermissionRuleLists, type PermissionRuleMatch, type PermissionRules, type PermissionSource, type PermissionToolFacts, type ProjectTrustEntry, type ProviderTools, type ProviderToolsOptions, RESULT_BUDGETS, type ResolveHostConfigOptions, type ResolveShellSandboxOptions, type ResolvedHostConfig, type ResolvedPathTarget, type ResultStore, type RunToolOptions, type RunToolOutcome, SESSION_ID_PATTERN, SUBAGENT_REFERENCE_PATTERN, type SandboxConfig, type SandboxConfigInput, type SandboxMode, type SelectSurfaceOptions, type Session, type SessionGoal, type SessionJobRecord, type SessionOptions, type SessionPolicy, type SessionResultRecord, type SessionSnapshot, type ShapeResultOptions, type ShapedResultText, type ShellEnvironmentConfig, type ShellEnvironmentConfigInput, type ShellSandboxSettings, type StopRequest, type StoredResult, type StormBreaker, type StormBreakerOptions, type StormNotice, type StormOutcome, type SubagentRecord, type SubagentResume, type SubagentRunOutcome, type SubagentRunRequest, type SubagentRunner, type SurfaceProfile, TRUST_STORE_FILE_NAME, type ToolCall, type ToolTelemetry, type ToolTelemetryOptions, USER_CONFIG_FILE_NAME, USE_CAPABILITY, type UserConfigDirOptions, type WebFetchConfig, compileHookMatcher, configDigest, createAuditLog, createHost, createPermissionRules, createStormBreaker, createToolTelemetry, decidePermission, isProjectConfigTrusted, loadHostConfig, narrowPolicy, parseConfigText, parseHostConfig, parsePermissionRule, parseSandboxConfig, parseShellEnvironment, planDenial, projectTrustEntry, readConfigFile, resolveHostConfig, resolveShellSandbox, resolveUserConfigDir, runTool, sandboxDenial, selectSurface, sessionPrefixRule, shapeResultText, shellToolName, stormCategory, writeProjectTrust };
