import { usageError } from './cli-error.js';
import { type DIALECTS, PROVIDERS } from './command-specs.js';

/** A provider `run` can talk to. */
export type ProviderName = (typeof PROVIDERS)[number];
/** A wire format. */
export type DialectName = (typeof DIALECTS)[number];

/** Everything needed to reach one provider. */
export interface ProviderSettings {
  readonly provider: ProviderName;
  readonly dialect: DialectName;
  /** Without a trailing slash; the dialect's request path is appended. */
  readonly baseUrl: string;
  readonly model: string;
  /** Request headers, including authentication (never printed or recorded). */
  readonly headers: Readonly<Record<string, string>>;
  /** Which environment variable the key came from, for messages (`undefined` without a key). */
  readonly keyVariable: string | undefined;
}

/** The flags of `run` that choose the provider. */
export interface ProviderFlags {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly dialect?: string | undefined;
}

/** Default models, chosen for a cheap, capable tool-calling exploration; `--model` overrides. */
export const DEFAULT_MODELS: Readonly<Record<Exclude<ProviderName, 'openai-compatible'>, string>> = {
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-sonnet-4-5',
  gemini: 'gemini-2.5-flash',
};

const DEFAULT_BASE_URLS = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  gemini: 'https://generativelanguage.googleapis.com/v1beta',
} as const;

/** The exact instructions printed when no provider is configured. */
export const NO_PROVIDER_MESSAGE =
  'no model provider configured: set OPENAI_API_KEY, ANTHROPIC_API_KEY, or GEMINI_API_KEY (or GOOGLE_API_KEY), ' +
  'or point at an OpenAI-compatible server with --provider openai-compatible --base-url http://127.0.0.1:PORT/v1 --model NAME';

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function normalizeBaseUrl(text: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${flag} is not a URL (for example http://127.0.0.1:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`${flag} must be an http or https URL`);
  return url.toString().replace(/\/+$/, '');
}

/**
 * Chooses the provider, dialect, endpoint, model and credentials for `run` from the flags and the
 * environment. Without `--provider`, the first key found decides: `OPENAI_API_KEY` (openai),
 * `ANTHROPIC_API_KEY` (anthropic), `GEMINI_API_KEY` or `GOOGLE_API_KEY` (gemini); a `--base-url`
 * alone means openai-compatible. Dialects: openai → openai-responses, openai-compatible →
 * openai-chat (either may be switched with `--dialect`), anthropic → anthropic, gemini → gemini.
 * `OPENAI_BASE_URL` is honoured for the OpenAI providers. Every gap is a usage error (exit 2) that
 * says exactly what to set; a key is never part of a message.
 */
export function resolveProvider(
  flags: ProviderFlags,
  env: Readonly<Record<string, string | undefined>>,
): ProviderSettings {
  const openaiKey = nonEmpty(env.OPENAI_API_KEY);
  const anthropicKey = nonEmpty(env.ANTHROPIC_API_KEY);
  const geminiKeyVariable = nonEmpty(env.GEMINI_API_KEY)
    ? 'GEMINI_API_KEY'
    : nonEmpty(env.GOOGLE_API_KEY)
      ? 'GOOGLE_API_KEY'
      : undefined;
  const baseUrlFlag = nonEmpty(flags.baseUrl);

  let provider: ProviderName;
  if (flags.provider !== undefined) {
    if (!(PROVIDERS as readonly string[]).includes(flags.provider)) {
      throw usageError(`--provider must be one of ${PROVIDERS.join(', ')}`);
    }
    provider = flags.provider as ProviderName;
  } else if (openaiKey) provider = 'openai';
  else if (anthropicKey) provider = 'anthropic';
  else if (geminiKeyVariable) provider = 'gemini';
  else if (baseUrlFlag) provider = 'openai-compatible';
  else throw usageError(NO_PROVIDER_MESSAGE);

  let dialect: DialectName;
  if (flags.dialect !== undefined) {
    if (provider !== 'openai' && provider !== 'openai-compatible') {
      throw usageError(`--dialect applies to the openai providers only; ${provider} speaks its own`);
    }
    if (flags.dialect !== 'openai-chat' && flags.dialect !== 'openai-responses') {
      throw usageError('--dialect must be openai-chat or openai-responses');
    }
    dialect = flags.dialect;
  } else {
    dialect =
      provider === 'openai'
        ? 'openai-responses'
        : provider === 'openai-compatible'
          ? 'openai-chat'
          : provider;
  }

  const common = { 'content-type': 'application/json', accept: 'text/event-stream' };
  const model = nonEmpty(flags.model);
  switch (provider) {
    case 'openai':
    case 'openai-compatible': {
      if (provider === 'openai' && !openaiKey) throw usageError('--provider openai needs OPENAI_API_KEY');
      const base = baseUrlFlag ?? nonEmpty(env.OPENAI_BASE_URL);
      if (provider === 'openai-compatible' && !base) {
        throw usageError(
          '--provider openai-compatible needs --base-url (for example http://127.0.0.1:8080/v1)',
        );
      }
      if (provider === 'openai-compatible' && !model) {
        throw usageError(
          '--provider openai-compatible needs --model (the name the server knows the model by)',
        );
      }
      return {
        provider,
        dialect,
        baseUrl: normalizeBaseUrl(
          base ?? DEFAULT_BASE_URLS.openai,
          baseUrlFlag ? '--base-url' : 'OPENAI_BASE_URL',
        ),
        model: model ?? DEFAULT_MODELS.openai,
        headers: { ...common, ...(openaiKey ? { authorization: `Bearer ${openaiKey}` } : {}) },
        keyVariable: openaiKey ? 'OPENAI_API_KEY' : undefined,
      };
    }
    case 'anthropic':
      if (!anthropicKey) throw usageError('--provider anthropic needs ANTHROPIC_API_KEY');
      return {
        provider,
        dialect,
        baseUrl: normalizeBaseUrl(baseUrlFlag ?? DEFAULT_BASE_URLS.anthropic, '--base-url'),
        model: model ?? DEFAULT_MODELS.anthropic,
        headers: { ...common, 'x-api-key': anthropicKey, 'anthropic-version': '2023-06-01' },
        keyVariable: 'ANTHROPIC_API_KEY',
      };
    case 'gemini': {
      if (!geminiKeyVariable) throw usageError('--provider gemini needs GEMINI_API_KEY (or GOOGLE_API_KEY)');
      return {
        provider,
        dialect,
        baseUrl: normalizeBaseUrl(baseUrlFlag ?? DEFAULT_BASE_URLS.gemini, '--base-url'),
        model: model ?? DEFAULT_MODELS.gemini,
        headers: { ...common, 'x-goog-api-key': env[geminiKeyVariable]!.trim() },
        keyVariable: geminiKeyVariable,
      };
    }
  }
}
