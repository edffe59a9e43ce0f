import { isJsonObject } from '@toolhost/contracts';

/** One resource a server lists (`resources/list`), as the proxy keeps it. */
export interface McpResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly mimeType: string | undefined;
  /** The size the server claims, in bytes, if it says. */
  readonly size: number | undefined;
}

/** One resource template (`resources/templates/list`): an RFC 6570 URI template and its variables. */
export interface McpResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly mimeType: string | undefined;
  /** The template's variables, in order of first appearance. */
  readonly variables: readonly McpTemplateVariable[];
}

/** A variable of a URI template; those in `?` and `&` expressions (query parts) are optional. */
export interface McpTemplateVariable {
  readonly name: string;
  readonly required: boolean;
}

/** One argument of a prompt. */
export interface McpPromptArgument {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
}

/** One prompt a server lists (`prompts/list`). */
export interface McpPrompt {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly arguments: readonly McpPromptArgument[];
}

/**
 * A server's resources, resource templates and prompts as known now. `undefined` means unknown (the
 * server was never listed, an older cache, or the listing failed); an empty array means the server
 * offers none (or does not declare the capability).
 */
export interface McpServerContent {
  readonly resources: readonly McpResource[] | undefined;
  readonly templates: readonly McpResourceTemplate[] | undefined;
  readonly prompts: readonly McpPrompt[] | undefined;
}

/** Nothing known. */
export const UNKNOWN_CONTENT: McpServerContent = Object.freeze({
  resources: undefined,
  templates: undefined,
  prompts: undefined,
});

/** Bounds on what one server's resource, template and prompt lists may make the proxy keep. */
export const MCP_CONTENT_LIMITS = {
  /** Entries kept per list; the rest are ignored (and counted). */
  maxEntries: 1_000,
  /** Pages read per list. */
  maxPages: 100,
  /** A URI or URI template longer than this is ignored. */
  maxUriChars: 2_048,
  /** Arguments kept per prompt. */
  maxPromptArguments: 64,
  /** Descriptions are cut at this many characters, names and titles at 256. */
  maxDescriptionChars: 2_048,
} as const;

const NAME_PATTERN = /^[^\s\u0000-\u001f\u007f]{1,128}$/;
// No control characters or whitespace inside a URI.
const URI_PATTERN = /^[^\s\u0000-\u001f\u007f]+$/;

function text(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  const trimmed = value.trim();
  if (trimmed.length <= max) return trimmed;
  let end = max;
  const code = trimmed.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${trimmed.slice(0, end)} [... cut]`;
}

function optionalText(value: unknown, max: number): string | undefined {
  const out = text(value, max);
  return out === '' ? undefined : out;
}

function validUri(value: unknown): value is string {
  return (
    typeof value === 'string' && value.length <= MCP_CONTENT_LIMITS.maxUriChars && URI_PATTERN.test(value)
  );
}

/** What a normalisation kept and how many entries it ignored. */
export interface Normalized<T> {
  readonly items: T[];
  readonly dropped: number;
}

/** Normalises `resources/list` entries one by one: no `uri` or `name`, or a repeated `uri`, is dropped. */
export function normalizeResources(
  raw: readonly unknown[],
  seen = new Set<string>(),
): Normalized<McpResource> {
  const items: McpResource[] = [];
  let dropped = 0;
  for (const item of raw) {
    if (!isJsonObject(item) || !validUri(item.uri) || seen.has(item.uri)) {
      dropped++;
      continue;
    }
    const name = text(item.name, 256) || item.uri.slice(0, 256);
    seen.add(item.uri);
    items.push({
      uri: item.uri,
      name,
      title: optionalText(item.title, 256),
      description: text(item.description, MCP_CONTENT_LIMITS.maxDescriptionChars),
      mimeType: optionalText(item.mimeType, 128),
      size:
        typeof item.size === 'number' && Number.isSafeInteger(item.size) && item.size >= 0
          ? item.size
          : undefined,
    });
  }
  return { items, dropped };
}

/** Normalises `resources/templates/list` entries: an unparsable template or a repeated one is dropped. */
export function normalizeTemplates(
  raw: readonly unknown[],
  seen = new Set<string>(),
): Normalized<McpResourceTemplate> {
  const items: McpResourceTemplate[] = [];
  let dropped = 0;
  for (const item of raw) {
    const variables =
      isJsonObject(item) && validUri(item.uriTemplate) ? templateVariables(item.uriTemplate) : undefined;
    if (!isJsonObject(item) || !variables || seen.has(item.uriTemplate as string)) {
      dropped++;
      continue;
    }
    const uriTemplate = item.uriTemplate as string;
    seen.add(uriTemplate);
    items.push({
      uriTemplate,
      name: text(item.name, 256) || uriTemplate.slice(0, 256),
      title: optionalText(item.title, 256),
      description: text(item.description, MCP_CONTENT_LIMITS.maxDescriptionChars),
      mimeType: optionalText(item.mimeType, 128),
      variables,
    });
  }
  return { items, dropped };
}

/** Normalises `prompts/list` entries: an invalid or repeated name is dropped; invalid arguments are left out. */
export function normalizePrompts(raw: readonly unknown[], seen = new Set<string>()): Normalized<McpPrompt> {
  const items: McpPrompt[] = [];
  let dropped = 0;
  for (const item of raw) {
    if (
      !isJsonObject(item) ||
      typeof item.name !== 'string' ||
      !NAME_PATTERN.test(item.name) ||
      seen.has(item.name)
    ) {
      dropped++;
      continue;
    }
    seen.add(item.name);
    const args: McpPromptArgument[] = [];
    const names = new Set<string>();
    for (const argument of Array.isArray(item.arguments) ? item.arguments : []) {
      if (args.length >= MCP_CONTENT_LIMITS.maxPromptArguments) break;
      if (!isJsonObject(argument) || typeof argument.name !== 'string' || !NAME_PATTERN.test(argument.name))
        continue;
      if (names.has(argument.name)) continue;
      names.add(argument.name);
      args.push({
        name: argument.name,
        description: text(argument.description, MCP_CONTENT_LIMITS.maxDescriptionChars),
        required: argument.required === true,
      });
    }
    items.push({
      name: item.name,
      title: optionalText(item.title, 256),
      description: text(item.description, MCP_CONTENT_LIMITS.maxDescriptionChars),
      arguments: args,
    });
  }
  return { items, dropped };
}

// RFC 6570 varname: ALPHA / DIGIT / "_" / pct-encoded, dots between.
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

/**
 * The variables of an RFC 6570 URI template (levels 1 to 4: operators `+ # . / ; ? &`, prefix `:N`
 * and explode `*` modifiers), or undefined when it is not a valid template (unbalanced braces, a
 * bad variable name, a reserved operator). Written here rather than taken from the SDK's
 * `UriTemplate` because `list` and `inspect` must not load the SDK; expansion uses the SDK's class.
 */
export function templateVariables(template: string): McpTemplateVariable[] | undefined {
  const out: McpTemplateVariable[] = [];
  const byName = new Map<string, McpTemplateVariable>();
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf('{', index);
    const close = template.indexOf('}', index);
    if (open === -1) {
      if (close !== -1) return undefined;
      break;
    }
    if (close !== -1 && close < open) return undefined;
    const end = template.indexOf('}', open);
    if (end === -1) return undefined;
    let body = template.slice(open + 1, end);
    if (body.includes('{')) return undefined;
    let operator = '';
    if (/^[+#./;?&]/.test(body)) {
      operator = body[0] as string;
      body = body.slice(1);
    } else if (/^[=,!@|]/.test(body)) {
      return undefined;
    }
    if (body === '') return undefined;
    for (const spec of body.split(',')) {
      const name = spec.replace(/\*$/, '').replace(/:[1-9][0-9]{0,3}$/, '');
      if (!VARNAME.test(name)) return undefined;
      const required = operator !== '?' && operator !== '&';
      const known = byName.get(name);
      if (known) {
        if (required && !known.required) {
          const upgraded = { name, required: true };
          out[out.indexOf(known)] = upgraded;
          byName.set(name, upgraded);
        }
        continue;
      }
      const variable = { name, required };
      byName.set(name, variable);
      out.push(variable);
    }
    index = end + 1;
  }
  return out;
}

/** Whether a URI template has any expression at all (a template without one names one resource). */
export function isUriTemplate(template: string): boolean {
  return /\{[^{}]+\}/.test(template);
}

/** The outcome of checking `arguments` against a prompt's arguments or a template's variables. */
export type ContentArgumentsCheck =
  | { readonly ok: true; readonly values: Record<string, string> }
  | {
      readonly ok: false;
      /** Value-free: names only (the model's own unknown names are cut and counted). */
      readonly problem: string;
      readonly reason: 'not_an_object' | 'missing' | 'unknown' | 'not_a_string';
    };

function shownNames(names: readonly string[]): string {
  const shown = names
    .slice(0, 5)
    .map((name) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name));
  return `${shown.join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
}

/**
 * Checks `arguments` against declared names (a prompt's arguments, a template's variables): an
 * object whose values are strings (finite numbers and booleans are taken as their text, which is
 * what every prompt argument is on the wire), with every required name present and no other name.
 * The problem text names arguments, never their values.
 */
export function checkContentArguments(
  args: unknown,
  declared: readonly { readonly name: string; readonly required: boolean }[],
  what: 'argument' | 'variable',
): ContentArgumentsCheck {
  const given = args === undefined || args === null ? {} : args;
  if (!isJsonObject(given)) {
    return {
      ok: false,
      reason: 'not_an_object',
      problem: `\`arguments\` must be an object of ${what} names to strings`,
    };
  }
  const known = new Set(declared.map((item) => item.name));
  const unknown = Object.keys(given).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      reason: 'unknown',
      problem: `unknown ${what}${unknown.length === 1 ? '' : 's'} ${shownNames(unknown)}${declared.length === 0 ? ` (it takes no ${what}s)` : ''}`,
    };
  }
  const missing = declared
    .filter((item) => item.required && given[item.name] === undefined)
    .map((item) => item.name);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: 'missing',
      problem: `missing required ${what}${missing.length === 1 ? '' : 's'} ${shownNames(missing)}`,
    };
  }
  const values: Record<string, string> = {};
  const wrong: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (typeof value === 'string') values[name] = value;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')
      values[name] = String(value);
    else wrong.push(name);
  }
  if (wrong.length > 0) {
    return {
      ok: false,
      reason: 'not_a_string',
      problem: `${what}${wrong.length === 1 ? '' : 's'} ${shownNames(wrong)} must be ${wrong.length === 1 ? 'a string' : 'strings'}`,
    };
  }
  return { ok: true, values };
}
