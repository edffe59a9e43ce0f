import { setMaxListeners } from 'node:events';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  createCodeIndexTool,
  createDiscoveryTools,
  createFileTools,
  createShellTools,
  createStructuredEditTools,
  createWebFetchTool,
} from '@toolhost/builtins';
import {
  type CapabilityAuthorization,
  type CapabilityAuthorizationRequest,
  type CapabilityProxy,
  createCapabilityProxy,
  createResultStore,
} from '@toolhost/capability-proxy';
import {
  type AnyToolDefinition,
  createToolRegistry,
  type ModelTool,
  type RegisteredTool,
  sha256Hex,
  sharedArgumentValidator,
  type ToolAnnotations,
  ToolhostError,
  type ToolRegistry,
  toModelTools,
} from '@toolhost/contracts';
import { createJobManager, type JobManager } from '@toolhost/jobs';
import {
  createPathPolicy,
  DEFAULT_PROTECTED_PATHS,
  DEFAULT_SECRET_PATHS,
  type PathPolicy,
} from '@toolhost/path-policy';
import {
  type CompiledTools,
  type CompileToolsOptions,
  compileTools,
  type DialectName,
  fingerprintValue,
  type HostedTool,
} from '@toolhost/provider-dialects';
import { createObservationStore, type ObservationStoreSnapshot } from '@toolhost/read-evidence';
import { type AuditEvent, type AuditLog, createAuditLog } from './audit-log.js';
import type { ApprovalPolicy, SandboxMode } from './decide-permission.js';
import { createDispatchPipeline, type DispatchPipeline } from './dispatch-pipeline.js';
import type {
  ApproveCallback,
  BatchResult,
  DispatchOptions,
  DispatchResult,
  ToolCall,
} from './host-types.js';
import {
  CONFIG_FILE_NAME,
  EMPTY_HOST_CONFIG,
  type HostConfig,
  type HostConfigInput,
  loadHostConfig,
  parseHostConfig,
  type SurfaceProfile,
} from './parse-host-config.js';
import { createPermissionRules } from './permission-rules.js';
import { type HostPlatform, selectSurface, USE_CAPABILITY } from './select-surface.js';
import { createStormBreaker } from './storm-breaker.js';

/** Options of {@link createHost}. Explicit options win over the configuration's `defaults`. */
export interface HostOptions {
  /** The project root; default the current directory. Must be an existing directory. */
  readonly root?: string;
  /** More roots the run may access (added to the configuration's `allowedRoots`). */
  readonly allowedRoots?: readonly string[];
  /** Default `read_only`. */
  readonly sandbox?: SandboxMode;
  /** Default `on_request`. */
  readonly approval?: ApprovalPolicy;
  /** Default `lean`. */
  readonly surface?: SurfaceProfile;
  /** Default: detected (`windows` on win32, `posix` elsewhere). */
  readonly platform?: HostPlatform;
  /**
   * The configuration: a parsed object, a file path, or `false` for none. Default
   * `<root>/toolhost.config.json` when it exists.
   */
  readonly config?: HostConfigInput | string | false;
  /** Caches, job logs, the result store and the audit log; default `<root>/.toolhost`. */
  readonly stateDir?: string;
  /** Asks a person; without it an "ask" decision fails closed with `APPROVAL_REQUIRED`. */
  readonly approve?: ApproveCallback;
  /** How long `approve` may take, in ms; default the configuration's, else 120000. */
  readonly approvalTimeoutMs?: number;
  /** Receives every audit event, synchronously. */
  readonly onAudit?: (event: AuditEvent) => void;
  /** Writes the JSONL audit log: `true` for `<stateDir>/audit.jsonl`, or a path. Default the configuration's `audit`. */
  readonly auditFile?: boolean | string;
  /**
   * More tools (source `dynamic`, `mcp` or `builtin` for tests), registered beside the built-ins:
   * reachable by name and as `tool:<name>`, never on the provider surface.
   */
  readonly tools?: readonly AnyToolDefinition[];
  /**
   * A snapshot of an earlier host over the same root ({@link Host.snapshot}): its file observations
   * come back (re-validated by content on first use), so a resumed session need not re-read files.
   * Stored results are found again in the state directory. A snapshot of another root or format is
   * `CONFIG_INVALID`.
   */
  readonly restore?: HostSnapshot;
  /** Let shell commands reach the network in a `workspace_write` run (never in `read_only`). Default false. */
  readonly network?: boolean;
  /** The ripgrep executable for `grep`; `null` for the built-in engine; default `rg` on PATH. */
  readonly rgPath?: string | null;
}

/** Compile options of {@link Host.providerTools} (the dialect's own; hosted tools come from the registry). */
export type ProviderToolsOptions = Omit<CompileToolsOptions, 'dialect' | 'hosted'>;

/** A compiled surface: the dialect's compiled tools plus the fingerprint of the exact `tools` bytes. */
export type ProviderTools = CompiledTools & {
  /** 16 hex characters of SHA-256 of `JSON.stringify(tools)`. */
  readonly fingerprint: string;
};

/** The resumable state of a host ({@link Host.snapshot}). */
export interface HostSnapshot {
  readonly format: 'toolhost-host-v1';
  /** The real project root it was taken over. */
  readonly root: string;
  readonly takenAt: string;
  readonly surfaceFingerprint: string;
  readonly observations: ObservationStoreSnapshot;
  /** The background jobs the host knew (their processes end with the host; logs are not kept). */
  readonly jobs: readonly {
    readonly id: string;
    readonly shell: string;
    readonly label: string;
    readonly background: boolean;
    readonly state: string;
    readonly exitCode?: number;
    readonly startedAt: number;
    readonly endedAt?: number;
  }[];
  /** Stored (truncated) results, oldest first. */
  readonly results: readonly {
    readonly resultRef: string;
    readonly callId: string;
    readonly toolName: string;
    readonly totalBytes: number;
    readonly sha256: string;
  }[];
}

/** A host: the frozen provider surface of one run policy and the dispatch pipeline. */
export interface Host {
  /** The real project root. */
  readonly root: string;
  readonly sandbox: SandboxMode;
  readonly approval: ApprovalPolicy;
  readonly surface: SurfaceProfile;
  readonly platform: HostPlatform;
  readonly stateDir: string;
  readonly config: HostConfig;
  /** Every registered tool, surface or not. */
  readonly registry: ToolRegistry;
  readonly pathPolicy: PathPolicy;
  /** The provider-visible tools' names, sorted. Frozen at creation. */
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
  /** Runs one call as a batch of one (the storm breaker's notice, when any, is on the result). */
  dispatch(call: ToolCall, options?: DispatchOptions): Promise<DispatchResult>;
  /** Runs one assistant turn's calls: read-only calls in parallel (at most 8), writers alone, results in order. */
  dispatchBatch(calls: readonly ToolCall[], options?: DispatchOptions): Promise<BatchResult>;
  /**
   * What happened in the background since the last call, for the caller to put in the next turn
   * (one note: "Background job updates since your last message: ..."), or `undefined`. Each job is
   * announced once; after a restore, the first note also names the jobs of the previous session.
   */
  drainNotes(): string | undefined;
  /**
   * The host's resumable state as plain JSON: the agent's file observations, the refs of stored
   * results and the background jobs known now. Pass it as `restore` to a later host over the same root.
   */
  snapshot(): HostSnapshot;
  /** Cancels running calls, ends jobs and servers, flushes the audit log. Idempotent. */
  close(): Promise<void>;
}

const SANDBOXES: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
const APPROVALS: readonly ApprovalPolicy[] = ['strict', 'on_request', 'never'];
const SURFACES: readonly SurfaceProfile[] = ['lean', 'full'];
const PLATFORMS: readonly HostPlatform[] = ['posix', 'windows'];
const DEFAULT_APPROVAL_TIMEOUT_MS = 120_000;
const STRAGGLER_WAIT_MS = 2_000;

function configError(field: string, problem: string, cause?: unknown): ToolhostError {
  return new ToolhostError({
    code: 'CONFIG_INVALID',
    message: `options: ${field}: ${problem}`,
    details: { source: 'options', field },
    ...(cause === undefined ? {} : { cause }),
  });
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) throw configError(field, `expected one of ${allowed.join(', ')}`);
  return value as T;
}

/**
 * Creates a host: reads and validates the configuration, composes the registry (built-ins in their
 * groups, `use_capability`, extra tools), freezes the provider surface for the run policy and
 * returns the dispatch pipeline.
 *
 * Defaults: root = cwd, sandbox `read_only`, approval `on_request`, surface `lean`, platform
 * detected, configuration `<root>/toolhost.config.json` when present, state directory
 * `<root>/.toolhost`, approval timeout 120 s. Throws `ToolhostError` `CONFIG_INVALID` naming the
 * field for a bad option or configuration (a missing root, an unknown sandbox, a malformed rule ...).
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const rootInput = resolve(options.root ?? process.cwd());
  try {
    if (!statSync(rootInput).isDirectory()) throw configError('root', 'is not a directory');
  } catch (error) {
    if (ToolhostError.isInstance(error)) throw error;
    throw configError('root', 'does not exist or cannot be read', error);
  }
  const config = readConfig(options.config, rootInput);
  const sandbox = oneOf('sandbox', options.sandbox, SANDBOXES, config.defaults.sandbox ?? 'read_only');
  const approval = oneOf('approval', options.approval, APPROVALS, config.defaults.approval ?? 'on_request');
  const surface = oneOf('surface', options.surface, SURFACES, config.defaults.surface ?? 'lean');
  const platform = oneOf(
    'platform',
    options.platform,
    PLATFORMS,
    process.platform === 'win32' ? 'windows' : 'posix',
  );
  const approvalTimeoutMs =
    options.approvalTimeoutMs ?? config.defaults.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs < 1) {
    throw configError('approvalTimeoutMs', 'expected a positive integer');
  }
  if (options.approve !== undefined && typeof options.approve !== 'function') {
    throw configError('approve', 'expected a function');
  }
  const stateDir = resolve(rootInput, options.stateDir ?? '.toolhost');
  const allowedRoots = [...config.allowedRoots, ...(options.allowedRoots ?? [])].map((root) =>
    resolve(rootInput, root),
  );
  const rules = (() => {
    try {
      return createPermissionRules(config.permissions);
    } catch (error) {
      throw configError('permissions', error instanceof Error ? error.message : String(error), error);
    }
  })();

  // The state directory (job logs, stored results, caches, the audit log) is the host's own: inside
  // the project it is protected from writes and secret for reads and listings, whatever the
  // configuration says, so no file tool, search or sandboxed command can read it back or change it
  // (the model pages results with session:tool_result and reads jobs with job_output). The anchored
  // pattern matches the directory itself too; it comes last so no `!` exception can re-expose it.
  const stateRelative = relative(rootInput, stateDir);
  const stateInsideRoot =
    stateRelative !== '' && !stateRelative.startsWith('..') && !isAbsolute(stateRelative);
  const statePatterns = stateInsideRoot ? [`/${stateRelative.split(/[\\/]/).join('/')}/**`] : [];
  const protectedPaths = [...DEFAULT_PROTECTED_PATHS, ...config.protectedPaths, ...statePatterns];
  const secretPaths = [...DEFAULT_SECRET_PATHS, ...config.secretPaths, ...statePatterns];
  let pathPolicy: PathPolicy;
  try {
    pathPolicy = createPathPolicy({
      mode:
        sandbox === 'danger_full_access'
          ? 'danger_full_access'
          : allowedRoots.length > 0
            ? 'allowed_roots'
            : 'current_project',
      root: rootInput,
      allowedRoots: sandbox === 'danger_full_access' ? allowedRoots : [rootInput, ...allowedRoots],
      protectedPaths,
      secretPaths,
    });
  } catch (error) {
    throw configError('allowedRoots', error instanceof Error ? error.message : String(error), error);
  }
  const root = pathPolicy.roots[0] ?? rootInput;

  const hostController = new AbortController();
  // Every running call listens on the host signal; a busy host legitimately has many listeners.
  setMaxListeners(0, hostController.signal);
  const stragglers = new Set<Promise<unknown>>();
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inflight.add(work);
    void work.finally(() => inflight.delete(work)).catch(() => undefined);
    return work;
  };

  const registry = createToolRegistry();
  const observations = createObservationStore();
  const restored = options.restore;
  let restoredJobsNote: string | undefined;
  if (restored !== undefined) {
    if (
      typeof restored !== 'object' ||
      restored === null ||
      restored.format !== 'toolhost-host-v1' ||
      typeof restored.observations !== 'object' ||
      !Array.isArray(restored.results)
    ) {
      throw configError('restore', 'expected a snapshot taken by Host.snapshot() (format toolhost-host-v1)');
    }
    if (restored.root !== root)
      throw configError('restore', 'the snapshot was taken over another project root');
    try {
      observations.restore(restored.observations);
    } catch (error) {
      throw configError('restore', 'the snapshot holds invalid file observations', error);
    }
    // Processes never survive their host: tell the model what became of the jobs it knew.
    const previous = (restored.jobs ?? []).filter((job) => typeof job?.id === 'string');
    if (previous.length > 0) {
      restoredJobsNote = `Background jobs of the session before the restart are gone (their processes ended with the old host and their output is no longer readable): ${previous
        .map(
          (job) =>
            `${job.id} (${String(job.label).slice(0, 80)}) — ${job.state === 'running' ? 'interrupted' : job.state}`,
        )
        .join('; ')}. Start a command again if its result is still needed.`;
    }
  }
  // Resources created from here on are released again if composing the host fails half-way.
  const disposers: (() => unknown)[] = [];
  try {
    // Shell commands run as jobs inside the OS sandbox of this run (bubblewrap / Seatbelt), which
    // makes the same promise as the path policy: the roots, the protected and the secret paths.
    let jobs: JobManager;
    try {
      jobs = createJobManager({
        sandbox: {
          mode: sandbox,
          roots: pathPolicy.roots,
          protectedPaths: pathPolicy.protectedPatterns,
          secretPaths: pathPolicy.secretPatterns,
          network: options.network === true,
          caseSensitive: pathPolicy.caseSensitive,
        },
        stateDir: join(stateDir, 'jobs'),
      });
    } catch (error) {
      throw configError('sandbox', error instanceof Error ? error.message : String(error), error);
    }
    disposers.push(() => jobs.close());
    const builtins: AnyToolDefinition[] = [
      ...createShellTools({ jobs, pathPolicy, platform }),
      ...createFileTools({ pathPolicy, observations }),
      ...createDiscoveryTools({
        pathPolicy,
        ...(options.rgPath === undefined ? {} : { rgPath: options.rgPath }),
      }),
      // The rest of the built-in table: off the lean surface, reachable as tool:<name>.
      ...createStructuredEditTools({ pathPolicy, observations }),
      createCodeIndexTool({ pathPolicy, cacheDir: join(stateDir, 'code-index') }),
      createWebFetchTool({
        allowHosts: config.webFetch.allowHosts,
        allowPrivateNetwork: config.webFetch.allowPrivateNetwork,
        // A redirect to another host is followed only when the rules decide both hosts alike, so
        // web_fetch(domain:...) rules cannot be stepped around by a redirect.
        followRedirect: (from, to) =>
          rules.match('web_fetch', from)?.rule === rules.match('web_fetch', to)?.rule,
      }),
    ];
    for (const tool of [...builtins, ...(options.tools ?? [])]) {
      try {
        registry.register(tool);
      } catch (error) {
        throw configError('tools', error instanceof Error ? error.message : String(error), error);
      }
    }

    // Full bodies of truncated results, durable in the state directory so a resumed session finds them.
    const resultStore = createResultStore({ dir: join(stateDir, 'results') });
    disposers.push(() => resultStore.close());
    let pipeline: DispatchPipeline | undefined;
    // The catalog behind `tool:<name>`: listed tools that are not on the surface and that this run's
    // sandbox does not refuse outright (a tool the model cannot use is a boundary it would argue with).
    let catalog: readonly RegisteredTool[] = [];
    let proxy: CapabilityProxy;
    try {
      proxy = createCapabilityProxy({
        stateDir,
        mcpServers: config.mcpServers,
        catalog: () => catalog,
        dispatchTool: (name, args, context) =>
          (pipeline as DispatchPipeline).dispatchTool(name, args, context),
        authorize: (request) => authorizeCapability(pipeline as DispatchPipeline, request, sandbox),
        resultStore,
        cwd: rootInput,
      });
    } catch (error) {
      if (ToolhostError.isInstance(error)) throw error;
      throw configError('mcpServers', error instanceof Error ? error.message : String(error), error);
    }
    disposers.push(() => proxy.close());
    registry.register(proxy.tool);
    const surfaceCandidates = new Set([...builtins.map((tool) => tool.name), proxy.tool.name]);

    const surfaceTools: readonly RegisteredTool[] = Object.freeze(
      selectSurface({
        profile: surface,
        sandbox,
        platform,
        // Only the composed built-ins and the proxy: extra `tools` never reach the provider surface.
        tools: registry.list({ visibility: 'all' }).filter((tool) => surfaceCandidates.has(tool.name)),
      }),
    );
    const surfaceNames = Object.freeze(surfaceTools.map((tool) => tool.name));
    const modelTools = deepFreeze(toModelTools(surfaceTools));
    const fingerprint = sha256Hex(JSON.stringify(modelTools)).slice(0, 16);
    const onSurface = new Set(surfaceNames);
    // Every listed tool that is not on the surface stays reachable as `tool:<name>`, including the
    // ones this run's sandbox refuses: called that way they get the same PERMISSION_DENIED as by name.
    catalog = Object.freeze(
      registry
        .list()
        .filter(
          (tool) =>
            !onSurface.has(tool.name) && tool.name !== USE_CAPABILITY && tool.definition.source !== 'hosted',
        ),
    );

    const auditSetting = options.auditFile ?? config.audit;
    const auditFile =
      auditSetting === true
        ? join(stateDir, 'audit.jsonl')
        : typeof auditSetting === 'string'
          ? resolve(root, auditSetting)
          : undefined;
    let audit: AuditLog;
    try {
      if (auditFile) mkdirSync(dirname(auditFile), { recursive: true, mode: 0o700 });
      audit = createAuditLog({ onAudit: options.onAudit, file: auditFile });
    } catch (error) {
      throw configError('auditFile', 'the audit log cannot be created', error);
    }

    pipeline = createDispatchPipeline({
      registry,
      validator: sharedArgumentValidator(),
      sandbox,
      approval,
      platform,
      rules,
      pathPolicy,
      approve: options.approve,
      approvalTimeoutMs,
      audit,
      resultStore,
      stormBreaker: createStormBreaker(),
      hostSignal: hostController.signal,
      capabilityCallIsParallel: (args) => proxy.callAnnotations(args).readOnly === true,
      onStraggler(settled) {
        stragglers.add(settled);
        void settled.finally(() => stragglers.delete(settled));
      },
    });
    const activePipeline = pipeline;
    const hostedTools: HostedTool[] = registry
      .list()
      .filter((tool) => tool.definition.source === 'hosted' && tool.definition.hosted)
      .map((tool) => ({ name: tool.name, declarations: tool.definition.hosted?.declarations ?? {} }));
    const compiled = new Map<string, ProviderTools>();
    const providerTools = (
      dialect: DialectName,
      compileOptions: ProviderToolsOptions = {},
    ): ProviderTools => {
      const key = JSON.stringify([dialect, compileOptions]);
      let surfaceFor = compiled.get(key);
      if (!surfaceFor) {
        const result = compileTools(modelTools, {
          ...compileOptions,
          dialect,
          ...(hostedTools.length > 0 ? { hosted: hostedTools } : {}),
        });
        surfaceFor = deepFreeze({ ...result, fingerprint: fingerprintValue(result.tools) });
        compiled.set(key, surfaceFor);
      }
      return surfaceFor;
    };

    audit.emit('host-created', {
      root,
      sandbox,
      approval,
      surface,
      platform,
      surfaceFingerprint: fingerprint,
      surfaceNames: [...surfaceNames],
      tools: registry.size,
    });
    if (restored) {
      const missing = restored.results.filter(
        (entry) => !resultStore.get({ toolCallId: entry.callId, resultRef: entry.resultRef }).ok,
      );
      audit.emit('host-restored', {
        takenAt: restored.takenAt,
        observations: restored.observations.entries.length,
        results: restored.results.length,
        missingResults: missing.map((entry) => entry.resultRef),
        surfaceChanged: restored.surfaceFingerprint !== fingerprint,
      });
    }

    let closing: Promise<void> | undefined;
    return {
      root,
      sandbox,
      approval,
      surface,
      platform,
      stateDir,
      config,
      registry,
      pathPolicy,
      surfaceNames: () => surfaceNames,
      modelTools: () => modelTools,
      surfaceFingerprint: () => fingerprint,
      providerTools,
      snapshot: () => ({
        format: 'toolhost-host-v1',
        root,
        takenAt: new Date().toISOString(),
        surfaceFingerprint: fingerprint,
        observations: observations.toJSON(),
        results: resultStore.entries().map(({ resultRef, callId, toolName, totalBytes, sha256 }) => ({
          resultRef,
          callId,
          toolName,
          totalBytes,
          sha256,
        })),
        jobs: jobs.list().map(({ id, shell, label, background, state, exitCode, startedAt, endedAt }) => ({
          id,
          shell,
          label,
          background,
          state,
          ...(exitCode === undefined ? {} : { exitCode }),
          startedAt,
          ...(endedAt === undefined ? {} : { endedAt }),
        })),
      }),
      drainNotes() {
        const notes: string[] = [];
        if (restoredJobsNote) {
          notes.push(restoredJobsNote);
          restoredJobsNote = undefined;
        }
        const completed = jobs.drainCompletionNotes();
        if (completed) notes.push(completed);
        if (notes.length === 0) return undefined;
        audit.emit('notes-drained', { notes: notes.length });
        return notes.join('\n\n');
      },
      dispatch: (call, dispatchOptions) => track(activePipeline.dispatch(call, dispatchOptions)),
      dispatchBatch: (calls, dispatchOptions) => track(activePipeline.dispatchBatch(calls, dispatchOptions)),
      close() {
        closing ??= (async () => {
          hostController.abort(new ToolhostError({ code: 'ABORTED', message: 'the host is closing' }));
          // Running calls end promptly once cancelled, except non-abortable ones, which are awaited so
          // nothing lands after close() resolved.
          await Promise.allSettled([...inflight]);
          // Abortable handlers that did not settle within their grace promised to stop; wait a little more.
          await settleWithin([...stragglers], STRAGGLER_WAIT_MS);
          const failures: unknown[] = [];
          await proxy.close().catch((error: unknown) => failures.push(error));
          await jobs.close().catch((error: unknown) => failures.push(error));
          try {
            resultStore.close();
          } catch (error) {
            failures.push(error);
          }
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
 * Runs the capability proxy's permission questions through the host's permission step: the target
 * names `mcp_connect__<server>` and `mcp__<server>__<tool>` meet the same rules, sandbox and
 * approval as any tool. Connecting a configured server is covered by installation trust (the user
 * configured it; rules can still deny or ask). A tool's hints count as facts only from a server
 * marked `trusted`; from any other server only the hints that make a call riskier are believed.
 */
async function authorizeCapability(
  pipeline: DispatchPipeline,
  request: CapabilityAuthorizationRequest,
  sandbox: SandboxMode,
): Promise<CapabilityAuthorization> {
  const connect = request.kind === 'mcp-connect';
  const claimed = request.annotations;
  const annotations: ToolAnnotations = connect
    ? {}
    : request.annotationsTrusted
      ? claimed
      : {
          ...(claimed.readOnly === false ? { readOnly: false } : {}),
          ...(claimed.destructive === true ? { destructive: true } : {}),
          ...(claimed.openWorld === true ? { openWorld: true } : {}),
        };
  return pipeline.authorize({
    name: request.toolName,
    source: 'mcp',
    group: 'utility_builtins',
    category: annotations.readOnly === true ? 'read' : 'utility',
    annotations,
    trusted: connect || (request.annotationsTrusted && sandbox !== 'read_only'),
    callId: request.callId,
    invocation: { kind: 'capability', capabilityId: request.capabilityId },
    preview: request.preview,
    signal: request.signal,
  });
}

function readConfig(setting: HostOptions['config'], root: string): HostConfig {
  if (setting === false) return EMPTY_HOST_CONFIG;
  if (setting === undefined || typeof setting === 'string') {
    const file = setting === undefined ? join(root, CONFIG_FILE_NAME) : resolve(root, setting);
    const loaded = loadHostConfig(file, { optional: setting === undefined });
    if (!loaded.ok) throw loaded.error;
    return loaded.value;
  }
  const parsed = parseHostConfig(setting, 'options.config');
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
