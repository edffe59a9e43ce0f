import {
  deepFreeze,
  type ModelTool,
  type RegisteredTool,
  sha256Hex,
  type ToolRegistry,
  toModelTools,
} from '@toolhost/contracts';
import {
  compileTools,
  type DialectName,
  fingerprintValue,
  type HostedTool,
} from '@toolhost/provider-dialects';
import type { SandboxMode } from './decide-permission.js';
import { EXIT_PLAN_MODE } from './plan-mode.js';
import type { SurfaceProfile } from './parse-host-config.js';
import { CONVERSATION_TOOLS, type HostPlatform, selectSurface, USE_CAPABILITY } from './select-surface.js';
import type { ProviderTools, ProviderToolsOptions } from './session-types.js';

/** The provider surface of one run policy, computed once and frozen. */
export interface PolicySurface {
  readonly tools: readonly RegisteredTool[];
  readonly names: readonly string[];
  readonly modelTools: readonly ModelTool[];
  readonly fingerprint: string;
  /** Listed tools off this surface, reachable as `tool:<name>` through `use_capability`. */
  readonly catalog: readonly RegisteredTool[];
  readonly catalogByName: ReadonlyMap<string, RegisteredTool>;
  providerTools(dialect: DialectName, options?: ProviderToolsOptions): ProviderTools;
}

/** Options of {@link createHostSurfaces}. */
export interface HostSurfacesOptions {
  readonly registry: ToolRegistry;
  readonly platform: HostPlatform;
  /** The names that may go on a provider surface (the composed built-ins and the proxy). */
  readonly candidates: ReadonlySet<string>;
}

/**
 * Which surface of a host: the session's sandbox and profile, whether it has a conversation port, and
 * whether it is a plan-mode session (which lists `exit_plan_mode`).
 */
export type SurfaceFor = (
  sandbox: SandboxMode,
  profile: SurfaceProfile,
  conversation?: boolean,
  plan?: boolean,
) => PolicySurface;

/**
 * The surfaces of a host, one per (sandbox, profile, conversation, plan) its sessions use, each computed on first use
 * and then the same frozen object for the host's life: byte-identical tool lists across calls,
 * sessions and MCP inventory changes (prompt-cache stability). Provider compilations are cached the
 * same way, per dialect and options.
 */
export function createHostSurfaces(options: HostSurfacesOptions): SurfaceFor {
  const { registry } = options;
  const cache = new Map<string, PolicySurface>();
  const hostedTools: HostedTool[] = registry
    .list()
    .filter((tool) => tool.definition.source === 'hosted' && tool.definition.hosted)
    .map((tool) => ({ name: tool.name, declarations: tool.definition.hosted?.declarations ?? {} }));
  return (sandbox, profile, conversation = false, plan = false) => {
    const key = `${sandbox}\0${profile}\0${conversation}\0${plan}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const selected = selectSurface({
      profile,
      sandbox,
      platform: options.platform,
      // Only the composed built-ins and the proxy: extra `tools` never reach the provider surface.
      tools: registry.list({ visibility: 'all' }).filter((tool) => options.candidates.has(tool.name)),
      conversation,
    });
    // Plan mode: the same surface plus exit_plan_mode, before and after the plan is approved.
    const planTool = plan ? registry.get(EXIT_PLAN_MODE) : undefined;
    const tools: readonly RegisteredTool[] = Object.freeze(
      planTool
        ? [...selected, planTool].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        : selected,
    );
    const names = Object.freeze(tools.map((tool) => tool.name));
    const modelTools = deepFreeze(toModelTools(tools));
    const fingerprint = sha256Hex(JSON.stringify(modelTools)).slice(0, 16);
    const onSurface = new Set(names);
    // Every listed tool that is not on the surface stays reachable as `tool:<name>`, including the
    // ones this policy's sandbox refuses: called that way they get the same PERMISSION_DENIED as by name.
    // A conversation tool is offered only where a conversation is (then it is on the surface itself).
    const catalog = Object.freeze(
      registry
        .list()
        .filter(
          (tool) =>
            !onSurface.has(tool.name) &&
            tool.name !== USE_CAPABILITY &&
            tool.definition.source !== 'hosted' &&
            !(tool.definition.source === 'builtin' && CONVERSATION_TOOLS.includes(tool.name)),
        ),
    );
    const compiled = new Map<string, ProviderTools>();
    const surface: PolicySurface = {
      tools,
      names,
      modelTools,
      fingerprint,
      catalog,
      catalogByName: new Map(catalog.map((tool) => [tool.name, tool])),
      providerTools(dialect, compileOptions = {}) {
        const compileKey = JSON.stringify([dialect, compileOptions]);
        let result = compiled.get(compileKey);
        if (!result) {
          const tools = compileTools(modelTools, {
            ...compileOptions,
            dialect,
            ...(hostedTools.length > 0 ? { hosted: hostedTools } : {}),
          });
          result = deepFreeze({ ...tools, fingerprint: fingerprintValue(tools.tools) });
          compiled.set(compileKey, result);
        }
        return result;
      },
    };
    cache.set(key, surface);
    return surface;
  };
}
