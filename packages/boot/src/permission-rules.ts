import { domainToASCII } from 'node:url';
import { err, ok, type Result } from '@toolhost/contracts';

/** The three rule lists of a configuration, evaluated deny → ask → allow. */
export interface PermissionRuleLists {
  readonly allow?: readonly string[];
  readonly ask?: readonly string[];
  readonly deny?: readonly string[];
}

/** The effect of a rule list. */
export type PermissionRuleEffect = 'deny' | 'ask' | 'allow';

/** One parsed rule: an exact tool name, optionally with an argument pattern matched against the call's subject. */
export interface PermissionRule {
  /** The rule as written. */
  readonly text: string;
  readonly toolName: string;
  /** Absent: every call of the tool. `domain`: a host name and its subdomains (web_fetch). */
  readonly argument?: { readonly kind: 'exact' | 'prefix' | 'domain'; readonly value: string };
}

/** The rule that decided, with its effect. */
export interface PermissionRuleMatch {
  readonly effect: PermissionRuleEffect;
  readonly rule: string;
}

/** Parsed rule lists with a matcher. */
export interface PermissionRules {
  /**
   * The first matching rule in the order deny → ask → allow, or `undefined`. `subject` is the text
   * argument rules match (the shell command); a call without a subject matches only plain name rules.
   */
  match(toolName: string, subject?: string): PermissionRuleMatch | undefined;
  readonly size: number;
}

const NAME = /^[^\s()*]{1,128}$/;
const RULE = /^([^\s()*]{1,128})\((.*)\)$/s;

/**
 * Parses one rule: `name` (an exact tool name, such as `read_file`, `mcp__github__create_issue` or
 * `mcp_connect__github`) or `name(pattern)` where `pattern` is an exact subject (`bash(npm test)`)
 * or a prefix ending in `:*` (`bash(git status:*)`, matching `git status` and `git status --short`
 * but not `git statusx`). Names are never wildcards: `mcp__github__*` is rejected. `web_fetch`
 * rules name a domain, `web_fetch(domain:example.com)`, which matches the host and its subdomains.
 */
export function parsePermissionRule(text: unknown): Result<PermissionRule, string> {
  if (typeof text !== 'string')
    return err('expected a string rule such as "read_file" or "bash(git status:*)"');
  const trimmed = text.trim();
  if (NAME.test(trimmed)) return ok({ text: trimmed, toolName: trimmed });
  const match = RULE.exec(trimmed);
  if (!match) {
    return err(
      trimmed.includes('*') && !trimmed.includes('(')
        ? 'tool names in rules are exact; wildcards such as "mcp__server__*" are not supported'
        : 'expected an exact tool name or "name(pattern)" such as "bash(git status:*)"',
    );
  }
  const toolName = match[1] as string;
  const pattern = (match[2] as string).trim();
  if (pattern === '' || pattern === ':*' || pattern === '*') {
    return err('an argument pattern must not be empty; use the bare tool name to match every call');
  }
  const domain = parseDomainPattern(toolName, pattern);
  if (domain) return domain.ok ? ok({ text: trimmed, toolName, argument: domain.value }) : err(domain.error);
  if (pattern.endsWith(':*')) {
    const prefix = pattern.slice(0, -2).trim();
    if (prefix.includes('*')) return err('only a trailing ":*" is a wildcard in an argument pattern');
    return ok({ text: trimmed, toolName, argument: { kind: 'prefix', value: normaliseSpaces(prefix) } });
  }
  if (pattern.includes('*')) return err('only a trailing ":*" is a wildcard in an argument pattern');
  return ok({ text: trimmed, toolName, argument: { kind: 'exact', value: normaliseSpaces(pattern) } });
}

/**
 * Builds a matcher from rule lists. Throws a `TypeError` naming the list and index of a malformed
 * rule (configuration loading reports these as `CONFIG_INVALID` before this is reached).
 *
 * Subject matching is shell-aware, because the only subjects today are shell commands: a command
 * is split into simple commands at unquoted `;`, `&&`, `||`, `|`, `&`, newlines and substitutions
 * (`$(`, backticks, `<(`, `>(`). A deny or ask rule matches when any simple command matches it; an
 * allow rule matches only a single simple command with no redirection or substitution, so
 * `bash(git status:*)` never approves `git status && rm -rf x`. This is a best-effort reading of the
 * command; the OS sandbox remains the boundary.
 */
export function createPermissionRules(lists: PermissionRuleLists = {}): PermissionRules {
  const parsed: Record<PermissionRuleEffect, PermissionRule[]> = { deny: [], ask: [], allow: [] };
  for (const effect of ['deny', 'ask', 'allow'] as const) {
    (lists[effect] ?? []).forEach((text, index) => {
      const rule = parsePermissionRule(text);
      if (!rule.ok) throw new TypeError(`permissions.${effect}[${index}]: ${rule.error}`);
      parsed[effect].push(rule.value);
    });
  }
  const size = parsed.deny.length + parsed.ask.length + parsed.allow.length;
  return {
    match(toolName, subject) {
      let analysis: SubjectAnalysis | undefined;
      for (const effect of ['deny', 'ask', 'allow'] as const) {
        for (const rule of parsed[effect]) {
          if (rule.toolName !== toolName) continue;
          if (!rule.argument) return { effect, rule: rule.text };
          if (subject === undefined) continue;
          if (rule.argument.kind === 'domain') {
            if (domainMatches(rule.argument.value, subject)) return { effect, rule: rule.text };
            continue;
          }
          analysis ??= analyseSubject(subject);
          const candidates =
            effect === 'allow' ? (analysis.simple ? analysis.segments : []) : analysis.segments;
          if (candidates.some((segment) => argumentMatches(rule.argument!, segment))) {
            return { effect, rule: rule.text };
          }
        }
      }
      return undefined;
    },
    size,
  };
}

/** Tools whose subject is a host name: their rules name domains, `web_fetch(domain:example.com)`. */
const DOMAIN_RULE_TOOLS: ReadonlySet<string> = new Set(['web_fetch']);
const DOMAIN =
  /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A `domain:` pattern (`web_fetch(domain:example.com)`): a host name, matched with its subdomains,
 * case-insensitively, in its ASCII (punycode) form. Rules of a host-name tool must use this form;
 * other tools keep their exact and prefix patterns (`undefined` here).
 */
function parseDomainPattern(
  toolName: string,
  pattern: string,
): { ok: true; value: { kind: 'domain'; value: string } } | { ok: false; error: string } | undefined {
  const isDomain = pattern.startsWith('domain:');
  if (!isDomain && !DOMAIN_RULE_TOOLS.has(toolName)) return undefined;
  if (!isDomain)
    return { ok: false, error: `${toolName} rules name a domain, such as "${toolName}(domain:example.com)"` };
  let value = pattern.slice('domain:'.length).trim().toLowerCase();
  if (value.endsWith('.')) value = value.slice(0, -1);
  // An IPv6 literal in brackets, or a name in its ASCII form (IDN names through punycode).
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  // Only name characters go to the IDN conversion (it would silently drop a path).
  else if (/^[^\s/\\:@?#*[\]%]+$/u.test(value)) value = domainToASCII(value) || value;
  if (!(DOMAIN.test(value) || (value.includes(':') && /^[0-9a-f:.]+$/.test(value))))
    return {
      ok: false,
      error:
        'a domain pattern is a host name such as "domain:example.com" (no scheme, port, path or wildcard)',
    };
  return { ok: true, value: { kind: 'domain', value } };
}

/** Whether a host name is the domain or one of its subdomains. */
function domainMatches(domain: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === domain || name.endsWith(`.${domain}`);
}

function argumentMatches(argument: NonNullable<PermissionRule['argument']>, segment: string): boolean {
  if (argument.kind === 'exact') return segment === argument.value;
  return segment === argument.value || segment.startsWith(`${argument.value} `);
}

interface SubjectAnalysis {
  /** Simple commands, whitespace-normalised, leading `NAME=value` assignments removed. */
  readonly segments: string[];
  /** One simple command without redirection, substitution or leading assignment. */
  readonly simple: boolean;
}

// Hand-written rather than a shell parser library: we only need where simple commands start, and a
// conservative answer ("not simple") whenever the text uses anything beyond plain words and quotes.
function analyseSubject(subject: string): SubjectAnalysis {
  const segments: string[] = [];
  let current = '';
  let simple = true;
  let quote: "'" | '"' | undefined;
  const flush = () => {
    const words = normaliseSpaces(current);
    const segment = stripAssignments(words);
    // `NAME=value cmd` can change what cmd does (GIT_EXTERNAL_DIFF, LD_PRELOAD ...): never allow-matched.
    if (segment !== words) simple = false;
    if (segment) segments.push(segment);
    current = '';
  };
  for (let index = 0; index < subject.length; index++) {
    const char = subject[index] as string;
    const next = subject[index + 1];
    if (quote === "'") {
      if (char === "'") quote = undefined;
      current += char;
      continue;
    }
    if (char === '\\') {
      current += char + (next ?? '');
      index++;
      continue;
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '`' || (char === '$' && next === '(')) {
        simple = false;
        flush();
        continue;
      }
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if (char === ';' || char === '\n' || char === '\r' || char === '|' || char === '&' || char === '`') {
      simple = false;
      flush();
      continue;
    }
    if (char === '$' && next === '(') {
      simple = false;
      flush();
      index++;
      continue;
    }
    if (char === '(' || char === ')' || char === '{' || char === '}') {
      simple = false;
      flush();
      continue;
    }
    if (char === '>' || char === '<') {
      simple = false;
      if (next === '(') {
        flush();
        index++;
        continue;
      }
    }
    current += char;
  }
  flush();
  if (segments.length !== 1) simple = false;
  return { segments, simple };
}

function stripAssignments(segment: string): string {
  let rest = segment;
  for (;;) {
    const match = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+/.exec(rest);
    if (!match) return rest;
    rest = rest.slice(match[0].length);
  }
}

function normaliseSpaces(text: string): string {
  return text.trim().replace(/[ \t]+/g, ' ');
}

const SUBCOMMAND = /^[A-Za-z][A-Za-z-]*$/;
const PLAIN_WORD = /^[A-Za-z0-9_./+-]+$/;

/**
 * The prefix rule a person's "allow for this session" of one shell command remembers:
 * `name(<command> [<subcommand>]:*)`, such as `bash(git push:*)` for `git push origin main` or
 * `bash(ls:*)` for `ls -la`. The second word is kept when it looks like a subcommand (letters and
 * `-`, no leading `-`). `undefined` for a command that an allow rule never matches (a compound,
 * redirected or substituted command, a leading assignment) or whose first word is not a plain word
 * (quoted, escaped, expanded), so such a command is asked again each time.
 */
export function sessionPrefixRule(toolName: string, subject: string): string | undefined {
  const analysis = analyseSubject(subject);
  if (!analysis.simple) return undefined;
  const words = (analysis.segments[0] ?? '').split(' ');
  const first = words[0] ?? '';
  if (!PLAIN_WORD.test(first)) return undefined;
  const second = words[1];
  const prefix = second !== undefined && SUBCOMMAND.test(second) ? `${first} ${second}` : first;
  const rule = `${toolName}(${prefix}:*)`;
  return parsePermissionRule(rule).ok ? rule : undefined;
}
