/**
 * The closed set of error codes a tool call can fail with, with a one-line summary and the default
 * recovery advice for each. This object is the single source of the error-code table in the docs.
 *
 * `kind` groups codes for the storm breaker and for hosts:
 * - `invalid_call`: the call itself is malformed; fixing the call fixes it;
 * - `blocked`: policy refused the call; retrying the same call will not help;
 * - `state`: the world is not as the call assumed (file missing, stale, not unique ...);
 * - `execution`: the tool ran and failed, or was stopped;
 * - `host`: the host is misconfigured; the model cannot fix it.
 */
export const ERROR_CODES = {
  TOOL_NOT_FOUND: {
    kind: 'invalid_call',
    summary: 'No tool with that name is registered.',
    recovery: 'call one of the listed tools, or find one with use_capability(action="search")',
  },
  ARGUMENT_VALIDATION: {
    kind: 'invalid_call',
    summary: "The arguments do not match the tool's schema; nothing was executed.",
    recovery: 'fix the listed parameters and call again',
  },
  HOST_CONFIGURATION: {
    kind: 'host',
    summary: 'The host is misconfigured for this call (for example a built-in schema that does not compile).',
    recovery: 'report it; the host configuration must be fixed, not the call',
  },
  CONFIG_INVALID: {
    kind: 'host',
    summary: 'The configuration file or options are invalid.',
    recovery: 'fix the named field of the configuration',
  },
  PERMISSION_DENIED: {
    kind: 'blocked',
    summary: 'The run policy does not allow this call.',
    recovery: 'do not retry it; choose an action the run allows or explain what is needed',
  },
  APPROVAL_DENIED: {
    kind: 'blocked',
    summary: 'A person or a rule declined this call; the action was not performed.',
    recovery: 'do not retry the same call; take a different approach or explain what you need',
  },
  APPROVAL_REQUIRED: {
    kind: 'blocked',
    summary: 'This call needs approval and no one can be asked in this run.',
    recovery: 'do not retry it; choose an action that needs no approval or explain what is needed',
  },
  PATH_INVALID: {
    kind: 'invalid_call',
    summary: 'The path is not usable (empty, a NUL byte, too long, or a symlink loop).',
    recovery: 'pass a plain path relative to the project root',
  },
  PATH_OUTSIDE_ROOT: {
    kind: 'blocked',
    summary: 'The path resolves outside every root this run may access.',
    recovery: 'use a path inside the project root',
  },
  PATH_PROTECTED: {
    kind: 'blocked',
    summary: 'The path is protected (for example .git, the state directory, or a secret file).',
    recovery: 'do not touch this path; choose another target',
  },
  FS_NOT_FOUND: {
    kind: 'state',
    summary: 'The file or directory does not exist.',
    recovery: 'check the path with ls or glob',
  },
  FS_NOT_OBSERVED: {
    kind: 'state',
    summary: 'The file has not been observed in this session, so it cannot be modified yet.',
    recovery: 'read any window of the file with read_file, then retry',
  },
  FS_STALE_VERSION: {
    kind: 'state',
    summary: 'The file changed since it was last observed.',
    recovery: 'read it again, then retry',
  },
  FS_ALREADY_EXISTS: {
    kind: 'state',
    summary: 'The target already exists and will not be replaced.',
    recovery: 'read it before deciding whether to replace it, or choose another path',
  },
  FS_ACCESS_DENIED: {
    kind: 'execution',
    summary: 'The operating system refused access to the file.',
    recovery: 'choose a file this user can access',
  },
  NOT_A_FILE: {
    kind: 'state',
    summary: 'The path is not a regular file.',
    recovery: 'use ls for directories',
  },
  NOT_A_DIRECTORY: {
    kind: 'state',
    summary: 'The path is not a directory.',
    recovery: 'use read_file for files',
  },
  FILE_BINARY: {
    kind: 'state',
    summary: 'The file is binary, not text.',
    recovery: 'inspect it with a binary-aware command instead',
  },
  FILE_TOO_LARGE: {
    kind: 'state',
    summary: 'The file or one of its lines is larger than the tool allows.',
    recovery: 'read a narrower window or use a command that streams it',
  },
  FILE_UNSUPPORTED: {
    kind: 'state',
    summary: 'The file type is not supported by this tool.',
    recovery: 'use a tool that handles this type',
  },
  EDIT_NOT_FOUND: {
    kind: 'state',
    summary: 'The text to replace was not found in the file.',
    recovery: 're-read the current file before retrying',
  },
  EDIT_NOT_UNIQUE: {
    kind: 'state',
    summary: 'The text to replace occurs more than once.',
    recovery: 'add nearby unique lines to old_string',
  },
  EDIT_INVALID: {
    kind: 'state',
    summary: 'The edit cannot be applied as described (for example anchors in the wrong order).',
    recovery: 'correct the edit description and retry',
  },
  COMMAND_FAILED: {
    kind: 'execution',
    summary: 'The command exited with a non-zero status; its output is included.',
    recovery: 'read the output, fix the cause, then run it again',
  },
  TIMEOUT: {
    kind: 'execution',
    summary: 'The call did not finish in time and was stopped.',
    recovery: 'narrow the work, raise the timeout within its limit, or run it in the background',
  },
  ABORTED: {
    kind: 'execution',
    summary: 'The call was cancelled before it finished.',
    recovery: 'retry only if the work is still wanted',
  },
  EXECUTION_ERROR: {
    kind: 'execution',
    summary: 'The tool failed while running.',
    recovery: 'read the cause; retry with different arguments or another approach',
  },
  SANDBOX_UNAVAILABLE: {
    kind: 'host',
    summary: 'No operating-system sandbox is available, so the command was not run.',
    recovery:
      'ask the user to run `toolhost doctor`, which names what is missing here and the command that installs it (bubblewrap on Linux), or to run with danger_full_access',
  },
  JOB_NOT_FOUND: {
    kind: 'state',
    summary: 'No background job has that id.',
    recovery: 'use the id returned when the job was started',
  },
  JOB_LIMIT_REACHED: {
    kind: 'state',
    summary: 'Too many jobs are running.',
    recovery: 'wait for or kill a running job first',
  },
  CAPABILITY_RESOLUTION_FAILED: {
    kind: 'invalid_call',
    summary: 'The capability id does not name exactly one capability.',
    recovery: 'retry with one of the listed candidates',
  },
  CAPABILITY_UNAVAILABLE: {
    kind: 'blocked',
    summary: 'The capability exists but is disabled, unconfigured or not allowed.',
    recovery: 'choose another capability',
  },
  MCP_CONNECT_FAILED: {
    kind: 'execution',
    summary: 'The MCP server could not be started or did not complete its handshake.',
    recovery: 'retry later or choose another capability',
  },
  MCP_CALL_FAILED: {
    kind: 'execution',
    summary: 'The MCP server failed to answer the call.',
    recovery: 'retry later or choose another capability',
  },
  MCP_AUTH_REQUIRED: {
    kind: 'blocked',
    summary:
      'The MCP server needs the user to sign in (OAuth), and there is no usable sign-in; nothing was sent to the tool.',
    recovery:
      'ask the user to run `toolhost mcp login <server>`, then call again; retrying before that fails the same way',
  },
  RESULT_NOT_FOUND: {
    kind: 'state',
    summary: 'No stored tool result matches that reference.',
    recovery: 'use the tool_call_id and result_ref from the truncation marker',
  },
  RESULT_RANGE_INVALID: {
    kind: 'invalid_call',
    summary: 'The requested page of a stored result is out of range.',
    recovery: 'use the next_offset from the previous page',
  },
  PROVIDER_ERROR: {
    kind: 'execution',
    summary: 'The model provider returned an error.',
    recovery: 'check the provider configuration and retry',
  },
  SESSION_LINE_INVALID: {
    kind: 'invalid_call',
    summary: 'A `toolhost session` input line is not a call or a batch (not JSON, or no tool name).',
    recovery: 'send one JSON object per line: {"id","name","arguments"} or {"batch":[calls...]}',
  },
  SESSION_NOT_FOUND: {
    kind: 'state',
    summary:
      'No session with that id exists in this project (never created, closed without state, or pruned).',
    recovery: 'start a new session, or pass the id of an existing one',
  },
  SESSION_IN_USE: {
    kind: 'state',
    summary: 'The session is open in another running host.',
    recovery: 'close that host first, or start a new session',
  },
  DISK_FULL: {
    kind: 'host',
    summary:
      'The disk, or a disk budget of the host, is full (ENOSPC, EDQUOT or a configured limit): the write did not happen and nothing was left half-written.',
    recovery: 'free disk space or raise the budget; retrying at once will fail the same way',
  },
  FS_LOCKED: {
    kind: 'state',
    summary: 'Another toolhost process is modifying this file and did not finish within the lock timeout.',
    recovery: 'retry shortly; if it keeps failing, look for a stuck toolhost process',
  },
  FETCH_BLOCKED: {
    kind: 'blocked',
    summary:
      'web_fetch refused the URL before connecting: a scheme other than http/https, or a host that is or resolves to a loopback, private, link-local, shared, multicast or metadata address.',
    recovery:
      'fetch a public http(s) URL; to reach a local or private server, a person must list its host in webFetch.allowHosts or set webFetch.allowPrivateNetwork',
  },
  FETCH_FAILED: {
    kind: 'execution',
    summary:
      'web_fetch could not get a usable page: the name did not resolve, the connection or TLS failed, the server answered an error status or a content type that is not text, HTML, JSON or Markdown, or there were too many redirects.',
    recovery: 'check the URL; retry later if the server was unreachable',
  },
  SYMBOL_NOT_FOUND: {
    kind: 'state',
    summary: 'No definition of that name (and kind) exists in the file or the index.',
    recovery:
      'use one of the close names listed, or look the symbol up with code_index(action="outline") first',
  },
  SYMBOL_AMBIGUOUS: {
    kind: 'state',
    summary: 'Several definitions match that name; nothing was changed.',
    recovery:
      'qualify the name (Type.Method), pass kind, or delete one of the listed line ranges with delete_range',
  },
  NOTEBOOK_INVALID: {
    kind: 'state',
    summary:
      'The file is not a valid Jupyter notebook (nbformat 4 JSON), or the requested cell does not exist; nothing was written.',
    recovery: 'read the notebook with read_file to see its cells, numbers and ids, then retry',
  },
  SANDBOX_PLAN_INCOMPLETE: {
    kind: 'host',
    summary:
      'The sandbox could not finish listing the protected and secret paths of the roots, so the command was not run.',
    recovery:
      'ask the user to raise the sandbox entry limit or to make large directories that commands do not need secret paths (hidden and not searched); or work in a smaller root',
  },
  SUBAGENT_NOT_FOUND: {
    kind: 'state',
    summary:
      "No subagent result with that reference exists in this session's lineage and project (never created here, another session's or project's, or pruned), or it cannot be continued.",
    recovery:
      'use a Subagent reference (sa_...) that a task or parallel_tasks result of this session gave, or start a new task',
  },
  GOAL_CONFLICT: {
    kind: 'state',
    summary:
      "The session's goal does not allow this: an unfinished goal exists already (create_goal never replaces one), or the goal's status does not allow the action.",
    recovery:
      'read the goal with get_goal; finish or block the open goal first, or choose an action its status allows',
  },
  GOAL_NOT_FOUND: {
    kind: 'state',
    summary: 'The session has no goal with that id.',
    recovery: 'read the current goal and its id with get_goal',
  },
  GOAL_REVISION_MISMATCH: {
    kind: 'state',
    summary: 'The goal changed since that revision was read; nothing was updated.',
    recovery: 'read the goal again with get_goal and retry with its current revision',
  },
  COMPRESS_RANGE_INVALID: {
    kind: 'invalid_call',
    summary:
      'The compress anchor is not an exact excerpt that occurs exactly once across the real user messages, or the range it selects is empty; nothing was compressed.',
    recovery: 'copy a longer, unique excerpt of one user message as anchor, or choose the other direction',
  },
  HOOK_BLOCKED: {
    kind: 'blocked',
    summary: 'A configured hook or a host extension refused this call; the action was not performed.',
    recovery: "read the hook's reason, then change the call to satisfy it or explain what you need",
  },
  PLAN_NOT_APPROVED: {
    kind: 'blocked',
    summary:
      'The session is in its plan phase: editing tools and tools that write or delete are refused until a person approves the plan.',
    recovery: 'keep exploring read-only, then call exit_plan_mode with your plan and wait for its approval',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** What the error-code table says about one code. */
export interface ErrorCodeInfo {
  readonly kind: ErrorKind;
  readonly summary: string;
  readonly recovery: string;
}

/** The five kinds of failure, see {@link ERROR_CODES}. */
export type ErrorKind = 'invalid_call' | 'blocked' | 'state' | 'execution' | 'host';

/** One of the closed set of error codes. */
export type ErrorCode = keyof typeof ERROR_CODES;

const errorCodeSet: ReadonlySet<string> = new Set(Object.keys(ERROR_CODES));

/** Whether a string is one of the closed set of error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && errorCodeSet.has(value);
}

/** Structured, value-free facts about a failure (never file contents or argument values). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/** Options of {@link ToolhostError}. */
export interface ToolhostErrorOptions<C extends ErrorCode = ErrorCode> {
  readonly code: C;
  /** What failed and the rule, without argument values or file contents. */
  readonly message: string;
  /** The remedy; defaults to the code's recovery from {@link ERROR_CODES}. `null` prints none. */
  readonly recovery?: string | null;
  readonly details?: ErrorDetails;
  /** A stable machine signature the storm breaker compares (for example an `argument_validation:` id). */
  readonly signature?: string;
  readonly cause?: unknown;
}

const brand = Symbol.for('toolhost.error');

/**
 * The one error type of toolhost: a closed-set `code`, a value-free `message`, a `recovery`, typed
 * `details` and an optional `cause`. The model sees {@link ToolhostError.toModelText}:
 * `CODE: cause; recovery`.
 *
 * `ToolhostError.isInstance` recognises errors from any installed copy of this package (the brand is
 * a `Symbol.for` key), so two versions in one process still agree.
 */
export class ToolhostError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly recovery: string | undefined;
  readonly details: ErrorDetails;
  readonly signature: string | undefined;
  declare readonly [brand]: true;

  constructor(options: ToolhostErrorOptions<C>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolhostError';
    this.code = options.code;
    this.recovery =
      options.recovery === null ? undefined : (options.recovery ?? ERROR_CODES[options.code].recovery);
    this.details = options.details ?? {};
    this.signature = options.signature;
    Object.defineProperty(this, brand, { value: true, enumerable: false });
  }

  /** Whether `value` is a toolhost error, from this copy of the package or another one. */
  static isInstance(value: unknown): value is ToolhostError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }

  /** The text the model sees: `CODE: cause; recovery`. */
  toModelText(): string {
    return this.recovery
      ? `${this.code}: ${this.message}; ${this.recovery}`
      : `${this.code}: ${this.message}`;
  }

  /** The wire form: `{ code, message, details }`, where `message` is the model text without the code. */
  toJSON(): { code: C; message: string; details: ErrorDetails } {
    const message = this.recovery ? `${this.message}; ${this.recovery}` : this.message;
    return { code: this.code, message, details: this.details };
  }
}

/**
 * Normalises anything thrown at a boundary into a {@link ToolhostError}, keeping the original as
 * `cause`. A toolhost error passes through unchanged; anything else gets `fallbackCode`
 * (default `EXECUTION_ERROR`) and the thrown error's message.
 */
export function toToolhostError(error: unknown, fallbackCode: ErrorCode = 'EXECUTION_ERROR'): ToolhostError {
  if (ToolhostError.isInstance(error)) return error;
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown failure';
  return new ToolhostError({ code: fallbackCode, message: message || 'unknown failure', cause: error });
}
