import type { LineEnding } from '@toolhost/read-evidence';
import {
  type ApplyEditStepOptions,
  applyEditStep,
  type EditStep,
  type EditStepFailure,
  type MatchStrategy,
  type ReplacedRegion,
} from './match-edit.js';

/** The result of several steps applied in order, in memory. */
export interface AppliedEdits {
  readonly text: string;
  /** Replacements made by all steps. */
  readonly replacements: number;
  /** Whether any step needed the fuzzy rung. */
  readonly fuzzy: boolean;
  /** How each step matched. */
  readonly strategies: readonly MatchStrategy[];
  /** Regions of the last step (for a single edit: exactly where the replacement landed). */
  readonly lastRegions: readonly ReplacedRegion[];
  /** Length of the prefix the new text shares with the original. */
  readonly prefixLength: number;
  /** Length of the suffix the new text shares with the original. */
  readonly suffixLength: number;
}

/** A failed step: its 0-based index and why. */
export interface FailedEdit {
  readonly index: number;
  readonly error: EditStepFailure;
}

/** Options of {@link applyEdits}. */
export interface ApplyEditsOptions {
  readonly lineEnding: LineEnding;
  readonly displayPath: string;
  readonly offersReplaceAll: boolean;
}

/**
 * Applies steps in order, each to the result of the previous one, all or nothing: the first failing
 * step ends it and nothing is returned but the failure. Tracks the span that differs from the
 * original (shared prefix and suffix) so a diff never has to compare whole files.
 */
export function applyEdits(
  text: string,
  steps: readonly EditStep[],
  options: ApplyEditsOptions,
): { ok: true; value: AppliedEdits } | { ok: false; error: FailedEdit } {
  const stepOptions: ApplyEditStepOptions = options;
  let current = text;
  let replacements = 0;
  let prefixLength = text.length;
  let suffixLength = text.length;
  const strategies: MatchStrategy[] = [];
  let lastRegions: readonly ReplacedRegion[] = [];
  for (const [index, step] of steps.entries()) {
    const applied = applyEditStep(current, step, stepOptions);
    if (!applied.ok) return { ok: false, error: { index, error: applied.error } };
    for (const region of applied.value.regions) {
      prefixLength = Math.min(prefixLength, region.start);
      suffixLength = Math.min(suffixLength, current.length - region.end);
    }
    replacements += applied.value.regions.length;
    strategies.push(applied.value.strategy);
    lastRegions = applied.value.regions;
    current = applied.value.text;
  }
  // A shared prefix and suffix cannot overlap in the shorter text.
  const shorter = Math.min(text.length, current.length);
  prefixLength = Math.min(prefixLength, shorter);
  suffixLength = Math.min(suffixLength, shorter - prefixLength);
  return {
    ok: true,
    value: {
      text: current,
      replacements,
      fuzzy: strategies.includes('fuzzy'),
      strategies,
      lastRegions,
      prefixLength,
      suffixLength,
    },
  };
}
