// The official SDK request types the authority schemas are generated from
// (scripts/gen-authorities.ts). Type-only: nothing here runs.
import type {
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions/completions';
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
} from 'openai/resources/responses/responses';

/** OpenAI Chat Completions request body. */
export type OpenAIChatRequest = ChatCompletionCreateParamsNonStreaming | ChatCompletionCreateParamsStreaming;
/** OpenAI Responses request body. */
export type OpenAIResponsesRequest = ResponseCreateParamsNonStreaming | ResponseCreateParamsStreaming;
/** Anthropic Messages request body (API version 2023-06-01). */
export type AnthropicRequest = MessageCreateParamsNonStreaming | MessageCreateParamsStreaming;
