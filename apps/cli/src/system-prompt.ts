import { execFile } from 'node:child_process';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The seed's default task: explore the project read-only and summarise it. */
export const DEFAULT_TASK =
  'Explore this project read-only and summarise it: what it is for, how it is organised (the main ' +
  'directories and packages), how to build and test it, and anything notable. Do not change any file.';

/** Who runs: the main agent, a subagent doing one delegated task, or the read-only planner of `run --planner`. */
export type AgentRole = 'agent' | 'subagent' | 'planner';

/** What the system prompt says about the run. */
export interface SystemPromptOptions {
  readonly surfaceNames: readonly string[];
  readonly sandbox: string;
  readonly approval: string;
  /** Default `agent`. */
  readonly role?: AgentRole;
  /** Whether `task`, `parallel_tasks` and `read_subagent_result` are registered (mentioned to the main agent only). */
  readonly subagents?: boolean;
}

/**
 * The fixed instructions of the reference agent (explore with the read and
 * search tools, the shell for what they cannot do, read before edit), adapted to the surface: tools
 * off the surface are named as `tool:<name>` capabilities. Deterministic for a given surface and
 * policy, so it stays a cacheable prefix.
 */
export function systemPrompt(options: SystemPromptOptions): string {
  const names = options.surfaceNames;
  const lines = [
    'You are a coding agent working in a software project through toolhost, which decides and runs your tool ' +
      `calls under a run policy (sandbox ${options.sandbox}, approval ${options.approval}).`,
    '',
    'How to work:',
    '- Explore before you conclude: list directories, find files, search text, and read the files that matter.',
    `- Your tools: ${names.join(', ')}.`,
  ];
  if (names.includes('use_capability')) {
    lines.push(
      '- Built-in tools not in that list (such as ls, glob and grep) are reached through use_capability: action ' +
        '"call", capability_id "tool:<name>", and their parameters in "arguments". Action "search" or "list" shows ' +
        'what exists; "inspect" shows a schema.',
    );
  }
  lines.push(
    '- Prefer the read and search tools to the shell; use the shell for what they cannot do (git log, git status, wc). ' +
      'Prefer single commands: chaining and redirection may need approval.',
    '- Read a file before you edit or overwrite it; use write_file only for new files or full rewrites.',
    '- Independent read-only calls can go in one turn: they run in parallel.',
    '- A failed call answers "CODE: cause; recovery". Follow the recovery; do not repeat a call that was refused.',
    '- When the task is done, answer in plain text without calling tools.',
  );
  const role = options.role ?? 'agent';
  if (role === 'agent' && options.subagents && names.includes('use_capability')) {
    lines.push(
      '- For long investigations or independent parts of the work, delegate to subagents: tool:task (one) or ' +
        'tool:parallel_tasks (up to 8 at once), with read_only=true when they only need to read. Each returns a ' +
        'preview of its answer and a Subagent reference (sa_...); read a whole answer with tool:read_subagent_result, ' +
        'and continue a partial, failed or cancelled one with task(continue_from=...).',
    );
  }
  if (role === 'subagent') {
    lines.push(
      '',
      'You are a subagent: another agent delegated one task to you and sees only your final answer. Make that ' +
        'answer complete and self-contained (what you found, where, and what you changed, if anything).',
    );
  }
  if (role === 'planner') {
    lines.push(
      '',
      'You are the planner: investigate read-only (you cannot change anything; writing and destructive tools are ' +
        'refused) and answer with a concrete, numbered plan for the task: which files to change and how, and how to ' +
        'check the result. An executor session with the full run policy carries out your plan after you.',
    );
  }
  return lines.join('\n');
}

function git(root: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', [...args], { cwd: root, timeout: 3_000, windowsHide: true }, (error, stdout) => {
      resolve(error ? null : stdout.trim());
    });
  });
}

/**
 * The `<environment_context>` block of a fresh run: working directory, date,
 * git branch and count of changed files (git calls time out after 3 s), the first 40 top-level
 * entries, and `AGENTS.md` or `CLAUDE.md` capped at 4000 characters. Every field is best effort and
 * is left out when it cannot be read.
 */
export async function environmentContext(root: string, now: Date = new Date()): Promise<string> {
  const lines = ['<environment_context>', `cwd: ${root}`, `date: ${now.toISOString().slice(0, 10)}`];
  const [branch, status] = await Promise.all([
    git(root, ['rev-parse', '--abbrev-ref', 'HEAD']),
    git(root, ['status', '--porcelain']),
  ]);
  if (branch) lines.push(`git branch: ${branch}`);
  if (status !== null) lines.push(`git changed files: ${status === '' ? 0 : status.split('\n').length}`);
  try {
    const entries = (await readdir(root, { withFileTypes: true }))
      .filter((entry) => entry.name !== '.git')
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const shown = entries.slice(0, 40).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    lines.push(
      `top-level entries: ${shown.join(' ')}${entries.length > 40 ? ` (and ${entries.length - 40} more)` : ''}`,
    );
  } catch {
    // Unreadable root: the model will find out through its tools.
  }
  for (const name of ['AGENTS.md', 'CLAUDE.md']) {
    try {
      // Only a regular file in the root itself: a symlink could point anywhere, and this read does
      // not go through the path policy.
      if (!(await lstat(join(root, name))).isFile()) continue;
      const text = await readFile(join(root, name), 'utf8');
      lines.push(
        `${name}:`,
        text.length > 4000 ? `${text.slice(0, 4000)}\n[... cut at 4000 characters]` : text,
      );
      break;
    } catch {
      // Not there: try the next name.
    }
  }
  lines.push('</environment_context>');
  return lines.join('\n');
}
