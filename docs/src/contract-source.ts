import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createHost,
  createStormBreaker,
  type Host,
  type HostPlatform,
  MAX_MODEL_RESULT_BYTES,
  MAX_PARALLEL_CALLS,
  RESULT_BUDGETS,
  type SandboxMode,
  type SubagentRunner,
  type SurfaceProfile,
} from '@toolhost/boot';
import { TOOL_RESULT_PAGE_DEFAULT_BYTES, TOOL_RESULT_PAGE_MAX_BYTES } from '@toolhost/capability-proxy';
import {
  ERROR_CODES,
  type ErrorCodeInfo,
  MAX_ARGUMENT_ERROR_BYTES,
  MAX_ARGUMENT_VIOLATIONS,
  createToolRegistry,
  type RegisteredTool,
  type ToolRegistry,
} from '@toolhost/contracts';
import {
  BINARY_SNIFF_BYTES,
  DEFAULT_CONTENT_BUDGET,
  DEFAULT_CONTENT_LIMIT,
  DEFAULT_HASH_LIMIT,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_WINDOW_BYTES,
  DEFAULT_WINDOW_LINES,
  ENCODING_SAMPLE_BYTES,
  EVIDENCE_ERROR_CODES,
} from '@toolhost/read-evidence';

/** The runner of the composition-only host: it is never called (nothing is dispatched there). */
const COMPOSITION_ONLY_RUNNER: SubagentRunner = {
  run: async () => ({
    status: 'failed',
    answer: '',
    retryable: false,
    error: { code: 'EXECUTION_ERROR', message: 'the documentation host runs no subagents' },
  }),
};

/** The surface profiles the surface table covers, in table order. */
export const SURFACE_PROFILES: readonly SurfaceProfile[] = ['lean', 'full'];
/** The sandboxes the surface table covers, in table order. */
export const SANDBOX_MODES: readonly SandboxMode[] = ['read_only', 'workspace_write', 'danger_full_access'];
/** The platforms the surface table covers, in table order. */
export const HOST_PLATFORMS: readonly HostPlatform[] = ['posix', 'windows'];

/** What one run policy puts in front of the model. */
export interface SurfaceListing {
  readonly profile: SurfaceProfile;
  readonly sandbox: SandboxMode;
  readonly platform: HostPlatform;
  /** The provider-visible tools, sorted (the host's frozen surface). */
  readonly surface: readonly string[];
  /** The built-ins `use_capability(action="list")` offers as `tool:<name>`, sorted. */
  readonly catalog: readonly string[];
}

/** A number the contract promises, with where it comes from. */
export interface ContractLimit {
  /** Stable id; the renderers hold its label in each language. */
  readonly id: string;
  readonly value: number | { readonly head: number; readonly tail: number };
  readonly unit: 'bytes' | 'count' | 'lines' | 'batches';
  /** The exported constant (or behaviour) the value is read from. */
  readonly source: string;
}

/**
 * Everything the contract documents are rendered from and checked against. The registry is the
 * one a real host composes; mutation tests pass modified copies of any part.
 */
export interface ContractSource {
  /** Every tool of the composition, listed and hidden (only `source: "builtin"` ones are documented). */
  readonly registry: Pick<ToolRegistry, 'list'>;
  /** The closed set of error codes (`ERROR_CODES` of `@toolhost/contracts`). */
  readonly errorCodes: Readonly<Record<string, ErrorCodeInfo>>;
  /** One listing per profile × sandbox × platform. */
  readonly surfaces: readonly SurfaceListing[];
  /** Limits of the dispatch pipeline, result shaping and paging. */
  readonly limits: readonly ContractLimit[];
  /** The codes `@toolhost/read-evidence` returns (`EVIDENCE_ERROR_CODES`). */
  readonly evidenceCodes: readonly string[];
  /** Limits of the observation store and the window reader. */
  readonly evidenceLimits: readonly ContractLimit[];
}

/** Options of {@link loadContractSource}. */
export interface LoadContractSourceOptions {
  /** Where the hosts' temporary project roots go; default the OS temp directory. */
  readonly tempDir?: string;
}

/**
 * Loads the contract from the real composition: `createHost` from `@toolhost/boot` in
 * `workspace_write` with the `full` surface, a subagent runner and the conversation tools, on POSIX
 * and on Windows (their registries, merged, hold every built-in of both platforms, listed and
 * hidden, the subagent tools, the conversation tools and `use_capability`), and one host per
 * profile × sandbox × platform for the surface table, whose
 * `tool:<name>` catalog is read from `use_capability(action="list")`. Every host runs on an empty
 * temporary project without a configuration file and is closed before this returns; the temporary
 * directory is removed. Throws when a host cannot be created (the documents cannot be rendered then).
 */
export async function loadContractSource(options: LoadContractSourceOptions = {}): Promise<ContractSource> {
  const base = mkdtempSync(join(options.tempDir ?? tmpdir(), 'toolhost-docs-'));
  try {
    const surfaces: SurfaceListing[] = [];
    const registries: ToolRegistry[] = [];
    for (const profile of SURFACE_PROFILES) {
      for (const sandbox of SANDBOX_MODES) {
        for (const platform of HOST_PLATFORMS) {
          const root = mkdtempSync(join(base, `${profile}-${sandbox}-${platform}-`));
          // The registry host below also registers the conversation tools (compress), which only a
          // loop that owns a conversation lists: the surfaces here (sessions without a port) are the
          // same bytes with or without them.
          const registryHost = profile === 'full' && sandbox === 'workspace_write';
          const host = await createHost({
            root,
            sandbox,
            surface: profile,
            platform,
            config: false,
            ...(registryHost ? { conversationTools: true } : {}),
          });
          try {
            surfaces.push({
              profile,
              sandbox,
              platform,
              surface: [...host.surfaceNames()].sort(),
              catalog: await listCatalog(host),
            });
          } finally {
            await host.close();
          }
          if (profile === 'full' && sandbox === 'workspace_write') {
            // The tool table documents every built-in, the subagent tools included, which a host
            // registers only when its embedding loop gives it a runner (`toolhost run` does). This
            // host only composes: nothing is dispatched, so its runner is never asked to run.
            const composed = await createHost({
              root: mkdtempSync(join(base, `registry-${platform}-`)),
              sandbox,
              surface: profile,
              platform,
              config: false,
              subagents: COMPOSITION_ONLY_RUNNER,
              conversationTools: true,
            });
            registries.push(composed.registry);
            await composed.close();
          }
        }
      }
    }
    return {
      registry: mergeRegistries(registries),
      errorCodes: ERROR_CODES,
      surfaces,
      limits: pipelineLimits(),
      evidenceCodes: [...EVIDENCE_ERROR_CODES],
      evidenceLimits: evidenceLimits(),
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * One registry holding the tools of every platform's host (POSIX registers `bash`, Windows `pwsh`;
 * everything else is shared). A name whose description, schema or read-only flag differs between
 * platforms cannot be one table row, so it throws naming the tool.
 */
function mergeRegistries(registries: readonly ToolRegistry[]): ToolRegistry {
  const merged = createToolRegistry();
  const seen = new Map<string, RegisteredTool>();
  for (const registry of registries) {
    for (const tool of registry.list({ visibility: 'all' })) {
      const earlier = seen.get(tool.name);
      if (!earlier) {
        seen.set(tool.name, tool);
        merged.register(tool.definition);
        continue;
      }
      const same =
        earlier.canonicalSchemaJson === tool.canonicalSchemaJson &&
        earlier.definition.modelTool.description === tool.definition.modelTool.description &&
        earlier.definition.visibility === tool.definition.visibility &&
        JSON.stringify(earlier.definition.aliases ?? []) === JSON.stringify(tool.definition.aliases ?? []) &&
        (earlier.definition.annotations.readOnly === true) ===
          (tool.definition.annotations.readOnly === true);
      if (!same) {
        throw new Error(
          `the tool "${tool.name}" differs between the POSIX and Windows hosts (description, schema, visibility, aliases or read-only flag); the contract documents one definition per name`,
        );
      }
    }
  }
  return merged;
}

/** The `tool:<name>` entries of `use_capability(action="list")`, sorted. */
async function listCatalog(host: Host): Promise<string[]> {
  const result = await host.dispatch({
    id: 'docs-catalog',
    name: 'use_capability',
    arguments: { action: 'list' },
  });
  const text = result.output;
  // The listing's format belongs to @toolhost/capability-proxy; if it changes shape, say so loudly
  // instead of rendering an empty catalog.
  if (result.status !== 'ok' || !/^Built-in tools \(\d+\):$/m.test(text)) {
    throw new Error(`use_capability(action="list") did not print a "Built-in tools (N):" section:\n${text}`);
  }
  const names = [...text.matchAll(/^- tool:([A-Za-z0-9_-]+):/gm)].map((match) => match[1]!);
  return names.sort();
}

/** How many equivalent all-failed batches the default storm breaker takes before it speaks. */
function measuredStormThreshold(): number {
  const breaker = createStormBreaker();
  const failed = [
    { toolName: 'read_file', ok: false, error: { code: 'FS_NOT_FOUND', message: 'x does not exist' } },
  ];
  for (let batch = 1; batch <= 100; batch++) if (breaker.observe(failed)) return batch;
  throw new Error('the default storm breaker never spoke within 100 equivalent failed batches');
}

function pipelineLimits(): ContractLimit[] {
  return [
    {
      id: 'model-result-bytes',
      value: MAX_MODEL_RESULT_BYTES,
      unit: 'bytes',
      source: '`MAX_MODEL_RESULT_BYTES` (@toolhost/boot)',
    },
    ...(['shell', 'read', 'search', 'default'] as const).map(
      (shape): ContractLimit => ({
        id: `result-budget-${shape}`,
        value: RESULT_BUDGETS[shape],
        unit: 'bytes',
        source: `\`RESULT_BUDGETS.${shape}\` (@toolhost/boot)`,
      }),
    ),
    {
      id: 'page-default-bytes',
      value: TOOL_RESULT_PAGE_DEFAULT_BYTES,
      unit: 'bytes',
      source: '`TOOL_RESULT_PAGE_DEFAULT_BYTES` (@toolhost/capability-proxy)',
    },
    {
      id: 'page-max-bytes',
      value: TOOL_RESULT_PAGE_MAX_BYTES,
      unit: 'bytes',
      source: '`TOOL_RESULT_PAGE_MAX_BYTES` (@toolhost/capability-proxy)',
    },
    {
      id: 'argument-violations',
      value: MAX_ARGUMENT_VIOLATIONS,
      unit: 'count',
      source: '`MAX_ARGUMENT_VIOLATIONS` (@toolhost/contracts)',
    },
    {
      id: 'argument-error-bytes',
      value: MAX_ARGUMENT_ERROR_BYTES,
      unit: 'bytes',
      source: '`MAX_ARGUMENT_ERROR_BYTES` (@toolhost/contracts)',
    },
    {
      id: 'parallel-calls',
      value: MAX_PARALLEL_CALLS,
      unit: 'count',
      source: '`MAX_PARALLEL_CALLS` (@toolhost/boot)',
    },
    {
      id: 'storm-threshold',
      value: measuredStormThreshold(),
      unit: 'batches',
      source: '`createStormBreaker()` default, measured (@toolhost/boot)',
    },
  ];
}

function evidenceLimits(): ContractLimit[] {
  const limit = (id: string, value: number, unit: ContractLimit['unit'], name: string): ContractLimit => ({
    id,
    value,
    unit,
    source: `\`${name}\` (@toolhost/read-evidence)`,
  });
  return [
    limit('hash-limit', DEFAULT_HASH_LIMIT, 'bytes', 'DEFAULT_HASH_LIMIT'),
    limit('content-limit', DEFAULT_CONTENT_LIMIT, 'bytes', 'DEFAULT_CONTENT_LIMIT'),
    limit('content-budget', DEFAULT_CONTENT_BUDGET, 'bytes', 'DEFAULT_CONTENT_BUDGET'),
    limit('window-lines', DEFAULT_WINDOW_LINES, 'lines', 'DEFAULT_WINDOW_LINES'),
    limit('max-line-bytes', DEFAULT_MAX_LINE_BYTES, 'bytes', 'DEFAULT_MAX_LINE_BYTES'),
    limit('max-window-bytes', DEFAULT_MAX_WINDOW_BYTES, 'bytes', 'DEFAULT_MAX_WINDOW_BYTES'),
    limit('binary-sniff-bytes', BINARY_SNIFF_BYTES, 'bytes', 'BINARY_SNIFF_BYTES'),
    limit('encoding-sample-bytes', ENCODING_SAMPLE_BYTES, 'bytes', 'ENCODING_SAMPLE_BYTES'),
  ];
}
