import type { Readable } from 'node:stream';
import type { ApprovalPolicy, SandboxMode, SurfaceProfile } from '@toolhost/boot';
import type { OutputStream } from './terminal.js';

/** The streams and environment a command runs with (the process's, or a test's). */
export interface CliIo {
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * The run-policy options every command takes. A policy field is `undefined` when the flag was not
 * given, so the configuration's `defaults` apply before the built-in defaults.
 */
export interface GlobalOptions {
  /** Absolute; default the working directory. */
  readonly root: string;
  /** Whether `--root` was given (a command may then pick a better default than the working directory). */
  readonly rootGiven: boolean;
  readonly sandbox: SandboxMode | undefined;
  readonly approval: ApprovalPolicy | undefined;
  readonly surface: SurfaceProfile | undefined;
  /** Absolute; `undefined` means `<root>/toolhost.config.json` when present. */
  readonly config: string | undefined;
}

/** What a command handler receives. */
export interface CommandInput {
  readonly globals: GlobalOptions;
  /** The command's own parsed options. */
  /** A repeatable option (`multiple`) is a list. */
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
  readonly io: CliIo;
  /**
   * Aborts when the process is asked to stop (SIGINT or SIGTERM, unless the command took over
   * interrupts with {@link CommandInput.onInterrupt}) or when stdout's reader went away (EPIPE).
   */
  readonly signal: AbortSignal;
  /**
   * Takes over SIGINT/SIGTERM: `handler` gets the running count of interrupts (1, 2 ...) instead of
   * {@link CommandInput.signal} aborting. A third interrupt always exits at once with code 130.
   */
  onInterrupt(handler: (count: number) => void): void;
}

/** A command handler: resolves to the exit code, or throws a `CliError`. */
export type CommandHandler = (input: CommandInput) => Promise<number>;
