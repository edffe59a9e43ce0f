import { type CompileToolsOptions, compileTools, type HostedTool } from '../src/index.js';
import { representativeTools } from './helpers.js';

/** A provider-executed tool declared for three of the four dialects. */
export const HOSTED_WEB_SEARCH: HostedTool = {
  name: 'web_search',
  declarations: {
    anthropic: { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
    'openai-responses': { type: 'web_search' },
    gemini: { googleSearch: {} },
  },
};

/** The golden variants: one file per dialect and profile. */
export const GOLDEN_VARIANTS: readonly { readonly file: string; readonly options: CompileToolsOptions }[] = [
  { file: 'openai-chat.json', options: { dialect: 'openai-chat', hosted: [HOSTED_WEB_SEARCH] } },
  { file: 'openai-chat-strict.json', options: { dialect: 'openai-chat', strict: true } },
  { file: 'openai-responses.json', options: { dialect: 'openai-responses', hosted: [HOSTED_WEB_SEARCH] } },
  { file: 'openai-responses-strict.json', options: { dialect: 'openai-responses', strict: true } },
  { file: 'anthropic.json', options: { dialect: 'anthropic', hosted: [HOSTED_WEB_SEARCH] } },
  { file: 'gemini.json', options: { dialect: 'gemini', hosted: [HOSTED_WEB_SEARCH] } },
  { file: 'gemini-openapi.json', options: { dialect: 'gemini', geminiSchema: 'openapi' } },
];

/** The exact text of one golden file. */
export function goldenText(options: CompileToolsOptions): string {
  const compiled = compileTools(representativeTools(), options);
  const { tools, nameMap, report, decoding, strictTools, hostedTools } = compiled;
  return `${JSON.stringify({ tools, nameMap, report, decoding, strictTools, hostedTools }, null, 2)}\n`;
}
