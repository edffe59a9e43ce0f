export { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
export type { CliIo, CommandInput, GlobalOptions } from './command-types.js';
export { type RunCliOptions, runCli, VERSION } from './run-cli.js';
