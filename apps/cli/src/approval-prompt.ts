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

/** What "always for this run" remembers: the tool and, when it has one, the subject (the command). */
function approvalKey(request: ApprovalRequest): string {
  return `${request.toolName}\u0000${request.subject ?? ''}`;
}

/**
 * Whether a person can be asked: both the input and the prompt's output are terminals. Without one
 * the CLI passes no approval callback and the host fails closed (`APPROVAL_REQUIRED`).
 */
export function canPrompt(options: Pick<ApprovalPromptOptions, 'input' | 'output'>): boolean {
  return options.input.isTTY === true && options.output.isTTY === true;
}

/**
 * An approval callback that asks on the terminal: `y` allows once, `a` allows the same tool (and
 * the same command, for shells) for the rest of this run, anything else denies. Questions are asked
 * one at a time even when parallel calls need approval together. When the host withdraws the
 * request (approval timeout, cancelled call) the question is closed and the call is denied; Ctrl-C
 * at the question denies too.
 */
export function createApprovalPrompt(options: ApprovalPromptOptions): ApproveCallback {
  const style = createStyler(options.output, options.env);
  const always = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (request: ApprovalRequest): Promise<ApprovalAnswer> =>
    new Promise<ApprovalAnswer>((resolve) => {
      if (always.has(approvalKey(request))) return resolve(true);
      if (request.signal.aborted) return resolve({ approved: false, reason: 'the request was withdrawn' });
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
        finish({ approved: false, reason: 'the approval request timed out or was cancelled' });
      };
      request.signal.addEventListener('abort', withdrawn, { once: true });
      lines.on('SIGINT', () =>
        finish({ approved: false, reason: 'the person pressed Ctrl-C at the approval prompt' }),
      );
      lines.on('close', () => finish({ approved: false, reason: 'no answer' }));
      lines.question('Allow? [y] once  [a] always for this run  [N] deny: ', (reply) => {
        const choice = reply.trim().toLowerCase();
        if (choice === 'a' || choice === 'always') {
          always.add(approvalKey(request));
          finish(true);
        } else if (choice === 'y' || choice === 'yes') {
          finish(true);
        } else {
          finish({ approved: false, reason: 'the person declined' });
        }
      });
    });

  return (request) => {
    const next = queue.then(() => ask(request));
    queue = next.catch(() => undefined);
    return next;
  };
}
