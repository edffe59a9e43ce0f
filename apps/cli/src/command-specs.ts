import type { CommandHandler } from './command-types.js';

/** One option of a command, as `node:util` `parseArgs` takes it plus its help text. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The option may be given several times (its value is then a list). */
  readonly multiple?: boolean;
  /** The placeholder shown in help (`DIR`, `PORT` ...), for string options. */
  readonly valueName?: string;
  readonly description: string;
}

/** A command: its help text, its options and how to load its (possibly heavy) handler. */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  /** Usage lines without the leading `toolhost `. */
  readonly usage: readonly string[];
  readonly description: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** How many positional arguments it takes. */
  readonly positionals: { readonly min: number; readonly max: number; readonly names: string };
  /** Imports the handler lazily, so `toolhost tools` never loads the MCP SDK or the agent loop. */
  readonly load: () => Promise<CommandHandler>;
}

/** The four provider wire formats (kept here so parsing flags loads no dialect code). */
export const DIALECTS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'] as const;
/** The sandbox axis of the run policy. */
export const SANDBOXES = ['read_only', 'workspace_write', 'danger_full_access'] as const;
/** The approval axis of the run policy. */
export const APPROVALS = ['strict', 'on_request', 'never'] as const;
/** The surface profiles. */
export const SURFACES = ['lean', 'full'] as const;
/** The providers `run` can talk to. */
export const PROVIDERS = ['openai', 'openai-compatible', 'anthropic', 'gemini'] as const;

/** The options every command takes (DESIGN.md: the run policy and where the project is). */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  root: {
    type: 'string',
    valueName: 'DIR',
    description: 'the project root (default: the current directory)',
  },
  sandbox: {
    type: 'string',
    valueName: 'MODE',
    description: `${SANDBOXES.join(' | ')} (default: the configuration's, else read_only)`,
  },
  approval: {
    type: 'string',
    valueName: 'POLICY',
    description: `${APPROVALS.join(' | ')} (default: the configuration's, else on_request)`,
  },
  surface: {
    type: 'string',
    valueName: 'PROFILE',
    description: `${SURFACES.join(' | ')}: which tools the provider sees (default: lean)`,
  },
  config: {
    type: 'string',
    valueName: 'FILE',
    description: 'the configuration file (default: <root>/toolhost.config.json when present)',
  },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** `--network`: shell commands get the host's network in `workspace_write` (the config's `sandbox.network`). */
const networkOption: OptionSpec = {
  type: 'boolean',
  description:
    "give shell commands the host's network in workspace_write (never in read_only; default: the configuration's sandbox.network, else off)",
};

const dialectOption: OptionSpec = {
  type: 'string',
  valueName: 'DIALECT',
  description: DIALECTS.join(' | '),
};

/** Every command, in the order help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'tools',
    summary: 'print the provider-visible tool surface and its fingerprint',
    usage: ['tools [--dialect DIALECT] [--json]'],
    description:
      'Prints the tool surface the run policy gives the model. With --dialect, the list is compiled for that ' +
      "provider (what it receives as `tools`) and the compiler's lossy steps are listed; without it, the " +
      'provider-neutral list. --json prints { "dialect", "fingerprint", "tools" }, where the fingerprint is ' +
      'the first 16 hex characters of SHA-256 of the JSON of `tools`; the output is byte-identical across runs.',
    options: {
      dialect: dialectOption,
      json: { type: 'boolean', description: 'print JSON for programs' },
    },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/tools-command.js').then((module) => module.toolsCommand),
  },
  {
    name: 'compile',
    summary: 'compile a neutral tool list from stdin for one provider',
    usage: ['compile --dialect DIALECT [--strict] < tools.json'],
    description:
      'Reads a JSON array of { name, description, inputSchema } on stdin and prints { tools, nameMap, report }: ' +
      'the wire tools, the neutral/wire name map, and every lossy step per tool and schema path. ' +
      '--strict compiles OpenAI tools in strict mode (tools strict mode cannot express fall back, reported).',
    options: {
      dialect: { ...dialectOption, description: `${DIALECTS.join(' | ')} (required)` },
      strict: { type: 'boolean', description: 'OpenAI strict mode for every tool' },
    },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/compile-command.js').then((module) => module.compileCommand),
  },
  {
    name: 'call',
    summary: 'run one tool call through the whole pipeline',
    usage: ['call NAME [JSON] [--json]'],
    description:
      'Resolves, validates, checks and runs one call, then prints exactly what the model would see. ' +
      'JSON is the arguments object (default {}). Exit code 1 when the call fails. --json prints the ' +
      'result as a session line. On a terminal, calls that need approval ask you.',
    options: {
      json: { type: 'boolean', description: 'print the result as a session line' },
      network: networkOption,
    },
    positionals: { min: 1, max: 2, names: 'NAME [JSON]' },
    load: () => import('./commands/call-command.js').then((module) => module.callCommand),
  },
  {
    name: 'session',
    summary: 'JSON Lines on stdin/stdout through one host',
    usage: ['session [--session-id ID | --resume ID] [--drain-ms MS] [--plan] < calls.jsonl'],
    description:
      'One session of one host for the whole stream and one output line per input line, flushed at once, in ' +
      'input order. Input: {"id","name","arguments"} (arguments an object or a JSON string) or ' +
      '{"batch":[calls...]} (one assistant turn, at most 128 calls). Output: ' +
      '{"id","name","status","output","error","resultRef"} or {"batch":[results...],"notice"}; "notice" ' +
      'appears when the storm breaker speaks. A malformed line, or one over 4 MiB, gets an error line ' +
      '(SESSION_LINE_INVALID). End of input ends the session: the lines already read are answered, calls ' +
      'still running --drain-ms later are cancelled (ABORTED), and the host closes: jobs and servers end. ' +
      'Nobody can be asked for approval, so calls that need it fail closed (APPROVAL_REQUIRED). Each run is ' +
      'its own agent session (its id goes to stderr): its file observations, jobs and stored results are ' +
      'its own, kept under <root>/.toolhost/sessions/<id>/; --resume ID continues one.',
    options: {
      'session-id': {
        type: 'string',
        valueName: 'ID',
        description: 'start a new session with this id (letters, digits, _ and -)',
      },
      resume: { type: 'string', valueName: 'ID', description: 'continue the session with this id' },
      plan: {
        type: 'boolean',
        description: 'start in plan mode: read-only until a person approves a plan through exit_plan_mode',
      },
      'drain-ms': {
        type: 'string',
        valueName: 'MS',
        description: 'how long calls may still run after the end of input (default: 10000)',
      },
      network: networkOption,
    },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/session-command.js').then((module) => module.sessionCommand),
  },
  {
    name: 'serve',
    summary: 'the same surface as an MCP server (stdio, or Streamable HTTP)',
    usage: ['serve [--plan]', 'serve --http PORT [--plan]'],
    description:
      'Serves the provider surface over MCP: stdio by default; with --http, Streamable HTTP at ' +
      'http://127.0.0.1:PORT/mcp (PORT 0 picks a free port; the URL is printed on stderr). HTTP requests ' +
      'whose Host or Origin is not this loopback server are refused (DNS rebinding). Annotations become MCP ' +
      'hints, long calls report progress, cancellation stops the call, and shutting down ends jobs and servers. ' +
      'A call that needs approval is asked of the client with elicitation/create when it supports it (allow ' +
      'once, allow for this session, deny); without it the call fails closed naming the rule or flag that allows it.',
    options: {
      plan: {
        type: 'boolean',
        description: 'start in plan mode: read-only until a person approves a plan through exit_plan_mode',
      },
      http: { type: 'string', valueName: 'PORT', description: 'serve Streamable HTTP on 127.0.0.1:PORT' },
      'allow-origin': {
        type: 'string',
        multiple: true,
        valueName: 'ORIGIN',
        description:
          'with --http, also accept requests from this loopback origin (http://localhost:5173; repeatable)',
      },
      network: networkOption,
    },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/serve-command.js').then((module) => module.serveCommand),
  },
  {
    name: 'run',
    summary: 'the reference agent loop against a model provider',
    usage: [
      'run [TASK] [--provider PROVIDER] [--model MODEL] [--base-url URL]',
      '    [--dialect DIALECT] [--max-rounds N] [--transcript FILE] [--json] [--plan]',
      '    [--planner] [--subagent-model MODEL] [--subagent-max-rounds N]',
    ],
    description:
      'Runs the agent loop: the model proposes tool calls, the host decides and runs them (parallel calls ' +
      'as one batch), until the model answers. The default task explores the project read-only and ' +
      'summarises it. Keys come from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY; ' +
      '--provider openai-compatible with --base-url talks to a local server. The answer streams to stdout, ' +
      'steps to stderr. Ctrl-C stops the running tools (and the subagents they run) first, the run second. A ' +
      'JSONL transcript is kept under <state dir>/runs/ (or --transcript FILE); `toolhost replay` re-runs it. ' +
      'The model may delegate to subagents (tool:task, tool:parallel_tasks, tool:read_subagent_result): each runs ' +
      'in its own child session with the same provider and its own transcript under <state dir>/runs/. With ' +
      '--planner a read-only planning session (its own ledger, refused writes and destructive MCP tools) answers ' +
      'first with a plan, which the executor session then carries out; its transcript is FILE.planner.jsonl.',
    options: {
      provider: { type: 'string', valueName: 'PROVIDER', description: PROVIDERS.join(' | ') },
      model: { type: 'string', valueName: 'MODEL', description: 'the model id (default per provider)' },
      'base-url': {
        type: 'string',
        valueName: 'URL',
        description: 'the API base URL (required for openai-compatible)',
      },
      dialect: {
        type: 'string',
        valueName: 'DIALECT',
        description: 'wire format for openai providers: openai-chat | openai-responses',
      },
      'max-rounds': { type: 'string', valueName: 'N', description: 'stop after N model rounds (default 40)' },
      transcript: { type: 'string', valueName: 'FILE', description: 'write the JSONL transcript here' },
      json: { type: 'boolean', description: 'print events as JSON Lines on stdout' },
      network: networkOption,
      planner: {
        type: 'boolean',
        description: 'plan first in a read-only planning session, then execute the plan',
      },
      'subagent-model': {
        type: 'string',
        valueName: 'MODEL',
        description: 'the model of subagents (default: --model)',
      },
      'subagent-max-rounds': {
        type: 'string',
        valueName: 'N',
        description:
          "a subagent's step limit; past it the subagent is partial and retryable (default: --max-rounds)",
      },
      plan: {
        type: 'boolean',
        description: 'start in plan mode: read-only until a person approves a plan through exit_plan_mode',
      },
    },
    positionals: { min: 0, max: 1, names: '[TASK]' },
    load: () => import('./commands/run-command.js').then((module) => module.runCommand),
  },
  {
    name: 'trust',
    summary: "approve the project's toolhost.config.json as it is now",
    usage: ['trust [--status] [--revoke] [--json]'],
    description:
      'A project configuration is data the model or a cloned repository may have written, so until you ' +
      'approve it, it can only narrow the policy: a wider default sandbox or approval, extra roots, allow ' +
      'rules, exceptions to protected or secret paths and an audit path are not applied, and starting one ' +
      'of its MCP servers asks you. `trust` approves the file as its bytes are now (any change ends the ' +
      'approval) and says what it may now widen; --status only reports, --revoke withdraws. Approvals ' +
      'are kept in the user configuration directory (TOOLHOST_CONFIG_DIR, else $XDG_CONFIG_HOME/toolhost ' +
      'or ~/.config/toolhost), never in the project.',
    options: {
      status: { type: 'boolean', description: 'report whether the file is approved, change nothing' },
      revoke: { type: 'boolean', description: 'withdraw the approval' },
      json: { type: 'boolean', description: 'print JSON for programs' },
    },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/trust-command.js').then((module) => module.trustCommand),
  },
  {
    name: 'mcp',
    summary: 'sign in to HTTP MCP servers (OAuth) and list the configured servers',
    usage: ['mcp list [--json]', 'mcp login SERVER [--timeout SECONDS] [--no-browser]', 'mcp logout SERVER'],
    description:
      'Remote MCP servers that require OAuth 2.1 fail their calls with MCP_AUTH_REQUIRED until you sign in. ' +
      "`login` discovers the server's authorization server, registers toolhost with it, prints the " +
      'authorization URL (and opens it when stdout is a terminal and a browser exists), waits on a loopback ' +
      'redirect (http://127.0.0.1:<random port>/callback, up to --timeout seconds, default 300) and stores the ' +
      'tokens; calls then use them and refresh them without asking. Tokens are kept per server URL in ' +
      '<user config dir>/mcp-oauth/ (TOOLHOST_CONFIG_DIR, else $XDG_CONFIG_HOME/toolhost or ' +
      '~/.config/toolhost), mode 0600, never in the project, the audit log or a child process. `logout` deletes ' +
      'them; `list` prints each configured server with its transport and sign-in status (never a token). ' +
      'Exit code 1 when the sign-in fails or times out.',
    options: {
      timeout: {
        type: 'string',
        valueName: 'SECONDS',
        description: 'with login: how long to wait for the browser (1..3600, default 300)',
      },
      'no-browser': { type: 'boolean', description: 'with login: only print the URL' },
      json: { type: 'boolean', description: 'with list: print JSON for programs' },
    },
    positionals: { min: 1, max: 2, names: 'list | login SERVER | logout SERVER' },
    load: () => import('./commands/mcp-command.js').then((module) => module.mcpCommand),
  },
  {
    name: 'replay',
    summary: "re-run a transcript's tool calls under the current policy",
    usage: ['replay FILE.jsonl [--json]'],
    description:
      'Reads a transcript written by `toolhost run`, re-runs every recorded tool call through a fresh host ' +
      'under the current policy (batches as batches, in order) and reports per call whether the outcome ' +
      '(ok, or the error code) changed, and whether the output text differs. Exit code 1 when any outcome ' +
      'changed.',
    options: { json: { type: 'boolean', description: 'print one JSON line per call and a summary line' } },
    positionals: { min: 1, max: 1, names: 'FILE' },
    load: () => import('./commands/replay-command.js').then((module) => module.replayCommand),
  },
  {
    name: 'doctor',
    summary: 'what this machine is missing for toolhost, and how to install it',
    usage: ['doctor [--json]'],
    description:
      'Checks what toolhost uses here: the Node version, git, ripgrep (grep is slower without it) and the ' +
      'shell sandbox (on Linux, whether bubblewrap is installed and whether it can build a sandbox on this ' +
      'machine; on macOS, Seatbelt). Each missing or failing check names the command that installs or ' +
      "repairs it with this machine's package manager. Exit code 0 when everything toolhost needs works, " +
      '1 otherwise. --json prints { ok, platform, packageManager, checks, installAll }.',
    options: { json: { type: 'boolean', description: 'print JSON for programs' } },
    positionals: { min: 0, max: 0, names: '' },
    load: () => import('./commands/doctor-command.js').then((module) => module.doctorCommand),
  },
];

/** Finds a command by name. */
export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((command) => command.name === name);
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const rows = Object.entries(options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.valueName ? ` ${option.valueName}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

function wrap(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The help text of one command. */
export function commandHelp(command: CommandSpec): string {
  return [
    `Usage: ${command.usage.map((line, index) => (index === 0 ? `toolhost ${line}` : `       toolhost ${line}`)).join('\n')}`,
    '',
    ...wrap(command.description),
    ...(Object.keys(command.options).length > 0 ? ['', 'Options:', ...optionLines(command.options)] : []),
    '',
    'Run policy (every command):',
    ...optionLines(GLOBAL_OPTIONS),
    '',
  ].join('\n');
}

/** The top-level help text. */
export function mainHelp(version: string): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    `toolhost ${version}: the host side of a coding agent's tool calls`,
    '',
    'Usage: toolhost <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Run policy (every command):',
    ...optionLines(GLOBAL_OPTIONS),
    '      --version          print the version',
    '',
    'Exit codes: 0 success, 1 a tool or provider error, 2 a usage or configuration error.',
    'Run `toolhost <command> --help` for a command.',
    '',
  ].join('\n');
}
