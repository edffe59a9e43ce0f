// The official SDKs' request types the built bodies are held to at compile time
// (test/sdk-types.generated.ts, checked by `tsc` in this package's typecheck). devDependencies only.
import type { Content, GenerationConfig, SafetySetting, Tool, ToolConfig } from '@google/genai';

export type {
  AnthropicRequest,
  OpenAIChatRequest,
  OpenAIResponsesRequest,
} from '../scripts/authority-types.js';

/**
 * A type as JSON carries it: the SDK's string enums (`Type.OBJECT`, `FunctionCallingConfigMode.ANY`
 * ...) as the strings they serialise to, which is what a request body holds.
 */
export type Wire<T> = T extends string
  ? `${T}`
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/**
 * The REST body of Gemini `generateContent` / `streamGenerateContent` (the protos'
 * `GenerateContentRequest`, without the `model` path parameter), built from @google/genai's own
 * types for its members. The SDK's `GenerateContentParameters` is its method's argument shape
 * (`config` instead of the body's top-level members), not the body.
 */
export type GeminiRequest = Wire<{
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  toolConfig?: ToolConfig;
  generationConfig?: GenerationConfig;
  safetySettings?: SafetySetting[];
  cachedContent?: string;
}>;
