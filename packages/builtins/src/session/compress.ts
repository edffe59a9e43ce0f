import { defineTool, errorResult, type ToolDefinition, ToolhostError, textResult } from '@toolhost/contracts';
import type { CompressArguments } from './session-arguments.js';
import { compressArgumentsSchema } from './session-schemas.generated.js';
import { SESSION_READ_ANNOTATIONS, type SessionToolsOptions } from './session-tool-options.js';

const DESCRIPTION = [
  'Compress the provider-visible conversation: the messages before or after one real user message are replaced by a summary, so later requests are smaller; the full history stays in the transcript.',
  'Use it only when the user explicitly asks to compress the context.',
  'anchor must be an exact excerpt of one user message that occurs exactly once across the user messages; instructions say what the summary must keep.',
].join(' ');

/** How often `anchor` occurs in `text`, overlapping occurrences included. */
export function countOccurrences(text: string, anchor: string): number {
  if (anchor === '') return 0;
  let count = 0;
  for (let at = text.indexOf(anchor); at !== -1; at = text.indexOf(anchor, at + 1)) count += 1;
  return count;
}

function rangeError(message: string, details: Record<string, unknown>): ToolhostError {
  return new ToolhostError({ code: 'COMPRESS_RANGE_INVALID', message, details });
}

/**
 * Creates `compress` (group `utility_builtins`; the seed's read-only flag true; sequential,
 * abortable). Registered only where the embedding loop gives sessions a conversation port. The host
 * checks the anchor first: it must occur exactly once across the real user messages the port lists
 * (`COMPRESS_RANGE_INVALID` naming how often it occurs, never quoting it); then the loop summarises
 * the chosen range with the model and replaces it in the provider-visible conversation only. Nothing
 * changes on any refusal. Error codes: `COMPRESS_RANGE_INVALID`, `CAPABILITY_UNAVAILABLE` (a
 * session without a conversation port), `EXECUTION_ERROR` (the summary failed), `ABORTED`, `TIMEOUT`.
 */
export function createCompressTool(options: SessionToolsOptions): ToolDefinition<CompressArguments> {
  return defineTool({
    name: 'compress',
    source: 'builtin',
    group: 'utility_builtins',
    category: 'utility',
    annotations: SESSION_READ_ANNOTATIONS,
    // The summary is a model request of its own.
    execution: { mode: 'sequential', timeoutMs: 300_000, abortable: true },
    pathAccess: 'none',
    visibility: 'listed',
    sessionScoped: true,
    modelTool: { name: 'compress', description: DESCRIPTION, inputSchema: compressArgumentsSchema },
    permission: { preview: (args) => `compress the conversation ${args.direction} a user message` },
    async execute(args, context) {
      const conversation = options.state(context).conversation;
      if (!conversation) {
        return errorResult(
          new ToolhostError({
            code: 'CAPABILITY_UNAVAILABLE',
            message:
              'this session has no conversation the host can compress (only a loop that owns the conversation, such as toolhost run, offers compress)',
            recovery: 'ask the person to compact the context in their own client',
          }),
        );
      }
      const messages = conversation.userMessages();
      let occurrences = 0;
      let found: string | undefined;
      for (const message of messages) {
        const here = countOccurrences(message.text, args.anchor);
        if (here > 0) found = message.id;
        occurrences += here;
      }
      if (occurrences !== 1 || found === undefined) {
        return errorResult(
          rangeError(
            occurrences === 0
              ? `the anchor occurs in none of the ${messages.length} real user message${messages.length === 1 ? '' : 's'}; nothing was compressed`
              : `the anchor occurs ${occurrences} times across the real user messages, not exactly once; nothing was compressed`,
            { occurrences, userMessages: messages.length },
          ),
        );
      }
      const outcome = await conversation.compress({
        messageId: found,
        direction: args.direction,
        ...(args.instructions === undefined ? {} : { instructions: args.instructions }),
        signal: context.signal,
      });
      if (!outcome.ok) {
        if (outcome.reason === 'failed') {
          return errorResult(
            new ToolhostError({
              code: 'EXECUTION_ERROR',
              message: `the summary could not be made (${outcome.message}); nothing was compressed`,
            }),
          );
        }
        return errorResult(
          rangeError(`${outcome.message}; nothing was compressed`, { reason: outcome.reason }),
        );
      }
      return textResult(
        `Compressed ${outcome.replacedMessages} message${outcome.replacedMessages === 1 ? '' : 's'} ${args.direction} the anchored user message into a summary of ${outcome.summaryChars} characters. Later requests carry the summary instead; the transcript keeps every original message.`,
        {
          direction: args.direction,
          replacedMessages: outcome.replacedMessages,
          summaryChars: outcome.summaryChars,
        },
      );
    },
  });
}
