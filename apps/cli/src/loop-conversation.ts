import type { ConversationUserMessage } from '@toolhost/boot';
import type { Message, UserMessage } from '@toolhost/provider-dialects';

/** The most characters of a range the summary request carries (its head and tail are kept). */
export const MAX_SUMMARY_INPUT_CHARS = 200_000;
/** The most characters of one message in the summary request. */
const MAX_MESSAGE_CHARS = 8_000;

/** A range of the provider-visible conversation, `start` inclusive, `end` exclusive. */
export type ConversationRange =
  | { readonly ok: true; readonly start: number; readonly end: number }
  | { readonly ok: false; readonly reason: 'empty_range' | 'unknown_message'; readonly message: string };

/**
 * The provider-visible conversation of a run: the messages the next request carries, the real user
 * messages among them (a person's, not the loop's own `[toolhost]` notes or goal-round prompts), and
 * the one change a loop may make to history: replacing a range by a summary (`compress`). The
 * transcript is written from the events, never from this list, so it keeps every original message.
 */
export interface LoopConversation {
  /** The messages of the next request, in order. */
  readonly messages: readonly Message[];
  /** Appends a message; `real` marks a person's message (an anchor for compress). */
  push(message: Message, real?: boolean): void;
  /** The real user messages, oldest first, with their ids. */
  userMessages(): ConversationUserMessage[];
  /**
   * The range `compress` replaces: before the user message, everything after the system prompt up
   * to it; after it, everything up to the last assistant message (the turn that asked, whose tool
   * calls must keep their results). Both ends fall between whole turns.
   */
  range(messageId: string, direction: 'before' | 'after'): ConversationRange;
  /** The range as plain text for the summary request, bounded to {@link MAX_SUMMARY_INPUT_CHARS}. */
  render(range: { readonly start: number; readonly end: number }): string;
  /** Replaces the range by one user message holding the summary; returns it. */
  replace(range: { readonly start: number; readonly end: number }, summary: string): UserMessage;
}

function textOf(message: Message): string {
  if (message.role === 'system') return message.content;
  if (message.role === 'user') {
    return typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
  }
  if (message.role === 'tool') {
    return message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
  }
  return message.content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'tool-call') return `[called ${part.name} ${part.arguments}]`;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor((limit - 40) / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters left out ...]\n${text.slice(-half)}`;
}

/** Creates an empty conversation. */
export function createLoopConversation(): LoopConversation {
  const messages: Message[] = [];
  const ids = new Map<Message, string>();
  let nextId = 0;
  const indexOf = (messageId: string) => messages.findIndex((message) => ids.get(message) === messageId);
  return {
    messages,
    push(message, real = false) {
      messages.push(message);
      if (real && message.role === 'user') ids.set(message, `user_${++nextId}`);
    },
    userMessages() {
      return messages.flatMap((message) => {
        const id = ids.get(message);
        return id === undefined ? [] : [{ id, text: textOf(message) }];
      });
    },
    range(messageId, direction) {
      const at = indexOf(messageId);
      if (at === -1) {
        return {
          ok: false,
          reason: 'unknown_message',
          message: 'that user message is no longer in the provider-visible conversation',
        };
      }
      let start: number;
      let end: number;
      if (direction === 'before') {
        start = messages.findIndex((message) => message.role !== 'system');
        end = at;
      } else {
        start = at + 1;
        end = messages.map((message) => message.role).lastIndexOf('assistant');
      }
      if (start < 0 || end <= start) {
        return {
          ok: false,
          reason: 'empty_range',
          message: `there is nothing to compress ${direction} that user message`,
        };
      }
      return { ok: true, start, end };
    },
    render({ start, end }) {
      const parts = messages
        .slice(start, end)
        .map((message) => `### ${message.role}\n${clip(textOf(message), MAX_MESSAGE_CHARS)}`);
      return clip(parts.join('\n\n'), MAX_SUMMARY_INPUT_CHARS);
    },
    replace({ start, end }, summary) {
      const message: UserMessage = {
        role: 'user',
        content: `[toolhost] Summary of ${end - start} earlier message${end - start === 1 ? '' : 's'} (compressed at the user's request; the full history stays in the transcript):\n\n${summary}`,
      };
      messages.splice(start, end - start, message);
      return message;
    },
  };
}

/** The instructions of the summary request. */
export function summaryPrompt(instructions: string | undefined): string {
  return [
    "You compress part of a coding agent's conversation. Summarise the messages below for the agent that will continue the work:",
    'what was asked, what was done and found (files, commands, results, decisions), what failed, and what is still open.',
    'Keep names, paths, identifiers and numbers exact. Write plain text without tool calls.',
    ...(instructions ? ['', `The user asked the summary to keep: ${instructions}`] : []),
  ].join('\n');
}
