// The JSON mapping of the Gemini API request types, as JSON Schema, written from the protos of
// googleapis/googleapis google/ai/generativelanguage/v1beta (content.proto and
// generative_service.proto at commit bc7e3baa28fbb223fa93782e130260fab8205bfc; see SOURCES.md).
// Proto3 JSON mapping: fields by their lowerCamelCase JSON name, enums by value name, `bytes` as
// base64 text, int64 as a number or a decimal string, `Struct` as an object, `Value` as any JSON.
// Fields marked `(google.api.field_behavior) = REQUIRED` are required, and a required proto3
// string must be non-empty (an empty string is indistinguishable from unset). A `oneof` allows
// at most one of its fields. Unknown fields are rejected, as the API does ("Unknown name").
// `GenerateContentRequest.model` is bound from the URL path, so the body does not carry it.
import type { JsonObject } from '@toolhost/contracts';

const str: JsonObject = { type: 'string' };
const requiredString: JsonObject = { type: 'string', minLength: 1 };
const bool: JsonObject = { type: 'boolean' };
const int32: JsonObject = { type: 'integer' };
const int64: JsonObject = { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }] };
const float: JsonObject = { type: 'number' };
const bytes: JsonObject = { type: 'string', pattern: '^[A-Za-z0-9+/_-]*={0,2}$' };
const struct: JsonObject = { type: 'object' };
const value: JsonObject = {};
const ref = (name: string): JsonObject => ({ $ref: `#/$defs/${name}` });
const list = (item: JsonObject): JsonObject => ({ type: 'array', items: item });
const enumOf = (...names: string[]): JsonObject => ({ type: 'string', enum: names });

/** A proto message: its fields, the required ones, and its `oneof` groups (at most one set). */
function message(
  fields: Record<string, JsonObject>,
  required: readonly string[] = [],
  oneofs: readonly (readonly string[])[] = [],
): JsonObject {
  const out: JsonObject = { type: 'object', properties: fields, additionalProperties: false };
  if (required.length > 0) out.required = [...required];
  const exclusive = oneofs.flatMap((group) =>
    group.flatMap((a, index) => group.slice(index + 1).map((b) => ({ not: { required: [a, b] } }))),
  );
  if (exclusive.length > 0) out.allOf = exclusive;
  return out;
}

const TYPE = enumOf('TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL');

/** `GenerateContentRequest` (body of `models/{model}:generateContent` and `:streamGenerateContent`). */
export const GEMINI_REQUEST_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $comment:
    'googleapis/googleapis google/ai/generativelanguage/v1beta @ bc7e3baa28fbb223fa93782e130260fab8205bfc',
  ...message(
    {
      systemInstruction: ref('Content'),
      contents: list(ref('Content')),
      tools: list(ref('Tool')),
      toolConfig: ref('ToolConfig'),
      safetySettings: list(ref('SafetySetting')),
      generationConfig: ref('GenerationConfig'),
      cachedContent: str,
    },
    ['contents'],
  ),
  $defs: {
    Content: message({ parts: list(ref('Part')), role: str }),
    Part: message(
      {
        text: str,
        inlineData: ref('Blob'),
        functionCall: ref('FunctionCall'),
        functionResponse: ref('FunctionResponse'),
        fileData: ref('FileData'),
        executableCode: ref('ExecutableCode'),
        codeExecutionResult: ref('CodeExecutionResult'),
        videoMetadata: message({ startOffset: str, endOffset: str, fps: float }),
        thought: bool,
        thoughtSignature: bytes,
        partMetadata: struct,
      },
      [],
      [
        [
          'text',
          'inlineData',
          'functionCall',
          'functionResponse',
          'fileData',
          'executableCode',
          'codeExecutionResult',
        ],
      ],
    ),
    Blob: message({ mimeType: str, data: bytes }),
    FunctionResponsePart: message(
      { inlineData: message({ mimeType: str, data: bytes }) },
      [],
      [['inlineData']],
    ),
    FileData: message({ mimeType: str, fileUri: requiredString }, ['fileUri']),
    ExecutableCode: message({ language: enumOf('LANGUAGE_UNSPECIFIED', 'PYTHON'), code: requiredString }, [
      'language',
      'code',
    ]),
    CodeExecutionResult: message(
      {
        outcome: enumOf('OUTCOME_UNSPECIFIED', 'OUTCOME_OK', 'OUTCOME_FAILED', 'OUTCOME_DEADLINE_EXCEEDED'),
        output: str,
      },
      ['outcome'],
    ),
    FunctionCall: message(
      { id: str, name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' }, args: struct },
      ['name'],
    ),
    FunctionResponse: message(
      {
        id: str,
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        response: struct,
        parts: list(ref('FunctionResponsePart')),
        willContinue: bool,
        scheduling: enumOf('SCHEDULING_UNSPECIFIED', 'SILENT', 'WHEN_IDLE', 'INTERRUPT'),
      },
      ['name', 'response'],
    ),
    Tool: message({
      functionDeclarations: list(ref('FunctionDeclaration')),
      googleSearchRetrieval: message({
        dynamicRetrievalConfig: message({
          mode: enumOf('MODE_UNSPECIFIED', 'MODE_DYNAMIC'),
          dynamicThreshold: float,
        }),
      }),
      codeExecution: message({}),
      googleSearch: message({ timeRangeFilter: message({ startTime: str, endTime: str }) }),
      computerUse: message(
        {
          environment: enumOf('ENVIRONMENT_UNSPECIFIED', 'ENVIRONMENT_BROWSER'),
          excludedPredefinedFunctions: list(str),
        },
        ['environment'],
      ),
      urlContext: message({}),
      fileSearch: message(
        {
          retrievalResources: list(message({ ragStoreName: requiredString }, ['ragStoreName'])),
          retrievalConfig: message({ topK: int32, metadataFilter: str }),
        },
        ['retrievalResources'],
      ),
      googleMaps: message({ enableWidget: bool }),
    }),
    FunctionDeclaration: message(
      {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_.:-]{1,64}$' },
        description: requiredString,
        parameters: ref('Schema'),
        parametersJsonSchema: value,
        response: ref('Schema'),
        responseJsonSchema: value,
        behavior: enumOf('UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING'),
      },
      ['name', 'description'],
    ),
    Schema: {
      ...message(
        {
          type: TYPE,
          format: str,
          title: str,
          description: str,
          nullable: bool,
          enum: list(str),
          items: ref('Schema'),
          maxItems: int64,
          minItems: int64,
          properties: { type: 'object', additionalProperties: ref('Schema') },
          required: list(str),
          minProperties: int64,
          maxProperties: int64,
          minimum: float,
          maximum: float,
          minLength: int64,
          maxLength: int64,
          pattern: str,
          example: value,
          anyOf: list(ref('Schema')),
          propertyOrdering: list(str),
          default: value,
        },
        ['type'],
      ),
      // REQUIRED enum: the zero value is "not specified, should not be used".
      not: { properties: { type: { const: 'TYPE_UNSPECIFIED' } }, required: ['type'] },
    },
    ToolConfig: message({
      functionCallingConfig: message({
        mode: enumOf('MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'),
        allowedFunctionNames: list(str),
      }),
      retrievalConfig: message({ latLng: message({ latitude: float, longitude: float }), languageCode: str }),
    }),
    SafetySetting: message(
      {
        category: str,
        threshold: enumOf(
          'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
          'BLOCK_LOW_AND_ABOVE',
          'BLOCK_MEDIUM_AND_ABOVE',
          'BLOCK_ONLY_HIGH',
          'BLOCK_NONE',
          'OFF',
        ),
      },
      ['category', 'threshold'],
    ),
    GenerationConfig: message({
      candidateCount: int32,
      stopSequences: list(str),
      maxOutputTokens: int32,
      temperature: float,
      topP: float,
      topK: int32,
      seed: int32,
      responseMimeType: str,
      responseSchema: ref('Schema'),
      _responseJsonSchema: value,
      responseJsonSchema: value,
      presencePenalty: float,
      frequencyPenalty: float,
      responseLogprobs: bool,
      logprobs: int32,
      enableEnhancedCivicAnswers: bool,
      responseModalities: list(enumOf('MODALITY_UNSPECIFIED', 'TEXT', 'IMAGE', 'AUDIO')),
      speechConfig: struct,
      thinkingConfig: message({ includeThoughts: bool, thinkingBudget: int32 }),
      imageConfig: struct,
      mediaResolution: enumOf(
        'MEDIA_RESOLUTION_UNSPECIFIED',
        'MEDIA_RESOLUTION_LOW',
        'MEDIA_RESOLUTION_MEDIUM',
        'MEDIA_RESOLUTION_HIGH',
      ),
    }),
  },
};
