import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import {
  beginGoalRound,
  type ConversationPort,
  type Deliverable,
  type GoalState,
  parseSessionStateSnapshot,
  restoredGoalState,
  type SessionStateAccess,
  type TodoItem,
} from '@toolhost/builtins';
import {
  type CapabilityAuthorization,
  type CapabilityAuthorizationRequest,
  type CapabilityProxy,
  createResultStore,
  type ResultStore as ProxyResultStore,
} from '@toolhost/capability-proxy';
import {
  type ArgumentValidator,
  ToolhostError,
  type ToolAnnotations,
  type ToolRegistry,
} from '@toolhost/contracts';
import {
  createJobManager,
  type JobEnvironmentOptions,
  type JobManager,
  type SandboxOptions,
} from '@toolhost/jobs';
import { createObservationStore, type ObservationStore } from '@toolhost/read-evidence';
import type { AuditEventType, AuditLog } from './audit-log.js';
import {
  believedMcpHints,
  capabilityRefusal,
  capabilityRefused,
  strictReadOnlyRefusal,
} from './capability-refusal.js';
import { executionScope } from './call-interceptors.js';
import { type ApprovalPolicy, type SandboxMode, sandboxDenial } from './decide-permission.js';
import { authorizeTarget, dispatchBatch, dispatchCall } from './dispatch-batch.js';
import type { HostExtension } from './host-extension.js';
import type {
  ApproveCallback,
  BatchResult,
  DispatchOptions,
  DispatchResult,
  ToolCall,
} from './host-types.js';
import type { PolicySurface, SurfaceFor } from './host-surface.js';
import { toolFacts } from './permit-call.js';
import type { SurfaceProfile } from './parse-host-config.js';
import type { PermissionRules } from './permission-rules.js';
import type { PathPolicyPort, PipelineContext } from './pipeline-context.js';
import type { SessionPlanPhase } from './plan-mode.js';
import type { HookRunner } from './run-hooks.js';
import type { HostPlatform } from './select-surface.js';
import { createSessionApprovals } from './session-approvals.js';
import { claimSessionDir, sessionDir, writeSessionSnapshot } from './session-store.js';
import type {
  ChildSessionOptions,
  Session,
  SessionJobRecord,
  SessionOptions,
  SessionPolicy,
  SessionSnapshot,
} from './session-types.js';
import { createStormBreaker } from './storm-breaker.js';

/** What a session takes from its host. */
export interface SessionHost {
  readonly root: string;
  readonly stateDir: string;
  readonly registry: ToolRegistry;
  readonly validator: ArgumentValidator;
  readonly platform: HostPlatform;
  readonly rules: PermissionRules;
  readonly pathPolicy: PathPolicyPort;
  /** The OS sandbox of the session's jobs, except its mode (the session's own). */
  readonly jobSandbox: Omit<SandboxOptions, 'mode'>;
  /** Which host variables the session's commands see (the configuration's `shellEnvironment`). */
  readonly jobEnvironment?: JobEnvironmentOptions;
  readonly approve: ApproveCallback | undefined;
  readonly approvalTimeoutMs: number;
  /** The host's audit sink; the session adds its id to every event. */
  readonly audit: AuditLog;
  /** Fires when the host closes. */
  readonly hostSignal: AbortSignal;
  /** The host's root capability proxy: sessions get their own frontend over its connections. */
  readonly proxy: CapabilityProxy;
  /** Servers only an unapproved project configuration defines. */
  readonly untrustedServers: ReadonlySet<string>;
  readonly shellName: string | undefined;
  readonly clientInjectedKeys: ReadonlySet<string>;
  /** The surface of a policy; with a conversation port it lists `compress`, in plan mode `exit_plan_mode`. */
  readonly surfaceFor: SurfaceFor;
  /** Whether the host registered the conversation tools (`compress`). */
  readonly conversationTools: boolean;
  /** The configured hooks, when there are any. */
  readonly hooks: HookRunner | undefined;
  readonly extensions: readonly HostExtension[];
  /** Called with every live session and when it ends, so tools find their session's state. */
  register(session: SessionServices): void;
  unregister(id: string): void;
  /** Handler promises still running after their call was reported (close waits for them). */
  onStraggler(settled: Promise<unknown>): void;
}

/** The per-session state the host's tools reach by the call's session id. */
export interface SessionServices {
  readonly id: string;
  readonly observations: ObservationStore;
  /** The job manager commands run in now (a read-only one during a plan phase). */
  readonly jobs: JobManager;
  readonly proxy: CapabilityProxy;
  /** The session tools' state (task list, goal, deliverables, conversation port). */
  readonly state: SessionStateAccess;
  /** The plan phase, for a session opened in plan mode. */
  readonly plan?: SessionPlanPhase;
}

/** How a session starts: fresh, or continuing a snapshot. */
export interface SessionStart {
  readonly id: string;
  readonly parentId: string | null;
  readonly policy: SessionPolicy;
  readonly approve: ApproveCallback | undefined;
  readonly persist: boolean;
  readonly readOnlyStrict: boolean;
  /** Opened in plan mode: a plan phase first, `exit_plan_mode` on the surface for the session's life. */
  readonly plan: boolean;
  readonly restore?: SessionSnapshot | undefined;
  /** The embedding loop's conversation (for `compress`), when it gave one. */
  readonly conversation?: ConversationPort | undefined;
  /**
   * Whether the session is in its plan phase now (`present` is refused then). Plan mode wires it;
   * default never.
   */
  readonly inPlanPhase?: (() => boolean) | undefined;
  /** Opens a child of this session (the host's `openSession` with the child's start). */
  readonly openChild: (parent: Session, options: ChildSessionOptions) => Promise<Session>;
}

const SANDBOX_RANK: Readonly<Record<SandboxMode, number>> = {
  read_only: 0,
  workspace_write: 1,
  danger_full_access: 2,
};
const APPROVAL_RANK: Readonly<Record<ApprovalPolicy, number>> = { strict: 0, on_request: 1, never: 2 };
const SURFACE_RANK: Readonly<Record<SurfaceProfile, number>> = { lean: 0, full: 1 };
const STRAGGLER_WAIT_MS = 2_000;
const SNAPSHOT_DELAY_MS = 250;

function policyError(field: string, problem: string): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `options: ${field}: ${problem}`,
    details: { source: 'options', field },
  });
}

/**
 * A session's policy from its options and its ceiling (the host's, or the parent's for a child):
 * never wider. Throws `CONFIG_INVALID` naming the field for a wider or unknown value.
 */
export function narrowPolicy(
  ceiling: SessionPolicy,
  options: Pick<SessionOptions, 'sandbox' | 'approval' | 'surface'>,
  readOnlyStrict = false,
): SessionPolicy {
  const sandbox = options.sandbox ?? (readOnlyStrict ? 'read_only' : ceiling.sandbox);
  const approval = options.approval ?? ceiling.approval;
  const surface = options.surface ?? ceiling.surface;
  if (!(sandbox in SANDBOX_RANK))
    throw policyError('sandbox', 'expected read_only, workspace_write or danger_full_access');
  if (!(approval in APPROVAL_RANK)) throw policyError('approval', 'expected strict, on_request or never');
  if (!(surface in SURFACE_RANK)) throw policyError('surface', 'expected lean or full');
  if (SANDBOX_RANK[sandbox] > SANDBOX_RANK[ceiling.sandbox]) {
    throw policyError('sandbox', `a session may not widen the sandbox beyond ${ceiling.sandbox}`);
  }
  if (readOnlyStrict && sandbox !== 'read_only')
    throw policyError('sandbox', 'a strict read-only child runs in read_only');
  if (APPROVAL_RANK[approval] > APPROVAL_RANK[ceiling.approval]) {
    throw policyError('approval', `a session may not ask less than ${ceiling.approval}`);
  }
  if (SURFACE_RANK[surface] > SURFACE_RANK[ceiling.surface]) {
    throw policyError('surface', `a session may not widen the surface beyond ${ceiling.surface}`);
  }
  return { sandbox, approval, surface };
}

/**
 * Creates a session over a host: its own observation store, job manager (in the session's
 * sandbox), result store (`<dir>/results`, readable by this session only), capability frontend,
 * storm breaker and audit ledger, and the pipeline context its calls run through.
 */
export function createSession(host: SessionHost, start: SessionStart): Session {
  const { id, policy } = start;
  const dir = sessionDir(host.stateDir, id);
  const release = start.persist ? claimSessionDir(dir, id) : () => undefined;
  const disposers: (() => unknown)[] = [release];
  try {
    return build();
  } catch (error) {
    for (const dispose of disposers.reverse()) {
      try {
        dispose();
      } catch {
        // the creation error is the one to report
      }
    }
    throw error;
  }

  function build(): Session {
    const conversation = host.conversationTools ? start.conversation : undefined;
    // A plan-mode session keeps exit_plan_mode on its surface for its whole life (prompt caches).
    const planMode = start.restore?.plan !== undefined ? true : start.plan;
    const surface = host.surfaceFor(policy.sandbox, policy.surface, conversation !== undefined, planMode);
    const audit = sessionAudit(host.audit, id);
    const observations = createObservationStore();
    let restoredJobsNote: string | undefined;
    // The session tools' state: replaced whole by the tools, kept in the snapshot.
    let todos: readonly TodoItem[] = [];
    let goal: GoalState | null = null;
    let deliverables: readonly Deliverable[] = [];
    if (start.restore) {
      observations.restore(start.restore.observations);
      restoredJobsNote = restoredJobs(start.restore.jobs);
      const restored = parseSessionStateSnapshot(start.restore);
      todos = restored.todos;
      goal = restored.goal ? restoredGoalState(restored.goal) : null;
      deliverables = restored.deliverables;
    }
    const state: SessionStateAccess = {
      todos: () => todos,
      replaceTodos: (next) => {
        todos = Object.freeze(next.map((todo) => Object.freeze({ ...todo })));
      },
      goal: () => goal,
      replaceGoal: (next) => {
        goal = Object.freeze({ ...next });
      },
      deliverables: () => deliverables,
      replaceDeliverables: (next) => {
        deliverables = Object.freeze(next.map((entry) => Object.freeze({ ...entry })));
      },
      inPlanPhase: () => start.inPlanPhase?.() === true,
      conversation,
    };
    const jobs = createJobManager({
      sandbox: { ...host.jobSandbox, mode: policy.sandbox },
      ...(host.jobEnvironment ? { environment: host.jobEnvironment } : {}),
      ...(start.persist ? { stateDir: join(dir, 'jobs') } : {}),
    });
    disposers.push(() => jobs.close());
    // The plan phase: until a person approves the plan, commands run in a read-only job manager of
    // their own (the session's sandbox applies after the approval).
    let planActive = planMode && (start.restore?.plan?.active ?? true);
    let planJobs: JobManager | undefined;
    if (planActive && policy.sandbox !== 'read_only') {
      const manager = createJobManager({
        sandbox: { ...host.jobSandbox, mode: 'read_only' },
        ...(start.persist ? { stateDir: join(dir, 'plan-jobs') } : {}),
      });
      planJobs = manager;
      disposers.push(() => manager.close());
    }
    const currentJobs = (): JobManager => (planActive && planJobs ? planJobs : jobs);
    let planEndNote: string | undefined;
    const planPhase: SessionPlanPhase | undefined = planMode
      ? {
          get active() {
            return planActive;
          },
          sandbox: policy.sandbox,
          end() {
            if (!planActive) return undefined;
            planActive = false;
            audit.emit('plan-approved', { sandbox: policy.sandbox });
            const manager = planJobs;
            if (!manager) return undefined;
            // Plan-phase commands ran read-only: their jobs end with the phase (their ids would not be
            // found in the session's own manager).
            const running = manager.list().filter((job) => job.state === 'running');
            void manager.close();
            if (running.length === 0) return undefined;
            planEndNote = `Background jobs started during the plan phase were stopped when the plan was approved (they ran in the read-only sandbox): ${running
              .map((job) => `${job.id} (${String(job.label).slice(0, 80)})`)
              .join('; ')}. Start them again if they are still needed.`;
            return planEndNote;
          },
        }
      : undefined;
    const approvals = createSessionApprovals();
    const resultStore: ProxyResultStore = createResultStore(
      start.persist ? { dir: join(dir, 'results') } : {},
    );
    disposers.push(() => resultStore.close());
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const onHostClose = () => controller.abort(host.hostSignal.reason);
    if (host.hostSignal.aborted) onHostClose();
    else host.hostSignal.addEventListener('abort', onHostClose, { once: true });
    disposers.push(() => host.hostSignal.removeEventListener('abort', onHostClose));

    let context: PipelineContext | undefined;
    const proxy = host.proxy.clone({
      catalog: () => surface.catalog,
      authorize: (request) =>
        authorizeCapability(context as PipelineContext, request, {
          sandbox: policy.sandbox,
          untrustedServers: host.untrustedServers,
          readOnlyStrict: start.readOnlyStrict,
        }),
      refusal: (target, call) =>
        capabilityRefusal(
          context as PipelineContext,
          target,
          {
            sandbox: policy.sandbox,
            untrustedServers: host.untrustedServers,
            readOnlyStrict: start.readOnlyStrict,
          },
          call,
        ),
      refuses: (target) =>
        capabilityRefused(context as PipelineContext, target, {
          sandbox: policy.sandbox,
          untrustedServers: host.untrustedServers,
          readOnlyStrict: start.readOnlyStrict,
        }),
      resultStore,
    });
    disposers.push(() => proxy.close());
    context = {
      sessionId: id,
      registry: host.registry,
      validator: host.validator,
      sandbox: policy.sandbox,
      approval: policy.approval,
      platform: host.platform,
      rules: host.rules,
      pathPolicy: host.pathPolicy,
      approve: start.approve,
      approvalTimeoutMs: host.approvalTimeoutMs,
      audit,
      resultStore,
      stormBreaker: createStormBreaker(),
      closeSignal: controller.signal,
      onStraggler: (settled) => {
        stragglers.add(settled);
        void settled.finally(() => stragglers.delete(settled));
        host.onStraggler(settled);
      },
      capabilityCallIsParallel: (args) => proxy.callAnnotations(args).readOnly === true,
      catalogTool: (name) => surface.catalogByName.get(name),
      shellName: host.shellName,
      clientInjectedKeys: host.clientInjectedKeys,
      counters: { call: 0, batch: 0 },
      root: host.root,
      hooks: host.hooks,
      extensions: host.extensions,
      approvals,
      plan: planPhase,
    };
    const pipeline = context;
    host.register({
      id,
      observations,
      get jobs() {
        return currentJobs();
      },
      proxy,
      state,
      ...(planPhase ? { plan: planPhase } : {}),
    });
    disposers.push(() => host.unregister(id));

    const inflight = new Set<Promise<unknown>>();
    const stragglers = new Set<Promise<unknown>>();
    let snapshotTimer: NodeJS.Timeout | undefined;
    let closing: Promise<void> | undefined;
    let closed = false;

    const snapshot = (): SessionSnapshot => ({
      format: 'toolhost-session-v1',
      id,
      parentId: start.parentId,
      root: host.root,
      takenAt: new Date().toISOString(),
      policy,
      surfaceFingerprint: surface.fingerprint,
      observations: observations.toJSON(),
      results: resultStore.entries().map(({ resultRef, callId, toolName, totalBytes, sha256 }) => ({
        resultRef,
        callId,
        toolName,
        totalBytes,
        sha256,
      })),
      ...(planPhase ? { plan: { active: planPhase.active } } : {}),
      jobs: currentJobs()
        .list()
        .map(
          ({
            id: jobId,
            shell,
            label,
            background,
            state,
            exitCode,
            startedAt,
            endedAt,
          }): SessionJobRecord => ({
            id: jobId,
            shell,
            label,
            background,
            state,
            ...(exitCode === undefined ? {} : { exitCode }),
            startedAt,
            ...(endedAt === undefined ? {} : { endedAt }),
          }),
        ),
      todos,
      goal: goal?.goal ?? null,
      deliverables,
    });
    // What the last write held apart from its time: a busy session whose state did not change (reads
    // of files it already observed) skips the timer's rewrite, which is a synchronous fsync and
    // rename on the event loop (issue 25: about 3% of a read through serve). Closing
    // (and resuming) always write.
    let persisted: string | undefined;
    const persistNow = (onlyIfChanged = false) => {
      if (!start.persist) return;
      try {
        const taken = snapshot();
        const state = JSON.stringify({ ...taken, takenAt: undefined });
        if (onlyIfChanged && state === persisted) return;
        writeSessionSnapshot(dir, taken);
        persisted = state;
      } catch (error) {
        audit.emit('session-persist-failed', {
          reason: (error as NodeJS.ErrnoException).code ?? String(error),
        });
      }
    };
    // The snapshot follows the session's calls a moment later (a crash loses at most that moment),
    // so a call never pays for writing it.
    const schedulePersist = () => {
      if (!start.persist || closed || snapshotTimer) return;
      snapshotTimer = setTimeout(() => {
        snapshotTimer = undefined;
        persistNow(true);
      }, SNAPSHOT_DELAY_MS);
      snapshotTimer.unref();
    };
    // A closed session still answers every call (ABORTED: its close signal fired); it runs nothing.
    const track = <T>(work: Promise<T>): Promise<T> => {
      inflight.add(work);
      // One derived promise per call (not a finally and a catch), settled either way.
      const settled = () => {
        inflight.delete(work);
        schedulePersist();
      };
      void work.then(settled, settled);
      return work;
    };

    audit.emit(start.restore ? 'session-resumed' : 'session-opened', {
      parentId: start.parentId ?? undefined,
      sandbox: policy.sandbox,
      approval: policy.approval,
      surface: policy.surface,
      surfaceFingerprint: surface.fingerprint,
      persistent: start.persist,
      ...(start.restore ? { observations: start.restore.observations.entries.length } : {}),
    });
    // A new session's first snapshot waits for its first state change (the timer after its first
    // call) or its close: at open it holds nothing a resume could use, and writing it (a temporary
    // file, fsync, rename) was most of a new Host's first call (issue 25 target 6). A resumed session
    // is written at once, in this version's format.
    if (start.restore) persistNow();

    // SessionStart hooks run as the session opens; its first calls wait for them, and what they add
    // goes to the model with the first notes.
    const startNotes: string[] = [];
    const sessionHooks = host.hooks;
    const hookBase = (event: 'SessionStart' | 'SessionEnd') => ({
      session_id: id,
      cwd: host.root,
      hook_event_name: event,
      permission_mode: planActive ? ('plan' as const) : ('default' as const),
    });
    const source = start.restore ? 'resume' : 'startup';
    const started: Promise<void> =
      sessionHooks?.matches('SessionStart', source) === true
        ? sessionHooks
            .run(
              'SessionStart',
              source,
              { ...hookBase('SessionStart'), source },
              { audit, signal: controller.signal },
            )
            .then((outcome) => {
              for (const text of outcome.additionalContext) startNotes.push(text);
            })
            .catch(() => undefined)
        : Promise.resolve();
    const afterStart = <T>(work: () => Promise<T>): Promise<T> => started.then(work);

    const session: Session = {
      id,
      parentId: start.parentId,
      policy,
      persistent: start.persist,
      dir,
      surfaceNames: () => surface.names,
      modelTools: () => surface.modelTools,
      surfaceFingerprint: () => surface.fingerprint,
      providerTools: (dialect, compileOptions) => surface.providerTools(dialect, compileOptions),
      effectiveAnnotations: (toolName) => effectiveAnnotations(host, surface, policy, toolName, proxy),
      dispatch: (call: ToolCall, options?: DispatchOptions): Promise<DispatchResult> =>
        track(afterStart(() => dispatchCall(pipeline, call, options))),
      dispatchBatch: (calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult> =>
        track(afterStart(() => dispatchBatch(pipeline, calls, options))),
      get planning() {
        return planActive;
      },
      drainNotes() {
        const notes: string[] = [];
        if (startNotes.length > 0) {
          notes.push(`SessionStart hook context:\n${startNotes.splice(0).join('\n')}`);
        }
        if (restoredJobsNote) {
          notes.push(restoredJobsNote);
          restoredJobsNote = undefined;
        }
        const completed = currentJobs().drainCompletionNotes();
        if (completed) notes.push(completed);
        if (notes.length === 0) return undefined;
        audit.emit('notes-drained', { notes: notes.length });
        return notes.join('\n\n');
      },
      todos: () => todos,
      goal: () => goal,
      deliverables: () => deliverables,
      startGoalRound() {
        const next = beginGoalRound(goal);
        goal = next.state;
        if (next.round)
          audit.emit('goal-round-started', { goalId: next.round.goalId, round: next.round.round });
        schedulePersist();
        return next.round;
      },
      snapshot,
      openChild: (options = {}) => start.openChild(session, options),
      close() {
        closing ??= (async () => {
          closed = true;
          clearTimeout(snapshotTimer);
          snapshotTimer = undefined;
          controller.abort(new ToolhostError({ code: 'ABORTED', message: 'the session is closing' }));
          // Running calls end promptly once cancelled, except non-abortable ones, which are awaited so
          // nothing lands after close() resolved.
          await Promise.allSettled([...inflight]);
          await settleWithin([...stragglers], STRAGGLER_WAIT_MS);
          await started;
          if (sessionHooks?.matches('SessionEnd', 'other')) {
            // Bounded by each hook's own timeout; nothing of the session is gone yet.
            await sessionHooks.run(
              'SessionEnd',
              'other',
              { ...hookBase('SessionEnd'), reason: 'other' },
              { audit },
            );
          }
          const failures: string[] = [];
          persistNow();
          for (const dispose of disposers.reverse()) {
            try {
              await dispose();
            } catch (error) {
              failures.push(String(error));
            }
          }
          audit.emit('session-closed', failures.length > 0 ? { failures } : {});
        })();
        return closing;
      },
      get closed() {
        return closed;
      },
    };
    sessionStarts.set(session, started);
    return session;
  }
}

/** The SessionStart hooks of each session (what `openSession` waits for). */
const sessionStarts = new WeakMap<Session, Promise<void>>();

/** Resolves once the session's SessionStart hooks have run (at once when it has none). */
export function sessionStarted(session: Session): Promise<void> {
  return sessionStarts.get(session) ?? Promise.resolve();
}

const READ_ONLY_HINTS: ToolAnnotations = Object.freeze({
  readOnly: true,
  destructive: false,
  openWorld: false,
});

/**
 * The hints a tool really has in a session (for MCP clients, whose permission systems trust them):
 * never more safety than the session's policy gives. The shell is read-only and closed-world only
 * inside the read-only sandbox; in `workspace_write` it may change and delete files (and reach the
 * network when allowed); unsandboxed it may do anything. `use_capability` is the widest of what it can
 * reach: the catalog's tools the sandbox does not refuse, and every enabled MCP server, whose tools
 * may do anything until proven otherwise.
 */
function effectiveAnnotations(
  host: SessionHost,
  surface: PolicySurface,
  policy: SessionPolicy,
  toolName: string,
  proxy: CapabilityProxy,
): ToolAnnotations | undefined {
  const tool = host.registry.get(toolName);
  if (!tool) return undefined;
  const definition = tool.definition;
  if (definition.category === 'shell' && (toolName === 'bash' || toolName === 'pwsh')) {
    if (policy.sandbox === 'read_only') return READ_ONLY_HINTS;
    return {
      readOnly: false,
      destructive: true,
      openWorld: policy.sandbox === 'danger_full_access' || host.jobSandbox.network === true,
    };
  }
  if (toolName !== 'use_capability') return definition.annotations;
  let readOnly = true;
  let destructive = false;
  let openWorld = false;
  for (const target of surface.catalog) {
    const facts = target.definition.annotations;
    if (sandboxDenial(toolFacts(target), policy.sandbox)) continue;
    // A session tool changes only the session's own bookkeeping, never the client's environment.
    if (toolFacts(target).sessionScoped === true) continue;
    const hints =
      target.definition.category === 'shell' && (target.name === 'bash' || target.name === 'pwsh')
        ? (effectiveAnnotations(host, surface, policy, target.name, proxy) ?? facts)
        : facts;
    // Unknown is not false: a hint a tool does not give counts against it.
    readOnly &&= hints.readOnly === true;
    destructive ||=
      hints.destructive === true || (hints.destructive === undefined && hints.readOnly !== true);
    openWorld ||= hints.openWorld !== false;
  }
  if (proxy.inventory().servers.some((server) => server.status !== 'disabled')) {
    readOnly = false;
    destructive = true;
    openWorld = true;
  }
  return { readOnly, destructive, openWorld };
}

/** An audit sink that stamps the session id on every event. */
function sessionAudit(audit: AuditLog, sessionId: string): AuditLog {
  return {
    enabled: audit.enabled,
    // Nothing is built for a host nobody audits (no file, no callback, no telemetry).
    emit: (type: AuditEventType, fields = {}) => {
      if (audit.enabled) audit.emit(type, { sessionId, ...fields });
    },
    close: async () => undefined,
  };
}

function restoredJobs(jobs: readonly SessionJobRecord[] | undefined): string | undefined {
  const previous = (jobs ?? []).filter((job) => typeof job?.id === 'string');
  if (previous.length === 0) return undefined;
  // Processes never survive their host: tell the model what became of the jobs it knew.
  return `Background jobs of the session before the restart are gone (their processes ended with the old host and their output is no longer readable): ${previous
    .map(
      (job) =>
        `${job.id} (${String(job.label).slice(0, 80)}) — ${job.state === 'running' ? 'interrupted' : job.state}`,
    )
    .join('; ')}. Start a command again if its result is still needed.`;
}

async function settleWithin(promises: readonly Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Runs the capability proxy's permission questions through the session's permission step: the
 * target names `mcp_connect__<server>` and `mcp__<server>__<tool>` meet the same rules, sandbox and
 * approval as any tool. Connecting a configured server is covered by installation trust (the user
 * configured it; rules can still deny or ask), except a server that only an unapproved project
 * configuration defines: starting it asks a person every time. A tool's hints count as facts only
 * from a server marked `trusted`; from any other server only the hints that make a call riskier are
 * believed. A strict read-only session runs only MCP tools that are trusted read-only and not destructive.
 */
export async function authorizeCapability(
  context: PipelineContext,
  request: CapabilityAuthorizationRequest,
  session: {
    readonly sandbox: SandboxMode;
    readonly untrustedServers: ReadonlySet<string>;
    readonly readOnlyStrict: boolean;
  },
): Promise<CapabilityAuthorization> {
  const connect = request.kind === 'mcp-connect';
  const fromProject = session.untrustedServers.has(request.server);
  const trustedHints = request.annotationsTrusted && !fromProject;
  const annotations: ToolAnnotations = connect ? {} : believedMcpHints(request.annotations, trustedHints);
  if (
    !connect &&
    session.readOnlyStrict &&
    !(annotations.readOnly === true && annotations.destructive !== true)
  ) {
    return { allowed: false, error: strictReadOnlyRefusal(request.toolName) };
  }
  const decided = await authorizeTarget(
    context,
    {
      name: request.toolName,
      source: 'mcp',
      group: 'utility_builtins',
      category: annotations.readOnly === true ? 'read' : 'utility',
      annotations,
      trusted: !fromProject && (connect || (request.annotationsTrusted && session.sandbox !== 'read_only')),
      ...(fromProject && connect
        ? {
            approvalRequired:
              'the server is defined by the project configuration, which you have not approved; run `toolhost trust` in the project to approve it',
          }
        : {}),
      callId: request.callId,
      invocation: { kind: 'capability', capabilityId: request.capabilityId },
      preview: request.preview,
      signal: request.signal,
    },
    connect
      ? { toolInput: { server: request.server, transport: request.transport } }
      : {
          toolInput: request.arguments,
          // The same use_capability call, with the hook's arguments for the MCP tool.
          rewrite: (updatedInput, envelope) => ({ ...envelope, arguments: updatedInput }),
        },
  );
  if (decided.allowed && request.kind === 'mcp-tool') {
    const scope = executionScope.getStore();
    if (scope?.callId === request.callId)
      scope.mcpTargets.push({ name: request.toolName, input: request.arguments });
  }
  return decided;
}
