import { boundedText, ERROR_CODES, type ErrorKind, firstLine, isErrorCode } from '@toolhost/contracts';

/** One call's outcome as the storm breaker sees it. */
export interface StormOutcome {
  /** The resolved tool name (the name as called when it did not resolve). */
  readonly toolName: string;
  readonly ok: boolean;
  /** The call's arguments with sorted keys (JSON), for the repeated-call guard. */
  readonly argumentsKey?: string;
  /** The model-visible output, for the repeated-call guard. */
  readonly output?: string;
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly signature?: string | undefined;
    readonly details?: Readonly<Record<string, unknown>>;
  };
}

/** Advisory guidance produced when a streak reaches the threshold. */
export interface StormNotice {
  /**
   * `failed`: every call failed the same way; `blocked`: every call was refused by policy;
   * `repeated`: the same calls with the same arguments gave the same output again.
   */
  readonly kind: 'failed' | 'blocked' | 'repeated';
  /** How many equivalent batches in a row. */
  readonly count: number;
  /** The batch signature: `tool` NUL `category` per call, joined by NUL. */
  readonly signature: string;
  /** The text for the model (and a person): starts with `[loop guard]`. */
  readonly text: string;
}

/** Options of {@link createStormBreaker}. */
export interface StormBreakerOptions {
  /** Equivalent all-failed batches in a row before guidance; default 3. */
  readonly threshold?: number;
  /**
   * Identical batches in a row (same tools, arguments up to key order, and outputs) before the
   * repeated-call notice; default 4 (the fourth occurrence speaks).
   */
  readonly repeatThreshold?: number;
}

/** The repeated-failure loop guard. Advisory: it never blocks, rewrites or stops anything. */
export interface StormBreaker {
  /**
   * Records one assistant turn's batch (a single call is a batch of one) and returns guidance when
   * the streak reaches the threshold (and on every further equivalent batch). Several failing calls
   * in one batch advance the streak by one.
   */
  observe(batch: readonly StormOutcome[]): StormNotice | undefined;
  /** Forgets both streaks. */
  reset(): void;
  /** The current failed-batch streak length. */
  readonly streak: number;
}

/**
 * Normalises an error to its storm category, so rewording (or different argument values) does not
 * evade the breaker: an `argument_validation:` signature passes unchanged; "exit status N" / "exit
 * code N" (or `details.exitCode`) → `tool:exit:N`; timeouts and deadlines → `tool:transient:timeout`;
 * connection failures → `tool:transient:connection`; text with both "fail" and "test" →
 * `tool:test_failure`; anything else → `tool:<CODE>` (plus the signature when the error has one).
 */
export function stormCategory(error: NonNullable<StormOutcome['error']>): string {
  if (error.signature?.startsWith('argument_validation:')) return error.signature;
  const text = `${error.message}`;
  const exitCode = error.details?.exitCode;
  if (typeof exitCode === 'number') return `tool:exit:${exitCode}`;
  const exit = /\bexit(?:ed)?(?: with)? (?:status|code)[ :=]*(-?\d+)/i.exec(text);
  if (exit) return `tool:exit:${Number(exit[1])}`;
  if (error.code === 'TIMEOUT' || /\b(timed? ?out|timeout|deadline exceeded)\b/i.test(text)) {
    return 'tool:transient:timeout';
  }
  if (
    error.code === 'MCP_CONNECT_FAILED' ||
    /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|connection (refused|reset|closed|lost))\b/i.test(
      text,
    )
  ) {
    return 'tool:transient:connection';
  }
  if (/fail/i.test(text) && /test/i.test(text)) return 'tool:test_failure';
  return error.signature ? `tool:${error.code}:${error.signature}` : `tool:${error.code}`;
}

function kindOf(code: string): ErrorKind | undefined {
  return isErrorCode(code) ? ERROR_CODES[code].kind : undefined;
}

/**
 * Creates the storm breaker (BT-STORM-1..BT-STORM-6 in REQUIREMENTS.md): a batch counts only when every call failed; its
 * signature is every call's (tool, category); the same signature as the previous failed batch adds
 * one, a different one restarts at 1, any success resets. At the threshold (default 3) it returns
 * one `[loop guard]` notice naming the tool (or "this batch of N tool calls"), the original error
 * and advice by category. Batches where every call was blocked by policy keep their own streak.
 */
export function createStormBreaker(options: StormBreakerOptions = {}): StormBreaker {
  const threshold = options.threshold ?? 3;
  const repeatThreshold = options.repeatThreshold ?? 4;
  let failedSignature = '';
  let failedCount = 0;
  let blockedCount = 0;
  let blockedSignatures: string[] = [];
  // Tool, arguments and output of each call of the previous batch, compared part by part (built
  // by a plain loop: it runs on every batch, issue 25).
  let repeatedKey: (string | undefined)[] | undefined;
  let repeatedCount = 0;

  /** The repeated-call guard: consecutive identical batches, outputs included; other work resets it. */
  const observeRepeat = (batch: readonly StormOutcome[]): StormNotice | undefined => {
    const key: (string | undefined)[] = new Array(batch.length * 3);
    let comparable = true;
    for (let index = 0; index < batch.length; index++) {
      const outcome = batch[index] as StormOutcome;
      if (outcome.argumentsKey === undefined || outcome.output === undefined) comparable = false;
      key[index * 3] = outcome.toolName;
      key[index * 3 + 1] = outcome.argumentsKey;
      key[index * 3 + 2] = outcome.output;
    }
    if (!comparable) {
      repeatedKey = undefined;
      repeatedCount = 0;
      return undefined;
    }
    const previous = repeatedKey;
    let same = previous !== undefined && previous.length === key.length;
    for (let index = 0; same && index < key.length; index++) same = previous![index] === key[index];
    repeatedCount = same ? repeatedCount + 1 : 1;
    repeatedKey = key;
    if (repeatedCount < repeatThreshold) return undefined;
    const first = batch[0] as StormOutcome;
    const who =
      batch.length === 1 ? `"${boundedText(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
    return {
      kind: 'repeated',
      count: repeatedCount,
      signature: batch.map((outcome) => outcome.toolName).join('\u0000'),
      text: [
        `[loop guard] ${who} has now been called ${repeatedCount} times in a row with the same arguments and returned the same output each time. Calling it again will not change the result.`,
        'Use the output you already have, change the arguments, or take the next step (or stop and report what you found).',
      ].join('\n'),
    };
  };

  return {
    observe(batch) {
      if (batch.length === 0) return undefined;
      const repeated = observeRepeat(batch);
      if (batch.some((outcome) => outcome.ok || !outcome.error)) {
        failedSignature = '';
        failedCount = 0;
        blockedCount = 0;
        blockedSignatures = [];
        return repeated;
      }
      const categories = batch.map((outcome) => stormCategory(outcome.error!));
      const signature = batch
        .map((outcome, index) => `${outcome.toolName}\u0000${categories[index]}`)
        .join('\u0000');
      if (signature === failedSignature) failedCount++;
      else {
        failedSignature = signature;
        failedCount = 1;
      }
      const allBlocked = batch.every((outcome) => kindOf(outcome.error!.code) === 'blocked');
      blockedCount = allBlocked ? blockedCount + 1 : 0;
      blockedSignatures = allBlocked ? [...blockedSignatures.slice(-(threshold - 1)), signature] : [];
      // A policy refusal repeated is better answered with the blocked advice than the failure advice.
      if (blockedCount >= threshold) {
        // The blocked streak counts refused turns whatever they were; it says "the same host
        // response" only when it was.
        const same = blockedSignatures.every((entry) => entry === signature);
        return {
          kind: 'blocked',
          count: blockedCount,
          signature,
          text: same
            ? guidance('blocked', blockedCount, batch, categories)
            : blockedGuidance(blockedCount, batch),
        };
      }
      if (failedCount >= threshold) {
        return {
          kind: 'failed',
          count: failedCount,
          signature,
          text: guidance('failed', failedCount, batch, categories),
        };
      }
      return undefined;
    },
    reset() {
      failedSignature = '';
      failedCount = 0;
      blockedCount = 0;
      blockedSignatures = [];
      repeatedKey = undefined;
      repeatedCount = 0;
    },
    get streak() {
      return failedCount;
    },
  };
}

function guidance(
  kind: 'failed' | 'blocked',
  count: number,
  batch: readonly StormOutcome[],
  categories: readonly string[],
): string {
  const first = batch[0]!;
  const who =
    batch.length === 1 ? `"${boundedText(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
  const what = kind === 'failed' ? 'failed' : 'been blocked or failed';
  const lines = [
    `[loop guard] ${who} has now ${what} ${count} times in a row with the same host response. Re-sending it — even with the wording changed — will not help.`,
    `Host response: ${boundedText(`${first.error!.code}: ${firstLine(first.error!.message)}`, 512)}`,
  ];
  const codes = new Set(batch.map((outcome) => outcome.error!.code));
  if (kind === 'blocked') {
    lines.push(
      'The run policy refuses this action. Choose a different approach that the run allows, or stop and explain to the user what you need.',
    );
  } else if (categories.every((category) => category.startsWith('argument_validation:'))) {
    if (categories.some((category) => category.endsWith(':schema')) || codes.has('HOST_CONFIGURATION')) {
      lines.push(
        'The tool itself is misconfigured on the host; changing the arguments cannot fix it. Use another tool, or report that the tool is unavailable.',
      );
    } else {
      lines.push(
        'Stop repeating the same invalid input. Fix the parameters against the tool schema (use_capability(action="inspect") shows it). If you cannot build a valid call, report that tool argument generation failed and what remains unfinished instead of retrying.',
      );
    }
  } else if (codes.has('RESULT_RANGE_INVALID') || codes.has('FILE_TOO_LARGE')) {
    lines.push(
      'Narrow the request, or page the stored result with session:tool_result using the offsets it returned.',
    );
  } else {
    lines.push(
      'Read the error, change the approach (different arguments that address the cause, another tool, or a smaller step), or stop and report what is blocking you.',
    );
  }
  return lines.join('\n');
}

/** The blocked notice of a streak of different refused calls: it names the last one, never "the same response". */
function blockedGuidance(count: number, batch: readonly StormOutcome[]): string {
  const first = batch[0]!;
  const last =
    batch.length === 1 ? `"${boundedText(first.toolName)}"` : `this batch of ${batch.length} tool calls`;
  return [
    `[loop guard] The run policy has refused your tool calls ${count} turns in a row (most recently ${last}: ${boundedText(`${first.error!.code}: ${firstLine(first.error!.message)}`, 512)}).`,
    'Trying other tools or wordings for the same action will not get past the policy. Choose an approach that the run allows, or stop and explain to the user what you need.',
  ].join('\n');
}
