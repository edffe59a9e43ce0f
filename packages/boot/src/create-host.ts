import { setMaxListeners } from 'node:events';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  createCodeIndexTool,
  createDiscoveryTools,
  createFileTools,
  createSessionTools,
  createShellTools,
  createStructuredEditTools,
  createSubagentTools,
  createWebFetchTool,
} from '@toolhost/builtins';
import { type CapabilityProxy, createCapabilityProxy, MCP_OAUTH_DIR_NAME } from '@toolhost/capability-proxy';
import {
  type AnyToolDefinition,
  createToolRegistry,
  defineTool,
  errorMessage,
  isObject,
  type ModelTool,
  sharedArgumentValidator,
  type ToolCallContext,
  ToolhostError,
  type ToolRegistry,
} from '@toolhost/contracts';
import { createJobManager, normalizeSandboxOptions, type SandboxOptions } from '@toolhost/jobs';
import type { PathPolicy } from '@toolhost/path-policy';
import type { DialectName } from '@toolhost/provider-dialects';
import type { ObservationStore } from '@toolhost/read-evidence';
import { type AuditLog, createAuditLog } from './audit-log.js';
import { createSession, narrowPolicy, type SessionServices, sessionStarted } from './create-session.js';
import { markDelegatingTool } from './delegating-tools.js';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import { createHostSurfaces } from './host-surface.js';
import type { HostExtension } from './host-extension.js';
import { DEFAULT_CLIENT_INJECTED_KEYS } from './pipeline-context.js';
import { type HostOptions, type HostSettings, resolveHostSettings } from './host-settings.js';
import type {
  ApproveCallback,
  BatchResult,
  DispatchOptions,
  DispatchResult,
  ToolCall,
} from './host-types.js';
import type { HostConfig, SurfaceProfile } from './parse-host-config.js';
import { createExitPlanModeTool } from './plan-mode.js';
import type { ConfigLayerReport, IgnoredSetting } from './resolve-host-config.js';
import { createHookRunner } from './run-hooks.js';
import { type HostPlatform, shellToolName, USE_CAPABILITY } from './select-surface.js';
import { checkRestoreSnapshot, type HostSnapshot, hostSnapshotOf } from './session-snapshot.js';
import { MAX_MODEL_RESULT_BYTES } from './shape-result.js';
import { createSubagentService, type SubagentCaller } from './subagent-service.js';
import {
  checkSessionId,
  DEFAULT_SESSION_MAX_AGE_MS,
  DEFAULT_SESSIONS_MAX_BYTES,
  ensureStateDir,
  newSessionId,
  pruneSessions,
  readSessionSnapshot,
  refuseIfSessionDirOpen,
  sessionDir,
} from './session-store.js';
import type {
  ChildSessionOptions,
  ProviderTools,
  ProviderToolsOptions,
  Session,
  SessionOptions,
  SessionSnapshot,
} from './session-types.js';

export type { HostOptions } from './host-settings.js';
export type { HostSnapshot } from './session-snapshot.js';
export type { ProviderTools, ProviderToolsOptions } from './session-types.js';

/**
 * A host: what every agent session over one project shares (configuration, registry and surfaces,
 * compiled provider tools, MCP connections and their schema cache, the sandbox probe, the state
 * directory), and the sessions themselves. `dispatch`, `dispatchBatch`, `drainNotes` and `snapshot`
 * act on the host's default session, opened on first use.
 */
export interface Host {
  /** The real project root. */
  readonly root: string;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly surface: SurfaceProfile;
  readonly platform: HostPlatform;
  readonly stateDir: string;
  /** The effective configuration (every layer merged). */
  readonly config: HostConfig;
  /** Which configuration layers were read, and what an untrusted project configuration did not get. */
  readonly configReport: {
    readonly layers: readonly ConfigLayerReport[];
    readonly ignored: readonly IgnoredSetting[];
  };
  /** Every registered tool, surface or not. */
  readonly registry: ToolRegistry;
  readonly pathPolicy: PathPolicy;
  /** The provider-visible tools' names of the host's policy, sorted. Frozen at creation. */
  surfaceNames(): readonly string[];
  /** The provider-neutral surface (`{ name, description, inputSchema }`, canonical). Frozen at creation. */
  modelTools(): readonly ModelTool[];
  /** First 16 hex characters of SHA-256 of the serialised {@link Host.modelTools}. */
  surfaceFingerprint(): string;
  /**
   * The surface compiled for one provider dialect: `tools` is exactly the array the provider
   * receives. Computed once per dialect and options and returned as the same frozen object on every
   * later call, so its bytes never change for the life of the host (MCP servers connecting included).
   * Throws `DialectError` `CONFIG_INVALID` for an unknown dialect.
   */
  providerTools(dialect: DialectName, options?: ProviderToolsOptions): ProviderTools;
  /**
   * Opens a new agent session: its own id, policy (never wider than the host's), observations,
   * jobs, stored results, storm breaker and ledger. `CONFIG_INVALID` for a wider policy or an id in use.
   */
  openSession(options?: SessionOptions): Promise<Session>;
  /**
   * Continues a persisted session of this project by id: the same id, observations and stored
   * results (its jobs did not survive; the first note says so). `SESSION_NOT_FOUND` when there is no
   * such session, `SESSION_IN_USE` when a live host has it open.
   */
  resumeSession(id: string, options?: Omit<SessionOptions, 'id'>): Promise<Session>;
  /** The sessions open now (the default one included once opened), oldest first. */
  sessions(): readonly Session[];
  /** The host's default session (opened on first use), which the methods below act on. */
  defaultSession(): Session;
  /** Runs one call in the default session, as a batch of one. */
  dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
  /** Runs one assistant turn's calls in the default session. */
  dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
  /** The default session's background notes for the next turn, or `undefined`. */
  drainNotes(): string | undefined;
  /**
   * The default session's resumable state as plain JSON (observations, stored results, jobs known
   * now, the session id). Pass it as `restore` to a later host over the same root.
   */
  snapshot(): HostSnapshot;
  /** Closes every session, then ends the MCP servers and flushes the audit log. Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates a host: reads and validates the configuration, composes the registry (built-ins in their
 * groups, `use_capability`, extra tools), freezes the provider surface for the run policy and
 * prunes old sessions of the project. Nothing starts: sessions open on demand (the default one on
 * first use), MCP servers on their first call.
 *
 * Defaults: root = cwd, sandbox `read_only`, approval `on_request`, surface `lean`, platform
 * detected, configuration `<root>/toolhost.config.json` when present (untrusted until approved),
 * state directory `<root>/.toolhost` (with a `.gitignore` of `*`), approval timeout 120 s, sessions
 * kept 7 days within 2 GiB. Throws `ToolhostError` `CONFIG_INVALID` naming the field for a bad option
 * or configuration.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const settings = resolveHostSettings(options);
  const { root, stateDir, pathPolicy, sandbox, approval, surface, platform } = settings;
  const restored = options.restore === undefined ? undefined : checkRestoreSnapshot(options.restore, root);

  const hostController = new AbortController();
  // Every running call listens on the host signal; a busy host legitimately has many listeners.
  setMaxListeners(0, hostController.signal);
  const disposers: (() => unknown)[] = [];
  try {
    ensureStateDir(stateDir);
    const pruned = pruneSessions(stateDir, {
      maxAgeMs: options.sessionRetention?.maxAgeMs ?? DEFAULT_SESSION_MAX_AGE_MS,
      maxBytes: options.sessionRetention?.maxBytes ?? DEFAULT_SESSIONS_MAX_BYTES,
    });

    const services = new Map<string, SessionServices>();
    const servicesOf = (context: ToolCallContext): SessionServices => {
      const found = context.sessionId === undefined ? undefined : services.get(context.sessionId);
      if (!found) {
        throw new ToolhostError({
          code: 'EXECUTION_ERROR',
          message: `"${context.toolName}" was called outside an open session of this host`,
          recovery: 'dispatch calls through a session (host.openSession) or the host',
        });
      }
      return found;
    };
    const jobSandbox = {
      roots: pathPolicy.roots,
      protectedPaths: pathPolicy.protectedPatterns,
      secretPaths: pathPolicy.secretPatterns,
      // The user configuration directory (MCP sign-in tokens, the trust store) is the user's, never a
      // command's: outside the roots it is hidden from sandboxed jobs wherever the sandbox's view would
      // show it (inside, the secret patterns do it). The store is named too: a configuration
      // directory that contains a root is not hidden itself.
      hiddenDirectories: [settings.userConfigDir, join(settings.userConfigDir, MCP_OAUTH_DIR_NAME)],
      network: settings.shellSandbox.network,
      caseSensitive: pathPolicy.caseSensitive,
      writableRoots: settings.shellSandbox.writableRoots,
      readableRoots: settings.shellSandbox.readableRoots,
      maxPlanEntries: settings.shellSandbox.maxPlanEntries,
      // One private /tmp per session, kept across its commands and removed when it closes.
      persistentTmp: true,
    };
    reapCrashedSessionJobs(stateDir, jobSandbox);
    // The sandbox options are checked once here, so a session never fails on them later.
    try {
      normalizeSandboxOptions({ ...jobSandbox, mode: sandbox });
    } catch (error) {
      throw configError('sandbox', errorMessage(error), error);
    }

    const registry = createToolRegistry();
    const builtins: AnyToolDefinition[] = [
      ...createShellTools({ jobs: (context) => servicesOf(context).jobs, pathPolicy, platform }),
      ...createFileTools({
        pathPolicy,
        observations: (context): ObservationStore => servicesOf(context).observations,
      }),
      ...createDiscoveryTools({
        pathPolicy,
        ...(options.rgPath === undefined ? {} : { rgPath: options.rgPath }),
      }),
      // The rest of the built-in table: off the lean surface, reachable as tool:<name>.
      ...createStructuredEditTools({
        pathPolicy,
        observations: (context): ObservationStore => servicesOf(context).observations,
      }),
      createCodeIndexTool({ pathPolicy, cacheDir: join(stateDir, 'code-index') }),
      createWebFetchTool({
        allowHosts: settings.config.webFetch.allowHosts,
        allowPrivateNetwork: settings.config.webFetch.allowPrivateNetwork,
        // A redirect to another host is followed only when the rules decide both hosts alike, so
        // web_fetch(domain:...) rules cannot be stepped around by a redirect.
        followRedirect: (from, to) =>
          settings.rules.match('web_fetch', from)?.rule === settings.rules.match('web_fetch', to)?.rule,
      }),
      // The session tools: their state lives in the calling session (and its snapshot).
      ...createSessionTools({
        state: (context) => servicesOf(context).state,
        pathPolicy,
        conversationTools: options.conversationTools === true,
      }),
      // Hidden: only a plan-mode session's surface lists it.
      createExitPlanModeTool({ planOf: (context) => servicesOf(context).plan }),
    ];
    // The subagent tools exist only when the embedding loop can run subagents. Each session's
    // lineage (its root session and depth) is what their results are kept and read by.
    const lineages = new Map<string, Omit<SubagentCaller, 'session'>>();
    const subagents = options.subagents
      ? createSubagentService({
          root,
          stateDir,
          runner: options.subagents,
          caller: (id) => {
            const session = id === undefined ? undefined : open.get(id);
            const lineage = id === undefined ? undefined : lineages.get(id);
            return session && lineage && !session.closed ? { session, ...lineage } : undefined;
          },
          emit: (type, fields) => audit.emit(type, fields),
        })
      : undefined;
    if (subagents) disposers.push(() => subagents.close());
    const subagentTools = subagents
      ? createSubagentTools({ subagents: subagents.service, outputBytes: MAX_MODEL_RESULT_BYTES - 1024 })
      : [];
    for (const tool of subagentTools) if (tool.name !== 'read_subagent_result') markDelegatingTool(tool);
    builtins.push(...subagentTools);
    for (const tool of [...builtins, ...(options.tools ?? [])]) {
      try {
        registry.register(tool);
      } catch (error) {
        throw configError('tools', errorMessage(error), error);
      }
    }
    // The MCP connections and schema cache are the host's; every session talks through its own frontend.
    let proxy: CapabilityProxy;
    try {
      proxy = createCapabilityProxy({
        stateDir,
        mcpServers: settings.config.mcpServers,
        // Sign-ins made with `toolhost mcp login` (the user's, never the project's).
        oauthStoreDir: join(settings.userConfigDir, MCP_OAUTH_DIR_NAME),
        // The root frontend serves no model: every session has its own (fail closed if one is used).
        authorize: async (request) => ({
          allowed: false,
          error: new ToolhostError({
            code: 'PERMISSION_DENIED',
            message: `"${request.toolName}" was asked outside a session`,
          }),
        }),
        cwd: settings.rootInput,
      });
    } catch (error) {
      if (ToolhostError.isInstance(error)) throw error;
      throw configError('mcpServers', errorMessage(error), error);
    }
    disposers.push(() => proxy.close());
    registry.register(sessionProxyTool(proxy, (context) => servicesOf(context).proxy));

    const surfaceFor = createHostSurfaces({
      registry,
      platform,
      candidates: new Set([...builtins.map((tool) => tool.name), USE_CAPABILITY]),
    });
    const hostPlan = options.plan === true;
    const hostSurface = surfaceFor(sandbox, surface, false, hostPlan);
    const extensions = checkExtensions(options.extensions);
    const hooks =
      settings.config.hooks.length > 0
        ? createHookRunner({ hooks: settings.config.hooks, cwd: root })
        : undefined;

    const audit = openAudit(options, settings);
    audit.emit('host-created', {
      root,
      sandbox,
      approval,
      surface,
      platform,
      surfaceFingerprint: hostSurface.fingerprint,
      surfaceNames: [...hostSurface.names],
      tools: registry.size,
    });
    if (settings.configReport.ignored.length > 0) {
      audit.emit('config-resolved', {
        layers: settings.configReport.layers.map(({ role, file, trusted }) => ({ role, file, trusted })),
        ignored: settings.configReport.ignored.map((entry) => entry.field),
      });
    }
    if (pruned.removed.length > 0) audit.emit('sessions-pruned', { removed: pruned.removed.length });

    const stragglers = new Set<Promise<unknown>>();
    const open = new Map<string, Session>();
    const sessionApprovers = new WeakMap<Session, ApproveCallback>();
    const ceiling = { sandbox, approval, surface };
    const registryRef = registry;
    const shellName = registry.has(shellToolName(platform))
      ? shellToolName(platform)
      : registry.has('bash')
        ? 'bash'
        : registry.has('pwsh')
          ? 'pwsh'
          : undefined;
    let closing: Promise<void> | undefined;
    const clientInjectedKeys = new Set([
      ...DEFAULT_CLIENT_INJECTED_KEYS,
      ...(settings.config.clientInjectedKeys ?? []),
      ...(options.clientInjectedKeys ?? []),
    ]);

    const start = (input: {
      readonly id: string;
      readonly parent: Session | undefined;
      readonly options: SessionOptions & ChildSessionOptions;
      readonly restore?: SessionSnapshot | undefined;
      readonly persist: boolean;
    }): Session => {
      if (closing) throw new ToolhostError({ code: 'EXECUTION_ERROR', message: 'the host is closing' });
      if (open.has(input.id))
        throw configError('sessionId', `session ${input.id} is already open in this host`);
      const readOnlyStrict = input.options.readOnlyStrict === true;
      // A child of a session that is still planning may not write either.
      const parentCeiling = input.parent?.planning
        ? { ...input.parent.policy, sandbox: 'read_only' as const }
        : input.parent?.policy;
      const policy = narrowPolicy(parentCeiling ?? ceiling, input.options, readOnlyStrict);
      const approveFor =
        input.options.approve ??
        (input.parent ? sessionApprovers.get(input.parent) : undefined) ??
        options.approve;
      const parentLineage = input.parent ? lineages.get(input.parent.id) : undefined;
      const session = createSession(
        {
          root,
          stateDir,
          registry: registryRef,
          validator: sharedArgumentValidator(),
          platform,
          rules: settings.rules,
          pathPolicy,
          jobSandbox,
          jobEnvironment: settings.shellSandbox.environment,
          approve: options.approve,
          approvalTimeoutMs: settings.approvalTimeoutMs,
          audit,
          hostSignal: hostController.signal,
          proxy,
          untrustedServers: settings.untrustedServers,
          shellName,
          clientInjectedKeys,
          hooks,
          extensions,
          surfaceFor,
          conversationTools: options.conversationTools === true,
          register: (entry) => services.set(entry.id, entry),
          unregister: (id) => {
            services.delete(id);
            open.delete(id);
            lineages.delete(id);
          },
          onStraggler: (settled) => {
            stragglers.add(settled);
            void settled.finally(() => stragglers.delete(settled));
          },
        },
        {
          id: input.id,
          parentId: input.parent?.id ?? null,
          policy,
          // A child asks the person its parent asks (a served session's MCP client, say).
          approve: approveFor,
          persist: input.persist,
          readOnlyStrict,
          plan: input.parent ? false : ((input.options as SessionOptions).plan ?? hostPlan),
          restore: input.restore,
          conversation: input.options.conversation,
          openChild: async (parent, childOptions) =>
            start({
              id: childOptions.id ?? newSessionId(),
              parent,
              options: childOptions,
              persist: parent.persistent,
            }),
        },
      );
      open.set(input.id, session);
      lineages.set(input.id, {
        lineageId: parentLineage?.lineageId ?? input.parent?.id ?? input.id,
        depth: input.parent ? (parentLineage?.depth ?? 0) + 1 : 0,
        persistent: parentLineage?.persistent ?? input.parent?.persistent ?? input.persist,
      });
      if (approveFor) sessionApprovers.set(session, approveFor);
      return session;
    };

    const openNew = (sessionOptions: SessionOptions = {}): Session => {
      const id = sessionOptions.id === undefined ? newSessionId() : checkSessionId(sessionOptions.id);
      const persist = sessionOptions.persist !== false;
      if (persist && readSessionSnapshot(sessionDir(stateDir, id)) !== undefined) {
        throw configError('sessionId', `a session ${id} exists already; resume it instead`);
      }
      return start({ id, parent: undefined, options: sessionOptions, persist });
    };

    const resume = (id: string, sessionOptions: Omit<SessionOptions, 'id'> = {}): Session => {
      checkSessionId(id);
      let stored: unknown;
      try {
        stored = readSessionSnapshot(sessionDir(stateDir, id));
      } catch (error) {
        throw new ToolhostError({
          code: 'SESSION_NOT_FOUND',
          message: `session ${id} cannot be resumed: its snapshot is unreadable`,
          cause: error,
        });
      }
      if (stored === undefined) {
        // Open and not yet written (a new session's first snapshot waits for a state change).
        refuseIfSessionDirOpen(sessionDir(stateDir, id), id);
        throw new ToolhostError({
          code: 'SESSION_NOT_FOUND',
          message: `no session ${id} exists in this project`,
          details: { sessionId: id },
        });
      }
      const raw = stored as Partial<SessionSnapshot>;
      // The checked part, plus the session's own policy and plan phase as it left them (the policy is
      // narrowed against the host's again; a malformed one is CONFIG_INVALID).
      const policy = isObject(raw.policy)
        ? {
            ...(raw.policy.sandbox === undefined ? {} : { sandbox: raw.policy.sandbox }),
            ...(raw.policy.approval === undefined ? {} : { approval: raw.policy.approval }),
            ...(raw.policy.surface === undefined ? {} : { surface: raw.policy.surface }),
          }
        : {};
      const snapshot = {
        ...checkRestoreSnapshot(stored, root),
        ...(isObject(raw.plan) ? { plan: { active: raw.plan.active === true } } : {}),
      } as unknown as SessionSnapshot;
      return start({
        id,
        parent: undefined,
        options: { ...policy, ...sessionOptions },
        restore: snapshot,
        persist: true,
      });
    };

    let defaultSession: Session | undefined;
    const getDefault = (): Session => {
      if (defaultSession && !defaultSession.closed) return defaultSession;
      const id = restored?.sessionId ?? newSessionId();
      const restoreSnapshot: SessionSnapshot | undefined = restored
        ? ({
            format: 'toolhost-session-v1',
            id,
            parentId: null,
            root,
            takenAt: '',
            policy: ceiling,
            surfaceFingerprint: '',
            observations: restored.observations,
            jobs: restored.jobs,
            results: [],
            // Checked by the session (parseSessionStateSnapshot) like any snapshot on disk.
            ...({
              todos: restored.todos,
              goal: restored.goal,
              deliverables: restored.deliverables,
            } as Pick<SessionSnapshot, 'todos' | 'goal' | 'deliverables'>),
          } satisfies SessionSnapshot)
        : undefined;
      try {
        defaultSession = start({
          id,
          parent: undefined,
          options: {},
          restore: restoreSnapshot,
          persist: true,
        });
      } catch (error) {
        if (ToolhostError.isInstance(error) && error.code === 'CONFIG_INVALID') throw error;
        throw configError('restore', 'the snapshot holds invalid file observations', error);
      }
      return defaultSession;
    };
    if (restored) {
      // A snapshot is checked when the host is created, not on the first call.
      const session = getDefault();
      const kept = new Set(session.snapshot().results.map((entry) => entry.resultRef));
      audit.emit('host-restored', {
        sessionId: session.id,
        takenAt: (options.restore as { takenAt?: unknown }).takenAt,
        observations: restored.observations.entries.length,
        results: restored.results.length,
        missingResults: restored.results
          .filter((entry) => !kept.has(entry.resultRef))
          .map((entry) => entry.resultRef),
        surfaceChanged:
          (options.restore as { surfaceFingerprint?: unknown }).surfaceFingerprint !==
          hostSurface.fingerprint,
      });
    }
    /** What a call gets from a host that is closed: nothing runs. */
    const closedHostResult = (call: ToolCall): DispatchResult => {
      const error = new ToolhostError({ code: 'ABORTED', message: 'the host is closed; nothing was run' });
      const text = error.toModelText();
      return {
        id: typeof call.id === 'string' && call.id !== '' ? call.id : 'call_closed',
        name: typeof call.name === 'string' ? call.name : '',
        toolName: null,
        status: 'error',
        output: text,
        content: [{ type: 'text', text }],
        error: error.toJSON(),
        resultRef: null,
        truncated: false,
        durationMs: 0,
      };
    };
    const defaultOrClosed = (): Session | undefined =>
      closing && (!defaultSession || defaultSession.closed) ? defaultSession : getDefault();

    return {
      root,
      sandbox,
      approval,
      surface,
      platform,
      stateDir,
      config: settings.config,
      configReport: settings.configReport,
      registry,
      pathPolicy,
      surfaceNames: () => hostSurface.names,
      modelTools: () => hostSurface.modelTools,
      surfaceFingerprint: () => hostSurface.fingerprint,
      providerTools: (dialect, compileOptions) => hostSurface.providerTools(dialect, compileOptions),
      openSession: async (sessionOptions) => {
        const session = openNew(sessionOptions);
        await sessionStarted(session);
        return session;
      },
      resumeSession: async (id, sessionOptions) => {
        const session = resume(id, sessionOptions);
        await sessionStarted(session);
        return session;
      },
      sessions: () => [...open.values()],
      defaultSession: getDefault,
      dispatch: async (call, dispatchOptions) => {
        const session = defaultOrClosed();
        return session ? session.dispatch(call, dispatchOptions) : closedHostResult(call);
      },
      dispatchBatch: async (calls, dispatchOptions) => {
        const session = defaultOrClosed();
        return session
          ? session.dispatchBatch(calls, dispatchOptions)
          : { results: calls.map(closedHostResult) };
      },
      drainNotes: () => getDefault().drainNotes(),
      snapshot: () => hostSnapshotOf(getDefault().snapshot()),
      close() {
        closing ??= (async () => {
          hostController.abort(new ToolhostError({ code: 'ABORTED', message: 'the host is closing' }));
          const failures: unknown[] = [];
          const sessions = [...open.values()];
          const settled = await Promise.allSettled(sessions.map((session) => session.close()));
          for (const outcome of settled) if (outcome.status === 'rejected') failures.push(outcome.reason);
          // Subagents cancelled by the closing sessions write their final records first.
          await subagents?.close().catch((error: unknown) => failures.push(error));
          await proxy.close().catch((error: unknown) => failures.push(error));
          audit.emit('host-closed', { ...(failures.length > 0 ? { failures: failures.map(String) } : {}) });
          await audit.close();
        })();
        return closing;
      },
    };
  } catch (error) {
    for (const dispose of disposers.reverse()) {
      try {
        await dispose();
      } catch {
        // the composition error is the one to report
      }
    }
    throw error;
  }
}

/** Checks `extensions`: each an object with a non-empty `name` and function hooks. */
function checkExtensions(extensions: readonly HostExtension[] | undefined): readonly HostExtension[] {
  if (extensions === undefined) return [];
  if (!Array.isArray(extensions)) throw configError('extensions', 'expected an array of extensions');
  extensions.forEach((extension: HostExtension, index) => {
    if (
      typeof extension !== 'object' ||
      extension === null ||
      typeof extension.name !== 'string' ||
      extension.name.trim() === ''
    ) {
      throw configError(`extensions[${index}]`, 'expected an object with a non-empty name');
    }
    for (const key of ['beforeCall', 'afterCall'] as const) {
      if (extension[key] !== undefined && typeof extension[key] !== 'function') {
        throw configError(`extensions[${index}].${key}`, 'expected a function');
      }
    }
  });
  return Object.freeze([...extensions]);
}

function configError(field: string, problem: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `options: ${field}: ${problem}`,
    details: { source: 'options', field },
    ...(cause === undefined ? {} : { cause }),
  });
}

function openAudit(options: HostOptions, settings: HostSettings): AuditLog {
  const auditSetting = options.auditFile ?? settings.config.audit;
  const auditFile =
    auditSetting === true
      ? join(settings.stateDir, 'audit.jsonl')
      : typeof auditSetting === 'string'
        ? resolve(settings.root, auditSetting)
        : undefined;
  try {
    if (auditFile) mkdirSync(dirname(auditFile), { recursive: true, mode: 0o700 });
    return createAuditLog({ onAudit: options.onAudit, file: auditFile });
  } catch (error) {
    throw configError('auditFile', 'the audit log cannot be created', error);
  }
}

/**
 * The host's `use_capability`: the proxy's fixed definition (its bytes never change), executed by
 * the calling session's own frontend (its catalog, stored results and connect decisions).
 */
function sessionProxyTool(
  proxy: CapabilityProxy,
  frontendOf: (context: ToolCallContext) => CapabilityProxy,
): AnyToolDefinition {
  const definition = proxy.tool;
  return defineTool({
    ...definition,
    execute: (args, context) => frontendOf(context).tool.execute(args, context),
  }) as AnyToolDefinition;
}

/**
 * Reaps what hosts that crashed left running: for every session directory with a live-job registry,
 * a job manager over it kills the jobs whose host is gone (never a live host's) and removes their
 * placeholders, then closes at once.
 */
function reapCrashedSessionJobs(stateDir: string, sandbox: Omit<SandboxOptions, 'mode'>): void {
  let names: string[];
  try {
    names = readdirSync(join(stateDir, 'sessions'));
  } catch {
    return;
  }
  // `plan-jobs`: the read-only manager of a plan phase.
  for (const jobsDir of names.flatMap((name) =>
    ['jobs', 'plan-jobs'].map((kind) => join(stateDir, 'sessions', name, kind)),
  )) {
    let live: string[];
    try {
      live = readdirSync(join(jobsDir, 'live'));
    } catch {
      continue;
    }
    if (live.length === 0) continue;
    try {
      const manager = createJobManager({
        sandbox: { ...sandbox, mode: 'read_only' },
        stateDir: jobsDir,
        retainLogs: true,
      });
      void manager.close();
    } catch {
      // best effort: the next start tries again
    }
  }
}
