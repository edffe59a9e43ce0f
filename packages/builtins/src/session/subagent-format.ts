import { utf8Prefix } from '@toolhost/contracts';

/** How a subagent's run ended. */
export type SubagentStatus = 'completed' | 'partial' | 'failed' | 'cancelled';

/** What the subagent tools show of one finished (or stopped) subagent. */
export interface SubagentSummary {
  /** The stable `Subagent reference`: `sa_` + 24 hex characters. */
  readonly reference: string;
  readonly description: string;
  readonly status: SubagentStatus;
  /** Whether `continue_from` may resume it. */
  readonly retryable: boolean;
  readonly readOnly: boolean;
  /** The last visible answer (empty when the subagent never answered). */
  readonly answer: string;
  /** SHA-256 (hex) of the whole answer's UTF-8 bytes. */
  readonly answerSha256: string;
  /** How many runs the reference has had (2 and more: it was continued). */
  readonly runs: number;
  /** Why a failed run failed: a code and a value-free message. */
  readonly error?: { readonly code: string; readonly message: string };
}

/** Options of {@link renderSubagentResults}. */
export interface RenderSubagentOptions {
  /** Bytes the whole text may take (UTF-8). */
  readonly budgetBytes: number;
  /** Most bytes of one subagent's preview, however much budget is left. */
  readonly previewMaxBytes: number;
}

/** The exact call that reads a subagent's answer from `offset` on (markers and the tools agree). */
export function subagentReadRecipe(reference: string, offset: number): string {
  const args = JSON.stringify({ reference, offset });
  return `use_capability(action="call", capability_id="tool:read_subagent_result", arguments=${args})`;
}

/**
 * Each subagent's fair share of `available` bytes: max-min fair (water-filling), so a short answer
 * takes only what it needs and the rest is shared equally by the longer ones; no share exceeds
 * `cap` or its own demand, and the shares sum to at most `available`.
 */
export function fairShares(demands: readonly number[], available: number, cap: number): number[] {
  const shares = new Array<number>(demands.length).fill(0);
  const order = demands.map((demand, index) => ({ demand: Math.min(demand, cap), index }));
  order.sort((a, b) => a.demand - b.demand);
  let remaining = Math.max(0, Math.floor(available));
  order.forEach(({ demand, index }, position) => {
    const fair = Math.floor(remaining / (order.length - position));
    const share = Math.max(0, Math.min(demand, fair));
    shares[index] = share;
    remaining -= share;
  });
  return shares;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function headerOf(summary: SubagentSummary, totalBytes: number, position: string): string {
  const lines = [
    `${position}${oneLine(summary.description, 200)}`,
    `Subagent reference: ${summary.reference}`,
    `status: ${summary.status}; retryable: ${summary.retryable}; read_only: ${summary.readOnly}${summary.runs > 1 ? `; runs: ${summary.runs}` : ''}`,
    `answer: ${totalBytes} bytes, sha256 ${summary.answerSha256}`,
  ];
  if (summary.error) lines.push(`error: ${summary.error.code}: ${oneLine(summary.error.message, 300)}`);
  if (summary.retryable) {
    lines.push(
      `to continue it: task with continue_from="${summary.reference}" and the next instruction as prompt`,
    );
  }
  return lines.join('\n');
}

function footerOf(summary: SubagentSummary, more: number, offset: number): string {
  return `--- ${more} more bytes; read them with ${subagentReadRecipe(summary.reference, offset)} ---`;
}

/**
 * The text `task` and `parallel_tasks` return: per subagent its description, `Subagent reference`,
 * status, retryable flag, the answer's size and SHA-256, and a fair preview of its answer; a cut
 * preview ends with the exact `read_subagent_result` call that continues it. The whole text fits
 * `budgetBytes` (so the host's 32 KiB shaper never cuts it): the headers are sized first, then the
 * rest is shared by {@link fairShares}, each share cut on a character boundary.
 */
export function renderSubagentResults(
  summaries: readonly SubagentSummary[],
  options: RenderSubagentOptions,
): string {
  const many = summaries.length > 1;
  const totals = summaries.map((summary) => Buffer.byteLength(summary.answer, 'utf8'));
  const intro = many ? `${summaries.length} subagents: ${countsOf(summaries)}.\n\n` : '';
  const headers = summaries.map((summary, index) =>
    headerOf(summary, totals[index] ?? 0, many ? `[${index + 1}/${summaries.length}] ` : ''),
  );
  const fixed = (index: number): number => {
    const total = totals[index] ?? 0;
    const summary = summaries[index] as SubagentSummary;
    // Worst case for the markers: the longest numbers they can hold.
    return (
      Buffer.byteLength(headers[index] ?? '', 'utf8') +
      Buffer.byteLength(`\n--- answer (first ${total} of ${total} bytes) ---\n`, 'utf8') +
      (total > 0 ? Buffer.byteLength(`\n${footerOf(summary, total, total)}`, 'utf8') : 0)
    );
  };
  const separators = Math.max(0, summaries.length - 1) * 2;
  let available = options.budgetBytes - Buffer.byteLength(intro, 'utf8') - separators;
  for (let index = 0; index < summaries.length; index++) available -= fixed(index);
  const shares = fairShares(totals, available, options.previewMaxBytes);
  const blocks = summaries.map((summary, index) => {
    const total = totals[index] ?? 0;
    const header = headers[index] ?? '';
    if (total === 0) return `${header}\n--- no answer ---`;
    const preview = utf8Prefix(summary.answer, shares[index] ?? 0);
    const shown = Buffer.byteLength(preview, 'utf8');
    if (shown === total) return `${header}\n--- answer (complete) ---\n${preview}`;
    return `${header}\n--- answer (first ${shown} of ${total} bytes) ---\n${preview}\n${footerOf(summary, total - shown, shown)}`;
  });
  return `${intro}${blocks.join('\n\n')}`;
}

function countsOf(summaries: readonly SubagentSummary[]): string {
  const counts = new Map<SubagentStatus, number>();
  for (const summary of summaries) counts.set(summary.status, (counts.get(summary.status) ?? 0) + 1);
  return (['completed', 'partial', 'failed', 'cancelled'] as const)
    .filter((status) => counts.has(status))
    .map((status) => `${counts.get(status)} ${status}`)
    .join(', ');
}
