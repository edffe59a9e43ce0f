import type { Deliverable, GoalRecord, TodoItem } from '@toolhost/builtins';
import { ToolhostError } from '@toolhost/contracts';
import type { ObservationStoreSnapshot } from '@toolhost/read-evidence';
import type { SessionJobRecord, SessionResultRecord, SessionSnapshot } from './session-types.js';

/**
 * The resumable state of a host's default session ({@link Host.snapshot}), in the wave-1 format:
 * the same content as a session snapshot, plus the session's id so its stored results are found again.
 */
export interface HostSnapshot {
  readonly format: 'toolhost-host-v1';
  /** The real project root it was taken over. */
  readonly root: string;
  readonly takenAt: string;
  readonly surfaceFingerprint: string;
  readonly observations: ObservationStoreSnapshot;
  /** The background jobs the host knew (their processes end with the host; logs are not kept). */
  readonly jobs: readonly SessionJobRecord[];
  /** Stored (truncated) results, oldest first. */
  readonly results: readonly SessionResultRecord[];
  /** The default session's id (absent in snapshots of hosts before sessions existed). */
  readonly sessionId?: string;
  /** The default session's task list, goal and deliverables (absent before the session tools). */
  readonly todos?: readonly TodoItem[];
  readonly goal?: GoalRecord | null;
  readonly deliverables?: readonly Deliverable[];
}

function restoreError(problem: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `options: restore: ${problem}`,
    details: { source: 'options', field: 'restore' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A host snapshot as the snapshot of its default session. */
export function hostSnapshotOf(snapshot: SessionSnapshot): HostSnapshot {
  return {
    format: 'toolhost-host-v1',
    root: snapshot.root,
    takenAt: snapshot.takenAt,
    surfaceFingerprint: snapshot.surfaceFingerprint,
    observations: snapshot.observations,
    jobs: snapshot.jobs,
    results: snapshot.results,
    sessionId: snapshot.id,
    todos: snapshot.todos ?? [],
    goal: snapshot.goal ?? null,
    deliverables: snapshot.deliverables ?? [],
  };
}

/**
 * Checks a snapshot given to restore (a host snapshot or a session snapshot) against the root it
 * must belong to. Throws `CONFIG_INVALID` naming `restore` for anything else.
 */
export function checkRestoreSnapshot(
  value: unknown,
  root: string,
): {
  readonly sessionId: string | undefined;
  readonly observations: ObservationStoreSnapshot;
  readonly jobs: readonly SessionJobRecord[];
  readonly results: readonly SessionResultRecord[];
  /** The session tools' state as found (checked again when the session reads it). */
  readonly todos?: unknown;
  readonly goal?: unknown;
  readonly deliverables?: unknown;
} {
  if (typeof value !== 'object' || value === null) {
    throw restoreError('expected a snapshot taken by Host.snapshot() or Session.snapshot()');
  }
  const snapshot = value as Partial<HostSnapshot> & Partial<SessionSnapshot>;
  const format = snapshot.format as string | undefined;
  if (
    (format !== 'toolhost-host-v1' && format !== 'toolhost-session-v1') ||
    typeof snapshot.observations !== 'object' ||
    snapshot.observations === null ||
    !Array.isArray(snapshot.results)
  ) {
    throw restoreError(
      'expected a snapshot taken by Host.snapshot() (format toolhost-host-v1) or Session.snapshot()',
    );
  }
  if (snapshot.root !== root) throw restoreError('the snapshot was taken over another project root');
  const sessionId = format === 'toolhost-session-v1' ? snapshot.id : snapshot.sessionId;
  return {
    sessionId: typeof sessionId === 'string' ? sessionId : undefined,
    observations: snapshot.observations as ObservationStoreSnapshot,
    jobs: Array.isArray(snapshot.jobs) ? snapshot.jobs : [],
    results: snapshot.results as readonly SessionResultRecord[],
    todos: snapshot.todos,
    goal: snapshot.goal,
    deliverables: snapshot.deliverables,
  };
}
