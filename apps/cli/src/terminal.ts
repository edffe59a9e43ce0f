/** A writable stream as the CLI uses it (process streams, or test doubles). */
export interface OutputStream {
  write(chunk: string): boolean;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Text styles; each returns its input unchanged when colour is off. */
export interface Styler {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Whether to colour a stream: never with `NO_COLOR` set (no-color.org), always with `FORCE_COLOR`
 * set to anything but `0`, otherwise only on a TTY whose `TERM` is not `dumb`.
 */
export function colorEnabled(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * A {@link Styler} for one stream. Hand-written SGR codes: six styles do not justify a dependency,
 * and node's `util.styleText` checks no TTY on Node 20.
 */
export function createStyler(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): Styler {
  const enabled = colorEnabled(stream, env);
  const style = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: style(1, 22),
    dim: style(2, 22),
    red: style(31, 39),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
  };
}
