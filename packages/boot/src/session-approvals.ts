import { createPermissionRules, type PermissionRules } from './permission-rules.js';

/**
 * What a session remembers of a person's "allow for this session" answers: exact tool names, and
 * for shells prefix rules (`bash(git push:*)`), matched as allow rules are (never a compound,
 * redirected or substituted command). It lives as long as the session object: a new session, a
 * child session or a resumed one asks again.
 */
export interface SessionApprovals {
  /** Whether an earlier answer covers this call (`rule` is what it would remember: a name or a prefix rule). */
  covers(toolName: string, subject: string | undefined, shell: boolean): string | undefined;
  /** Remembers an answer: `rule` is an exact tool name or a shell prefix rule. */
  remember(rule: string, shell: boolean): void;
  /** Everything remembered, in order (for tests and inspection). */
  list(): readonly string[];
}

/** Creates an empty {@link SessionApprovals}. */
export function createSessionApprovals(): SessionApprovals {
  const names = new Set<string>();
  const shellRules: string[] = [];
  let rules: PermissionRules | undefined;
  return {
    covers(toolName, subject, shell) {
      if (!shell) return names.has(toolName) ? toolName : undefined;
      if (subject === undefined || shellRules.length === 0) return undefined;
      rules ??= createPermissionRules({ allow: shellRules });
      const match = rules.match(toolName, subject);
      return match?.effect === 'allow' ? match.rule : undefined;
    },
    remember(rule, shell) {
      if (!shell) {
        names.add(rule);
        return;
      }
      if (shellRules.includes(rule)) return;
      shellRules.push(rule);
      rules = undefined;
    },
    list: () => [...names, ...shellRules],
  };
}
