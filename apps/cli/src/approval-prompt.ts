import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ApprovalAnswer, ApprovalRequest, ApproveCallback } from '@toolhost/boot';
import { createStyler, type OutputStream } from './terminal.js';

/** Options of {@link createApprovalPrompt}. */
export interface ApprovalPromptOptions {
  readonly input: Readable & { readonly isTTY?: boolean };
  readonly output: OutputStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Whether a person can be asked: both the input and the prompt's output are terminals. Without one
 * the CLI passes no approval callback and the host fails closed (`APPROVAL_REQUIRED`).
 */
export function canPrompt(options: Pick<ApprovalPromptOptions, 'input' | 'output'>): boolean {
  return options.input.isTTY === true && options.output.isTTY === true;
}

/**
 * An approval callback that asks on the terminal with the host's three answers: `y` allows once
 * (`allow_once`), `a` allows for the rest of this session (`allow_session`: the session remembers
 * the tool, or the shown prefix rule for a command, and does not ask again), anything else denies.
 * `a` is offered only when the request says what it would remember. Questions are asked one at a
 * time even when parallel calls need approval together. When the host withdraws the request
 * (approval timeout, cancelled call) the question is closed and the call is denied; Ctrl-C at the
 * question denies too.
 */
export function createApprovalPrompt(options: ApprovalPromptOptions): ApproveCallback {
  const style = createStyler(options.output, options.env);
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (request: ApprovalRequest): Promise<ApprovalAnswer> =>
    new Promise<ApprovalAnswer>((resolve) => {
      if (request.signal.aborted) return resolve({ decision: 'deny', reason: 'the request was withdrawn' });
      const session = request.choices.includes('allow_session') ? request.remember : undefined;
      const paths = request.paths.map((path) => `${path.access} ${path.displayPath}`).join(', ');
      options.output.write(
        [
          '',
          `${style.yellow('approval needed')}: ${style.bold(request.toolName)} (${request.reason})`,
          ...(request.preview ? [`  ${request.preview.split('\n').join('\n  ')}`] : []),
          ...(paths ? [`  paths: ${paths}`] : []),
          '',
        ].join('\n'),
      );
      const lines = createInterface({
        input: options.input,
        output: options.output as NodeJS.WritableStream,
        terminal: true,
      });
      let settled = false;
      const finish = (answer: ApprovalAnswer) => {
        if (settled) return;
        settled = true;
        request.signal.removeEventListener('abort', withdrawn);
        lines.close();
        resolve(answer);
      };
      const withdrawn = () => {
        options.output.write(`\n${style.dim('(approval withdrawn)')}\n`);
        finish({ decision: 'deny', reason: 'the approval request timed out or was cancelled' });
      };
      request.signal.addEventListener('abort', withdrawn, { once: true });
      lines.on('SIGINT', () =>
        finish({ decision: 'deny', reason: 'the person pressed Ctrl-C at the approval prompt' }),
      );
      lines.on('close', () => finish({ decision: 'deny', reason: 'no answer' }));
      const question = session
        ? `Allow? [y] once  [a] for this session (${session})  [N] deny: `
        : 'Allow? [y] once  [N] deny: ';
      lines.question(question, (reply) => {
        const choice = reply.trim().toLowerCase();
        if (session && (choice === 'a' || choice === 'always' || choice === 'session')) {
          finish('allow_session');
        } else if (choice === 'y' || choice === 'yes') {
          finish('allow_once');
        } else {
          finish({ decision: 'deny', reason: 'the person declined' });
        }
      });
    });

  return (request) => {
    const next = queue.then(() => ask(request));
    queue = next.catch(() => undefined);
    return next;
  };
}
