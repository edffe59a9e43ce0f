import { join } from 'node:path';
import type { SubagentService, SubagentSummary, TaskArguments } from '@toolhost/builtins';
import {
  err,
  type JsonValue,
  ok,
  type Result,
  type ToolCallContext,
  ToolhostError,
  toToolhostError,
  utf8Prefix,
} from '@toolhost/contracts';
import type { AuditEventType } from './audit-log.js';
import { sessionDir } from './session-store.js';
import type { Session } from './session-types.js';
import { createSubagentStore, newSubagentReference, type SubagentStore } from './subagent-store.js';
import type {
  SubagentRecord,
  SubagentResume,
  SubagentRunner,
  SubagentRunOutcome,
  SubagentStatus,
} from './subagent-types.js';

/** How deep subagents nest: a subagent (depth 1) may not start subagents of its own. */
export const MAX_SUBAGENT_DEPTH = 1;
/** How long closing the host waits for subagents that are still winding down after a cancellation. */
const SETTLE_ON_CLOSE_MS = 10_000;

/** An open session as the subagent service sees it. */
export interface SubagentCaller {
  readonly session: Session;
  /** The root session of its lineage (itself for a top-level session). */
  readonly lineageId: string;
  /** 0 for a top-level session, 1 for its children ... */
  readonly depth: number;
  /** Whether the lineage's root keeps its state on disk (then so do its subagent results). */
  readonly persistent: boolean;
}

/** What the service needs from its host. */
export interface SubagentServiceHost {
  /** The real project root. */
  readonly root: string;
  readonly stateDir: string;
  readonly runner: SubagentRunner;
  /** The open session a call came from, or `undefined`. */
  caller(sessionId: string | undefined): SubagentCaller | undefined;
  /** The host's audit sink (events are value-free). */
  emit(type: AuditEventType, fields: Record<string, unknown>): void;
}

/** The service and its shutdown. */
export interface SubagentServiceHandle {
  readonly service: SubagentService;
  /** Waits (bounded) for cancelled subagents still winding down, then closes the stores. */
  close(): Promise<void>;
}

interface PlannedRun {
  readonly task: TaskArguments;
  readonly reference: string;
  readonly readOnly: boolean;
  readonly previous: SubagentRecord | undefined;
  readonly resume: SubagentResume | undefined;
}

/**
 * The host side of the subagent tools: every task runs in its own child session of the caller
 * (`readOnlyStrict` for `read_only`), through the embedding loop's {@link SubagentRunner}; each
 * outcome is persisted with its status, retryable flag, last answer and runner state in the
 * lineage's store (`<state dir>/sessions/<lineage root>/subagents/`), and read back only from the
 * same lineage and project root. A cancelled call answers at once with `cancelled` (retryable);
 * the subagent's final state is recorded when it has wound down, and a `continue_from` waits for it.
 */
export function createSubagentService(host: SubagentServiceHost): SubagentServiceHandle {
  const stores = new Map<string, SubagentStore>();
  /** References whose subagent is still running or winding down, with the promise of its final record. */
  const active = new Map<string, Promise<unknown>>();
  let closed = false;

  const storeOf = (caller: SubagentCaller): SubagentStore => {
    let store = stores.get(caller.lineageId);
    if (!store) {
      store = createSubagentStore({
        ...(caller.persistent ? { dir: join(sessionDir(host.stateDir, caller.lineageId), 'subagents') } : {}),
        lineageId: caller.lineageId,
        root: host.root,
      });
      stores.set(caller.lineageId, store);
    }
    return store;
  };

  const callerOf = (context: ToolCallContext): Result<SubagentCaller, ToolhostError> => {
    const caller = host.caller(context.sessionId);
    if (!caller || closed) {
      return err(
        new ToolhostError({
          code: 'EXECUTION_ERROR',
          message: `"${context.toolName}" was called outside an open session of this host`,
          recovery: 'dispatch calls through a session (host.openSession) or the host',
        }),
      );
    }
    return ok(caller);
  };

  /** Checks every task before anything starts: the references to continue, and that none repeats. */
  async function plan(
    store: SubagentStore,
    tasks: readonly TaskArguments[],
  ): Promise<Result<PlannedRun[], ToolhostError>> {
    const planned: PlannedRun[] = [];
    const seen = new Set<string>();
    for (const task of tasks) {
      const continued = task.continue_from?.trim();
      if (continued === undefined) {
        planned.push({
          task,
          reference: newSubagentReference(),
          readOnly: task.read_only === true,
          previous: undefined,
          resume: undefined,
        });
        continue;
      }
      // A subagent cancelled a moment ago may still be winding down: its final state comes first.
      await active.get(continued);
      const found = store.read(continued);
      if (!found.ok) return found;
      const record = found.value;
      if (seen.has(record.reference) || active.has(record.reference)) {
        return err(
          new ToolhostError({
            code: 'SUBAGENT_NOT_FOUND',
            message: `the subagent ${record.reference} is already running; continue it once, after it stopped`,
            recovery: null,
            details: { reason: 'running' },
          }),
        );
      }
      if (!record.retryable) {
        return err(
          new ToolhostError({
            code: 'SUBAGENT_NOT_FOUND',
            message: `the subagent ${record.reference} is ${record.status} and not retryable, so it cannot be continued`,
            recovery: 'read its answer with read_subagent_result, or start a new task',
            details: { reason: 'not_retryable', status: record.status },
          }),
        );
      }
      seen.add(record.reference);
      planned.push({
        task,
        reference: record.reference,
        // A continuation keeps the policy of the subagent it continues.
        readOnly: record.readOnly,
        previous: record,
        resume: {
          state: store.readState(record),
          status: record.status,
          answer: store.readAnswer(record) ?? '',
          runs: record.runs,
        },
      });
    }
    return ok(planned);
  }

  async function runOne(
    caller: SubagentCaller,
    store: SubagentStore,
    run: PlannedRun,
    signal: AbortSignal,
  ): Promise<SubagentSummary> {
    const { task, reference, readOnly, previous, resume } = run;
    const createdAt = previous?.createdAt ?? new Date().toISOString();
    const runs = (previous?.runs ?? 0) + 1;
    const description = task.description;
    const persist = (
      outcome: SubagentRunOutcome,
      sessionId: string | undefined,
      state: JsonValue | undefined | 'keep',
    ): SubagentSummary => {
      // By default everything but a completed subagent may be continued.
      const retryable = outcome.retryable ?? outcome.status !== 'completed';
      const record = store.write({
        reference,
        parentSessionId: caller.session.id,
        description,
        readOnly,
        status: outcome.status,
        retryable,
        runs,
        sessionIds: [...(previous?.sessionIds ?? []), ...(sessionId ? [sessionId] : [])],
        transcripts: [...(previous?.transcripts ?? []), ...(outcome.transcript ? [outcome.transcript] : [])],
        error: outcome.error,
        createdAt,
        answer: outcome.answer,
        state,
      });
      host.emit('subagent-finished', {
        sessionId: caller.session.id,
        reference,
        childSessionId: sessionId,
        status: record.status,
        retryable: record.retryable,
        runs,
        answerBytes: record.answerBytes,
        ...(record.error ? { code: record.error.code } : {}),
      });
      return summaryOf(record, outcome.answer);
    };
    const stoppedBefore = (): SubagentRunOutcome => ({
      status: 'cancelled',
      answer: resume?.answer ?? '',
      retryable: true,
    });
    if (signal.aborted) return persist(stoppedBefore(), undefined, 'keep');

    let child: Session;
    try {
      child = await caller.session.openChild(readOnly ? { readOnlyStrict: true } : {});
    } catch (error) {
      const failure = toToolhostError(error);
      return persist(
        {
          status: 'failed',
          answer: resume?.answer ?? '',
          retryable: resume !== undefined,
          error: { code: failure.code, message: failure.message },
        },
        undefined,
        'keep',
      );
    }
    host.emit('subagent-started', {
      sessionId: caller.session.id,
      reference,
      childSessionId: child.id,
      readOnly,
      runs,
    });
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let toldCancelled = false;
    let finalWritten = false;
    const running: Promise<SubagentRunOutcome> = (async () =>
      host.runner.run({
        reference,
        description,
        prompt: task.prompt,
        readOnly,
        session: child,
        parentSessionId: caller.session.id,
        ...(resume ? { resume } : {}),
        signal: controller.signal,
      }))().then(
      (outcome) => normalizeOutcome(outcome, controller.signal.aborted),
      (error: unknown) => {
        const failure = toToolhostError(error);
        return {
          status: controller.signal.aborted ? ('cancelled' as const) : ('failed' as const),
          answer: resume?.answer ?? '',
          error: { code: failure.code, message: failure.message },
        };
      },
    );
    const finished = (async (): Promise<SubagentSummary> => {
      let outcome = await running;
      signal.removeEventListener('abort', onAbort);
      // What the caller was told stands: a subagent reported cancelled stays cancelled (and retryable).
      if (toldCancelled) outcome = { ...outcome, status: 'cancelled', retryable: true };
      try {
        finalWritten = true;
        return persist(outcome, child.id, outcome.state);
      } finally {
        await child.close().catch(() => undefined);
      }
    })();
    // The entry goes when the final record is written, before anyone awaiting it resumes.
    active.set(
      reference,
      finished
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => active.delete(reference)),
    );
    const stopped = new Promise<'stopped'>((resolve) => {
      if (controller.signal.aborted) resolve('stopped');
      else controller.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
    const first = await Promise.race([finished, stopped]);
    if (first !== 'stopped') return first;
    // Cancelled: answer now (the caller's call must end promptly); the subagent's final state is
    // written once it has wound down, and a continue_from waits for that.
    toldCancelled = true;
    if (finalWritten) return finished;
    return persist(stoppedBefore(), child.id, 'keep');
  }

  const service: SubagentService = {
    async run(tasks, context) {
      const found = callerOf(context);
      if (!found.ok) return found;
      const caller = found.value;
      if (caller.depth >= MAX_SUBAGENT_DEPTH) {
        return err(
          new ToolhostError({
            code: 'PERMISSION_DENIED',
            message: 'a subagent may not start subagents of its own',
            recovery: 'do the work yourself, or answer and let the agent that started you delegate it',
            details: { toolName: context.toolName, decisionSource: 'host' },
          }),
        );
      }
      const store = storeOf(caller);
      const planned = await plan(store, tasks);
      if (!planned.ok) return planned;
      const summaries = await Promise.all(
        planned.value.map((run) => runOne(caller, store, run, context.signal)),
      );
      return ok(summaries);
    },
    async read(args, context) {
      const found = callerOf(context);
      if (!found.ok) return found;
      const page = storeOf(found.value).page(args.reference, {
        ...(args.offset === undefined ? {} : { offset: args.offset }),
        ...(args.limit === undefined ? {} : { limit: args.limit }),
      });
      if (!page.ok) return page;
      const { header } = page.value;
      return ok({
        text: page.value.text,
        details: {
          reference: header.result_ref,
          offset: header.offset,
          nextOffset: header.next_offset,
          totalBytes: header.total_bytes,
          complete: header.complete,
        },
      });
    },
  };

  return {
    service,
    async close() {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...active.values()]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SETTLE_ON_CLOSE_MS);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      for (const store of stores.values()) store.close();
      stores.clear();
    },
  };
}

const STATUSES: ReadonlySet<SubagentStatus> = new Set(['completed', 'partial', 'failed', 'cancelled']);

/** A runner's outcome made well-formed: a known status, a string answer, a cancelled one when stopped. */
function normalizeOutcome(outcome: SubagentRunOutcome, aborted: boolean): SubagentRunOutcome {
  const value = (
    typeof outcome === 'object' && outcome !== null ? outcome : {}
  ) as Partial<SubagentRunOutcome>;
  let status: SubagentStatus = STATUSES.has(value.status as SubagentStatus)
    ? (value.status as SubagentStatus)
    : 'failed';
  if (aborted && status !== 'completed') status = 'cancelled';
  const error =
    value.error && typeof value.error.code === 'string' && typeof value.error.message === 'string'
      ? { code: value.error.code, message: value.error.message.slice(0, 1_000) }
      : status === 'failed' && !STATUSES.has(value.status as SubagentStatus)
        ? { code: 'EXECUTION_ERROR', message: 'the subagent runner returned a malformed outcome' }
        : undefined;
  return {
    status,
    answer: typeof value.answer === 'string' ? value.answer : '',
    ...(typeof value.retryable === 'boolean' ? { retryable: value.retryable } : {}),
    ...(value.state === undefined ? {} : { state: value.state }),
    ...(error ? { error } : {}),
    ...(typeof value.transcript === 'string' ? { transcript: value.transcript } : {}),
  };
}

function summaryOf(record: SubagentRecord, answer: string): SubagentSummary {
  return {
    reference: record.reference,
    description: record.description,
    status: record.status,
    retryable: record.retryable,
    readOnly: record.readOnly,
    // What was kept (a longer answer is cut on a character boundary), so preview and pages agree.
    answer: utf8Prefix(answer, record.answerBytes),
    answerSha256: record.answerSha256,
    runs: record.runs,
    ...(record.error ? { error: record.error } : {}),
  };
}
