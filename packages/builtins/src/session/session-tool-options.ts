import type { ToolAnnotations } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import type { SessionStatePort } from './session-state.js';

/** Options of {@link createSessionTools} and of each session tool. */
export interface SessionToolsOptions {
  /** Finds the calling session's state (the host implements it; the state lives in its session). */
  readonly state: SessionStatePort;
  /** Decides the paths `present` records (read access; secret and outside paths are refused). */
  readonly pathPolicy: PathPolicy;
  /**
   * Register `compress`, which needs the embedding loop's conversation (a session's
   * `SessionStateAccess.conversation`). Default false: hosts without such a loop never list it.
   */
  readonly conversationTools?: boolean;
}

/** Facts of the session tools that only read or replace the session's own bookkeeping. */
export const SESSION_READ_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false,
  idempotent: true,
});

/** Facts of the goal writers (the seed's read-only flag false): they change the session's goal. */
export const SESSION_WRITE_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnly: false,
  destructive: false,
  openWorld: false,
  idempotent: false,
});
