import { canPrompt, createApprovalPrompt } from '../approval-prompt.js';
import { EXIT_CODES } from '../cli-error.js';
import type { CommandHandler } from '../command-types.js';
import { openHost } from '../open-host.js';
import { sessionResult } from '../session-line.js';

/**
 * `toolhost call NAME [JSON]`: one call through the whole pipeline. Prints exactly the text the
 * model would see (or, with `--json`, the session line) on stdout; exit code 1 when the call fails.
 * The JSON argument goes to the host as given, so malformed JSON is answered the way a model's would
 * be (`ARGUMENT_VALIDATION`). On a terminal, calls that need approval ask; otherwise they fail closed.
 * Ctrl-C cancels the call (`ABORTED`).
 */
export const callCommand: CommandHandler = async ({ globals, values, positionals, io, signal }) => {
  const [name, argumentsText] = positionals as [string, string | undefined];
  const prompt = { input: io.stdin, output: io.stderr, env: io.env };
  const host = await openHost(globals, {
    io,
    network: values.network === true,
    ...(canPrompt(prompt) ? { approve: createApprovalPrompt(prompt) } : {}),
  });
  try {
    const result = await host.dispatch(
      { id: 'call_1', name, ...(argumentsText === undefined ? {} : { arguments: argumentsText }) },
      { signal },
    );
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify(sessionResult(result, result.id, result.notice))}\n`);
    } else {
      io.stdout.write(
        result.output.endsWith('\n') || result.output === '' ? result.output : `${result.output}\n`,
      );
    }
    return result.status === 'ok' ? EXIT_CODES.success : EXIT_CODES.failure;
  } finally {
    await host.close();
  }
};
