// The request scenarios every dialect builds for the authority tests (test/authorities.test.ts
// and test/sdk-types.test.ts): tools, tool choices, multi-turn with parallel calls and results
// (an error among them), images, a system prompt, cache breakpoints, streaming, and the compiled
// tools of the corpus in every mode.
import type { ModelTool } from '@toolhost/contracts';
import {
  type BuildRequestOptions,
  type BuiltRequest,
  type CompileToolsOptions,
  compileTools,
  type DialectName,
  getDialect,
  type Message,
  type ToolChoice,
} from '../src/index.js';
import { HOSTED_WEB_SEARCH } from './golden-cases.js';
import { representativeTools } from './helpers.js';

/** Every dialect and schema mode the corpus is compiled in. */
export const MODES: readonly { readonly label: string; readonly options: CompileToolsOptions }[] = [
  { label: 'openai-chat', options: { dialect: 'openai-chat', hosted: [HOSTED_WEB_SEARCH] } },
  { label: 'openai-chat strict', options: { dialect: 'openai-chat', strict: true } },
  { label: 'openai-responses', options: { dialect: 'openai-responses', hosted: [HOSTED_WEB_SEARCH] } },
  { label: 'openai-responses strict', options: { dialect: 'openai-responses', strict: true } },
  { label: 'anthropic', options: { dialect: 'anthropic', hosted: [HOSTED_WEB_SEARCH] } },
  { label: 'gemini', options: { dialect: 'gemini', hosted: [HOSTED_WEB_SEARCH] } },
  { label: 'gemini openapi', options: { dialect: 'gemini', geminiSchema: 'openapi' } },
];

/** The tool corpus: the representative set plus shapes the issue names (root `not`, no description). */
export function corpusTools(): ModelTool[] {
  return [
    ...representativeTools(),
    {
      name: 'exclusive_pair',
      description: 'Takes a or b, not both.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        not: { required: ['a', 'b'] },
      },
    },
    {
      name: 'undocumented',
      description: '',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    },
    { name: 'noop', description: 'Does nothing.', inputSchema: {} },
    {
      name: 'mixed_union',
      description: 'A value of several types.',
      inputSchema: {
        type: 'object',
        properties: {
          value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
          tags: { type: ['array', 'null'], items: { type: 'string' } },
        },
        required: [],
      },
    },
  ];
}

const PNG = 'iVBORw0KGgo=';

function history(): Message[] {
  return [
    { role: 'system', content: 'You are a careful assistant.' },
    { role: 'system', content: 'Prefer small edits.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Read both files and look at the screenshot.' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading both.' },
        { type: 'tool-call', id: 'call_read_a', name: 'read_file', arguments: '{"path":"a.txt"}' },
        { type: 'tool-call', id: 'call_read_b', name: 'read_file', arguments: '{"path":"b.txt"}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'call_read_a',
      toolName: 'read_file',
      isError: false,
      content: [{ type: 'text', text: '1: alpha' }],
    },
    {
      role: 'tool',
      toolCallId: 'call_read_b',
      toolName: 'read_file',
      isError: true,
      content: [{ type: 'text', text: 'PATH_NOT_FOUND: b.txt does not exist; list the directory first' }],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'call_shot', name: 'read_file', arguments: '{"path":"shot.png"}' }],
    },
    {
      role: 'tool',
      toolCallId: 'call_shot',
      toolName: 'read_file',
      isError: false,
      content: [
        { type: 'text', text: 'an image' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'a.txt says alpha; b.txt is missing.' }] },
    { role: 'user', content: 'Thanks. Now edit a.txt.' },
  ];
}

/** One built request and how it was made. */
export interface Scenario {
  readonly dialect: DialectName;
  readonly label: string;
  readonly built: BuiltRequest;
}

/** Every scenario of every mode. */
export function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const mode of MODES) {
    const dialect = mode.options.dialect;
    const tools = compileTools(corpusTools(), mode.options);
    const model =
      dialect === 'gemini' ? 'gemini-3-pro-preview' : dialect === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-5';
    const choices: ToolChoice[] = ['auto', 'required', 'none', { type: 'tool', name: 'edit_file' }];
    const variants: [string, BuildRequestOptions][] = [
      ['first turn, no tools', { model, messages: [{ role: 'user', content: 'Hello.' }] }],
      ...choices.map((toolChoice): [string, BuildRequestOptions] => [
        `multi-turn, tool choice ${typeof toolChoice === 'string' ? toolChoice : 'named'}`,
        { model, messages: history(), tools, toolChoice },
      ]),
      [
        'streaming, single calls, caps',
        {
          model,
          messages: history(),
          tools,
          stream: true,
          parallelToolCalls: false,
          maxOutputTokens: 1024,
          temperature: 0.2,
        },
      ],
      ['no cache breakpoints, 1h ttl off', { model, messages: history(), tools, cacheBreakpoints: false }],
      ['1h cache breakpoints', { model, messages: history(), tools, cacheTtl: '1h' }],
      ['images after functionResponse', { model, messages: history(), tools, functionResponseParts: false }],
    ];
    for (const [label, options] of variants) {
      out.push({
        dialect,
        label: `${mode.label}: ${label}`,
        built: getDialect(dialect).buildRequest(options),
      });
    }
  }
  return out;
}
