import { randomBytes } from 'node:crypto';
import { type Result, ToolhostError, type TurnOrigin } from '@toolhost/contracts';
import type { CreateGoalArguments, UpdateGoalArguments } from './session-arguments.js';
import type { GoalRecord, GoalState, GoalStatus, GoalStopReason } from './session-state.js';

/** One automatic round the embedding loop may run now, from {@link beginGoalRound}. */
export interface GoalRound {
  readonly goalId: string;
  readonly revision: number;
  readonly objective: string;
  /** 1 for the first round of the activation. */
  readonly round: number;
  readonly maxGoalRounds: number | null;
}

/** An accepted update: the new state and the supplied fields its action does not consume. */
export interface GoalUpdate {
  readonly state: GoalState;
  readonly ignored: readonly string[];
}

const GOAL_ID = /^goal_[0-9a-f]{16}$/;
const STATUSES: ReadonlySet<string> = new Set<GoalStatus>(['active', 'paused', 'blocked', 'completed']);

function isHumanTurn(turn: TurnOrigin | undefined): boolean {
  return turn === undefined || turn.origin === 'human';
}

function stopReasonOf(status: GoalStatus): GoalStopReason | null {
  if (status === 'completed') return 'completed';
  if (status === 'blocked') return 'blocked';
  if (status === 'paused') return 'paused';
  return null;
}

/**
 * `create_goal`: creates and activates a goal (`revision` 1, `status` active, a fresh activation).
 * Only a person's direct turn may (`PERMISSION_DENIED` in an automatic goal round); an unfinished
 * goal is never replaced (`GOAL_CONFLICT` naming its id). An omitted or null `max_goal_rounds` is
 * unlimited.
 */
export function createGoal(
  current: GoalState | null,
  args: CreateGoalArguments,
  turn: TurnOrigin | undefined,
  now: Date = new Date(),
): Result<GoalState, ToolhostError> {
  if (!isHumanTurn(turn)) {
    return {
      ok: false,
      error: new ToolhostError({
        code: 'PERMISSION_DENIED',
        message:
          'create_goal runs only in a direct human turn, and this call belongs to an automatic goal round',
        recovery: 'work on the current goal, or finish it with update_goal (complete or blocked)',
        details: { turn: 'goal_round' },
      }),
    };
  }
  if (current && current.goal.status !== 'completed') {
    return {
      ok: false,
      error: new ToolhostError({
        code: 'GOAL_CONFLICT',
        message: `the session already has the unfinished goal ${current.goal.id} (status ${current.goal.status}); create_goal never replaces an unfinished goal`,
        recovery: `finish it first (update_goal with goal_id ${current.goal.id}: complete, or blocked), or edit it`,
        details: { goalId: current.goal.id, status: current.goal.status },
      }),
    };
  }
  const at = now.toISOString();
  return {
    ok: true,
    value: {
      goal: {
        id: `goal_${randomBytes(8).toString('hex')}`,
        revision: 1,
        objective: args.objective,
        maxGoalRounds: args.max_goal_rounds ?? null,
        status: 'active',
        blockedReason: null,
        createdAt: at,
        updatedAt: at,
      },
      activation: { roundsRun: 0, startedAt: at },
      stopReason: null,
    },
  };
}

function refusal(
  code: 'GOAL_CONFLICT' | 'ARGUMENT_VALIDATION' | 'PERMISSION_DENIED',
  message: string,
  recovery: string,
  details: Record<string, unknown> = {},
): { ok: false; error: ToolhostError } {
  return { ok: false, error: new ToolhostError({ code, message, recovery, details }) };
}

/**
 * `update_goal`: the exact-revision protocol. In order: the retired `continue` action is refused
 * with guidance; the goal id must be the session's goal (`GOAL_NOT_FOUND`); an automatic goal round
 * may only `complete` or `blocked` the goal it belongs to (`PERMISSION_DENIED`); the revision must be
 * the goal's current one (`GOAL_REVISION_MISMATCH`); the action must suit the status
 * (`GOAL_CONFLICT`); `edit` needs `objective` or `max_goal_rounds`, `blocked` a `blocked_reason`
 * (`ARGUMENT_VALIDATION`). Only `edit` consumes objective and max_goal_rounds and only `blocked`
 * consumes blocked_reason; other supplied fields are reported in `ignored`. An accepted update adds
 * one to the revision. Nothing changes on a refusal.
 */
export function updateGoal(
  current: GoalState | null,
  args: UpdateGoalArguments,
  turn: TurnOrigin | undefined,
  now: Date = new Date(),
): Result<GoalUpdate, ToolhostError> {
  if (args.action === 'continue') {
    return refusal(
      'ARGUMENT_VALIDATION',
      'the update_goal action "continue" is retired: an active goal\'s automatic rounds continue on their own, and nothing is asked of the model to go on',
      'keep working on the goal; when it is done use action "complete", when it cannot go on "blocked" with a blocked_reason, and to restart a paused or blocked goal "resume"',
      { argument: 'action', action: 'continue' },
    );
  }
  if (!current || current.goal.id !== args.goal_id) {
    return {
      ok: false,
      error: new ToolhostError({
        code: 'GOAL_NOT_FOUND',
        message: current
          ? `the goal_id is not the id of the session's goal (${current.goal.id})`
          : 'the session has no goal',
        recovery: current ? 'pass the id get_goal returns' : 'a person can start one (create_goal)',
        details: { argument: 'goal_id', ...(current ? { goalId: current.goal.id } : {}) },
      }),
    };
  }
  const { goal } = current;
  if (!isHumanTurn(turn)) {
    if (turn?.goalId !== goal.id) {
      return refusal(
        'PERMISSION_DENIED',
        `this automatic goal round does not belong to goal ${goal.id}, so it may not update it`,
        'only a person, or a round of that goal, may update it',
        { goalId: goal.id, turn: 'goal_round' },
      );
    }
    if (args.action !== 'complete' && args.action !== 'blocked') {
      return refusal(
        'PERMISSION_DENIED',
        `an automatic goal round may only complete or block its own goal, not ${args.action} it`,
        'finish the goal with action "complete", or "blocked" with a blocked_reason; a person decides everything else',
        { goalId: goal.id, action: args.action, turn: 'goal_round' },
      );
    }
  }
  if (args.revision !== goal.revision) {
    return {
      ok: false,
      error: new ToolhostError({
        code: 'GOAL_REVISION_MISMATCH',
        message: `goal ${goal.id} is at revision ${goal.revision}, not the revision given; it changed since that revision was read`,
        details: { goalId: goal.id, revision: goal.revision },
      }),
    };
  }
  const ignored: string[] = [];
  if (args.action !== 'edit') {
    if (args.objective !== undefined) ignored.push('objective');
    if (args.max_goal_rounds !== undefined) ignored.push('max_goal_rounds');
  }
  if (args.action !== 'blocked' && args.blocked_reason !== undefined) ignored.push('blocked_reason');
  const at = now.toISOString();
  const wrongStatus = (allowed: string) =>
    refusal(
      'GOAL_CONFLICT',
      `goal ${goal.id} is ${goal.status}; ${args.action} applies to ${allowed} goals`,
      'read it with get_goal and choose an action its status allows',
      { goalId: goal.id, status: goal.status, action: args.action },
    );
  let next: GoalState;
  switch (args.action) {
    case 'edit': {
      if (goal.status === 'completed') return wrongStatus('unfinished');
      if (args.objective === undefined && args.max_goal_rounds === undefined) {
        return refusal(
          'ARGUMENT_VALIDATION',
          'edit changes objective or max_goal_rounds, and neither was given',
          'pass a new objective, a new max_goal_rounds (null for unlimited), or both',
          { argument: 'objective' },
        );
      }
      const maxGoalRounds = args.max_goal_rounds === undefined ? goal.maxGoalRounds : args.max_goal_rounds;
      next = {
        goal: {
          ...goal,
          revision: goal.revision + 1,
          objective: args.objective ?? goal.objective,
          maxGoalRounds,
          updatedAt: at,
        },
        activation: current.activation,
        // A new limit may let an activation that ran out go on.
        stopReason: current.stopReason === 'round_limit' ? null : current.stopReason,
      };
      break;
    }
    case 'pause':
      if (goal.status !== 'active') return wrongStatus('active');
      next = withStatus(current, 'paused', null, at);
      break;
    case 'resume':
      if (goal.status === 'completed' || (goal.status === 'active' && current.stopReason !== 'round_limit')) {
        return wrongStatus('paused, blocked or round-limited');
      }
      next = withStatus(current, 'active', null, at);
      break;
    case 'complete':
      if (goal.status === 'completed') return wrongStatus('unfinished');
      next = withStatus(current, 'completed', null, at);
      break;
    case 'blocked':
      if (goal.status !== 'active' && goal.status !== 'paused') return wrongStatus('active or paused');
      if (args.blocked_reason === undefined) {
        return refusal(
          'ARGUMENT_VALIDATION',
          'blocked needs a blocked_reason',
          'say in blocked_reason what stops the goal and what a person must decide or provide',
          { argument: 'blocked_reason' },
        );
      }
      next = withStatus(current, 'blocked', args.blocked_reason, at);
      break;
  }
  return { ok: true, value: { state: next, ignored } };
}

function withStatus(
  current: GoalState,
  status: GoalStatus,
  blockedReason: string | null,
  at: string,
): GoalState {
  return {
    goal: { ...current.goal, revision: current.goal.revision + 1, status, blockedReason, updatedAt: at },
    // Resuming starts a new activation; every other status ends the current one.
    activation: status === 'active' ? { roundsRun: 0, startedAt: at } : null,
    stopReason: stopReasonOf(status),
  };
}

/**
 * The embedding loop's question between turns: may an automatic round of the goal run now? Yes
 * while the goal is active and its activation has rounds left (the round is counted); otherwise the
 * state comes back with the stop reason (`round_limit` for an active goal whose rounds ran out).
 */
export function beginGoalRound(
  current: GoalState | null,
  now: Date = new Date(),
): { readonly state: GoalState | null; readonly round?: GoalRound } {
  if (!current) return { state: null };
  const { goal } = current;
  if (goal.status !== 'active') {
    return { state: { ...current, activation: null, stopReason: stopReasonOf(goal.status) } };
  }
  const activation = current.activation ?? { roundsRun: 0, startedAt: now.toISOString() };
  if (goal.maxGoalRounds !== null && activation.roundsRun >= goal.maxGoalRounds) {
    return { state: { ...current, activation, stopReason: 'round_limit' } };
  }
  const roundsRun = activation.roundsRun + 1;
  return {
    state: { ...current, activation: { ...activation, roundsRun }, stopReason: null },
    round: {
      goalId: goal.id,
      revision: goal.revision,
      objective: goal.objective,
      round: roundsRun,
      maxGoalRounds: goal.maxGoalRounds,
    },
  };
}

/**
 * The state of a goal read back from a snapshot: its record as it was, a fresh activation when it
 * is active (activations live in one process), the stop reason its status implies.
 */
export function restoredGoalState(record: GoalRecord, now: Date = new Date()): GoalState {
  return {
    goal: record,
    activation: record.status === 'active' ? { roundsRun: 0, startedAt: now.toISOString() } : null,
    stopReason: stopReasonOf(record.status),
  };
}

/** A goal record from untrusted JSON (a snapshot on disk), or `undefined` when it is not one. */
export function parseGoalRecord(value: unknown): GoalRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const text = (field: unknown, max: number) =>
    typeof field === 'string' && field.length > 0 && field.length <= max;
  if (
    typeof record.id !== 'string' ||
    !GOAL_ID.test(record.id) ||
    !Number.isSafeInteger(record.revision) ||
    (record.revision as number) < 1 ||
    !text(record.objective, 4000) ||
    !(
      record.maxGoalRounds === null ||
      (Number.isSafeInteger(record.maxGoalRounds) && (record.maxGoalRounds as number) >= 1)
    ) ||
    typeof record.status !== 'string' ||
    !STATUSES.has(record.status) ||
    !(record.blockedReason === null || text(record.blockedReason, 2000)) ||
    typeof record.createdAt !== 'string' ||
    typeof record.updatedAt !== 'string'
  ) {
    return undefined;
  }
  return {
    id: record.id,
    revision: record.revision as number,
    objective: record.objective as string,
    maxGoalRounds: record.maxGoalRounds as number | null,
    status: record.status as GoalStatus,
    blockedReason: record.blockedReason as string | null,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The model's view of a goal (snake_case, like the tools' arguments), or `null`. */
export function goalModelView(state: GoalState | null): Record<string, unknown> | null {
  if (!state) return null;
  const { goal, activation } = state;
  return {
    id: goal.id,
    revision: goal.revision,
    status: goal.status,
    objective: goal.objective,
    max_goal_rounds: goal.maxGoalRounds,
    blocked_reason: goal.blockedReason,
    activation: activation
      ? {
          rounds_run: activation.roundsRun,
          rounds_remaining:
            goal.maxGoalRounds === null ? null : Math.max(0, goal.maxGoalRounds - activation.roundsRun),
          started_at: activation.startedAt,
        }
      : null,
    stop_reason: state.stopReason,
    created_at: goal.createdAt,
    updated_at: goal.updatedAt,
  };
}
