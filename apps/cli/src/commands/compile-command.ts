import { errorMessage } from '@toolhost/contracts';
import { EXIT_CODES, usageError } from '../cli-error.js';
import { DIALECTS } from '../command-specs.js';
import type { CommandHandler } from '../command-types.js';
import { readStreamText } from '../read-stream.js';

/**
 * `toolhost compile --dialect D [--strict] < tools.json`: compiles any neutral tool list and prints
 * `{ tools, nameMap, report }` as JSON. Input that is not JSON, or not a list of named tools, and an
 * unknown dialect are usage errors (exit 2).
 */
export const compileCommand: CommandHandler = async ({ values, io }) => {
  const dialect = values.dialect as string | undefined;
  if (dialect === undefined) throw usageError(`compile needs --dialect (one of ${DIALECTS.join(', ')})`);
  if (!(DIALECTS as readonly string[]).includes(dialect)) {
    throw usageError(`--dialect must be one of ${DIALECTS.join(', ')}`);
  }
  if (io.stdin.isTTY)
    throw usageError('compile reads a JSON tool list on stdin: toolhost compile --dialect D < tools.json');
  const text = await readStreamText(io.stdin);
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw usageError(`stdin is not JSON: ${errorMessage(error)}`);
  }
  if (!Array.isArray(input))
    throw usageError('stdin must be a JSON array of { name, description, inputSchema }');
  const { compileTools } = await import('@toolhost/provider-dialects');
  try {
    const compiled = compileTools(input, {
      dialect: dialect as (typeof DIALECTS)[number],
      ...(values.strict === true ? { strict: true } : {}),
    });
    const { tools, nameMap, report } = compiled;
    io.stdout.write(`${JSON.stringify({ tools, nameMap, report }, null, 2)}\n`);
    return EXIT_CODES.success;
  } catch (error) {
    // A DialectError (checked by its code, so this module needs no runtime import for it): misuse of
    // the compiler by the input, such as duplicate names or a tool without a name.
    const { code, details, message } = (error ?? {}) as {
      code?: unknown;
      details?: { index?: unknown };
      message?: string;
    };
    if (code === 'CONFIG_INVALID') {
      const index = details?.index;
      throw usageError(`${message}${typeof index === 'number' ? ` (tool ${index})` : ''}`, error);
    }
    throw error;
  }
};
