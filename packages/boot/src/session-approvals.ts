import { createPermissionRules, type PermissionRules } from './permission-rules.js';

/**
 * What one "allow for this session" remembers: an exact tool name, a shell prefix rule
 * (`bash(git push:*)`, matched as allow rules are: never a compound, redirected or substituted
 * command), or for a shell command no prefix rule can cover, that exact command (`bash(<command>)`).
 */
export interface RememberedApproval {
  readonly kind: 'tool' | 'prefix' | 'exact';
  /** As shown to the person: the tool name, or `name(pattern)`. */
  readonly text: string;
  /** For `exact`: the command it covers. */
  readonly subject?: string;
}

/**
 * What a session remembers of a person's "allow for this session" answers. It lives as long as the
 * session object: a new session, a child session or a resumed one asks again.
 */
export interface SessionApprovals {
  /** The remembered answer that covers this call (its text; `name(exact command)` for an exact one), or `undefined`. */
  covers(toolName: string, subject: string | undefined, shell: boolean): string | undefined;
  remember(approval: RememberedApproval): void;
  /** Everything remembered, in order (for tests and inspection). */
  list(): readonly string[];
}

/** Creates an empty {@link SessionApprovals}. */
export function createSessionApprovals(): SessionApprovals {
  const names = new Set<string>();
  const prefixRules: string[] = [];
  const exact = new Map<string, string>();
  const order: string[] = [];
  let rules: PermissionRules | undefined;
  return {
    covers(toolName, subject, shell) {
      if (!shell) return names.has(toolName) ? toolName : undefined;
      if (subject === undefined) return undefined;
      const same = exact.get(`${toolName}\u0000${subject}`);
      if (same !== undefined) return same;
      if (prefixRules.length === 0) return undefined;
      rules ??= createPermissionRules({ allow: prefixRules });
      const match = rules.match(toolName, subject);
      return match?.effect === 'allow' ? match.rule : undefined;
    },
    remember(approval) {
      if (approval.kind === 'exact') {
        if (approval.subject === undefined) return;
        const toolName = approval.text.slice(0, approval.text.indexOf('('));
        // Named without the command: what is remembered shows up in audits, which hold no values.
        const label = `${toolName}(exact command)`;
        exact.set(`${toolName}\u0000${approval.subject}`, label);
        order.push(label);
        return;
      }
      if (order.includes(approval.text)) return;
      order.push(approval.text);
      if (approval.kind === 'tool') names.add(approval.text);
      else {
        prefixRules.push(approval.text);
        rules = undefined;
      }
    },
    list: () => [...order],
  };
}
