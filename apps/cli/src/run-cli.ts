import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '@toolhost/contracts';
import packageJson from '../package.json' with { type: 'json' };
import { CliError, EXIT_CODES, oneLine, usageError } from './cli-error.js';
import {
  APPROVALS,
  COMMANDS,
  type CommandSpec,
  commandHelp,
  findCommand,
  GLOBAL_OPTIONS,
  mainHelp,
  SANDBOXES,
  SURFACES,
} from './command-specs.js';
import type { CliIo, GlobalOptions } from './command-types.js';

/** The package version, as `toolhost --version` prints it. */
export const VERSION: string = packageJson.version;

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The streams and environment; default the process's. */
  readonly io?: CliIo;
  /**
   * Listen to SIGINT and SIGTERM while the command runs (default true when `io` is the process's).
   * A third interrupt exits the process at once with code 130.
   */
  readonly handleSignals?: boolean;
}

const GLOBAL_VALUE_FLAGS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => `--${name}`),
);

function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Finds the command word: the first argument that is neither an option nor a global option's value. */
function splitCommand(argv: readonly string[]): { command: string | undefined; rest: string[] } {
  for (let index = 0; index < argv.length; index += 1) {
    const token = argv[index]!;
    if (token === '--') break;
    if (token.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(token)) index += 1;
      continue;
    }
    return { command: token, rest: [...argv.slice(0, index), ...argv.slice(index + 1)] };
  }
  return { command: undefined, rest: [...argv] };
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw usageError(`--${flag} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function globalsFrom(values: Record<string, unknown>, cwd: string): GlobalOptions {
  const text = (name: string) => {
    const value = values[name];
    if (value === '') throw usageError(`--${name} needs a value`);
    return typeof value === 'string' ? value : undefined;
  };
  const rootFlag = text('root');
  const root = resolve(cwd, rootFlag ?? '.');
  const config = text('config');
  return {
    root,
    rootGiven: rootFlag !== undefined,
    sandbox: oneOf('sandbox', text('sandbox'), SANDBOXES),
    approval: oneOf('approval', text('approval'), APPROVALS),
    surface: oneOf('surface', text('surface'), SURFACES),
    // A relative --config is relative to the working directory, like every other path on the command line.
    config: config === undefined ? undefined : resolve(cwd, config),
  };
}

function parseCommandArgs(spec: CommandSpec, args: readonly string[]) {
  const options = { ...GLOBAL_OPTIONS, ...spec.options };
  try {
    return parseArgs({
      args: [...args],
      options: Object.fromEntries(
        Object.entries(options).map(([name, option]) => [
          name,
          {
            type: option.type,
            ...(option.short ? { short: option.short } : {}),
            ...(option.multiple ? { multiple: true } : {}),
          },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs messages are already one line and name the flag ("Unknown option '--x'").
    throw usageError(`${errorMessage(error)} (see toolhost ${spec.name} --help)`);
  }
}

/**
 * Runs the `toolhost` command line and resolves to its exit code (it never calls `process.exit`
 * itself, except on a third interrupt). Usage and configuration errors print a one-line reason
 * (`toolhost: ...`) on stderr and resolve to 2; tool and provider failures resolve to 1. Command
 * handlers are imported only when their command runs, so `toolhost tools` never loads the MCP SDK
 * or the agent loop.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<number> {
  const io = options.io ?? processIo();
  const { command: commandName, rest } = splitCommand(argv);
  try {
    if (commandName === undefined || commandName === 'help') {
      if (rest.includes('--version')) {
        io.stdout.write(`${VERSION}\n`);
        return EXIT_CODES.success;
      }
      const topic = commandName === 'help' ? rest.find((token) => !token.startsWith('-')) : undefined;
      if (topic !== undefined) {
        const spec = findCommand(topic);
        if (!spec)
          throw usageError(`unknown command '${topic}'; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
        io.stdout.write(commandHelp(spec));
        return EXIT_CODES.success;
      }
      const asked = commandName === 'help' || rest.includes('--help') || rest.includes('-h');
      (asked ? io.stdout : io.stderr).write(mainHelp(VERSION));
      return asked ? EXIT_CODES.success : EXIT_CODES.usage;
    }
    const spec = findCommand(commandName);
    if (!spec) {
      throw usageError(
        `unknown command '${commandName}'; commands: ${COMMANDS.map((command) => command.name).join(', ')}`,
      );
    }
    const parsed = parseCommandArgs(spec, rest);
    if (parsed.values.help === true) {
      io.stdout.write(commandHelp(spec));
      return EXIT_CODES.success;
    }
    const { positionals } = parsed;
    if (positionals.length < spec.positionals.min || positionals.length > spec.positionals.max) {
      throw usageError(
        spec.positionals.max === 0
          ? `${spec.name} takes no arguments (see toolhost ${spec.name} --help)`
          : `${spec.name} takes ${spec.positionals.names} (see toolhost ${spec.name} --help)`,
      );
    }
    const globals = globalsFrom(parsed.values, io.cwd);
    const values: Record<string, string | boolean | readonly string[] | undefined> = {};
    for (const name of Object.keys(spec.options))
      values[name] = parsed.values[name] as string | boolean | readonly string[] | undefined;
    const handler = await spec.load();
    return await withInterrupts(options.handleSignals ?? options.io === undefined, (signal, onInterrupt) =>
      handler({ globals, values, positionals, io, signal, onInterrupt }),
    );
  } catch (error) {
    if (CliError.isInstance(error)) {
      io.stderr.write(`toolhost: ${oneLine(error.message)}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr.write(`toolhost: unexpected failure: ${message}\n`);
    return EXIT_CODES.failure;
  }
}

async function withInterrupts<T>(
  enabled: boolean,
  body: (signal: AbortSignal, onInterrupt: (handler: (count: number) => void) => void) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let handler: ((count: number) => void) | undefined;
  let count = 0;
  const listener = (signalName: NodeJS.Signals) => {
    count += 1;
    if (count >= 3) process.exit(EXIT_CODES.interrupted);
    if (handler) handler(count);
    else controller.abort(new CliError(`interrupted (${signalName})`, EXIT_CODES.interrupted));
  };
  // A reader that goes away (`toolhost session | head -1`) ends the command the way SIGTERM does,
  // so hosts still close and jobs still end, instead of an unhandled EPIPE crash.
  let readerGone = false;
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' || readerGone) return;
    readerGone = true;
    controller.abort(new CliError('stdout was closed by its reader', EXIT_CODES.interrupted));
  };
  if (enabled) {
    process.on('SIGINT', listener);
    process.on('SIGTERM', listener);
    process.stdout.on('error', onStdoutError);
  }
  try {
    return await body(controller.signal, (next) => {
      handler = next;
    });
  } finally {
    if (enabled) {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
      process.stdout.off('error', onStdoutError);
    }
  }
}
