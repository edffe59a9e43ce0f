// The type-level check can fail: each body below breaks its SDK request type, and
// `@ts-expect-error` makes the package typecheck fail if the type accepted it. The shapes are the
// ones issue 22 found plus the int64 spelling the type check itself found.
import type {
  AnthropicRequest,
  GeminiRequest,
  OpenAIChatRequest,
  OpenAIResponsesRequest,
} from './sdk-request-types.js';

// biome-ignore format: each @ts-expect-error covers exactly the one line after it
export const REJECTED = [
  // @ts-expect-error Responses: an input_image without `detail`.
  { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA' }] }] } satisfies OpenAIResponsesRequest,
  // @ts-expect-error Responses: output_text parts in an input message.
  { model: 'm', input: [{ role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }] } satisfies OpenAIResponsesRequest,
  // @ts-expect-error Gemini: a lowercase Schema type.
  { contents: [], tools: [{ functionDeclarations: [{ name: 'a', description: 'A.', parameters: { type: 'object' } }] }] } satisfies GeminiRequest,
  // @ts-expect-error Gemini: an int64 count as a number (the canonical JSON, and @google/genai, have a string).
  { contents: [], tools: [{ functionDeclarations: [{ name: 'a', description: 'A.', parameters: { type: 'STRING', minLength: 1 } }] }] } satisfies GeminiRequest,
  // @ts-expect-error Anthropic: an unknown request field.
  { model: 'm', max_tokens: 1, messages: [], toolz: [] } satisfies AnthropicRequest,
  // @ts-expect-error Chat: a tool message without tool_call_id.
  { model: 'm', messages: [{ role: 'tool', content: 'x' }] } satisfies OpenAIChatRequest,
];
