import type { RegisteredTool } from '@toolhost/contracts';
import type { SandboxMode } from './decide-permission.js';
import type { SurfaceProfile } from './parse-host-config.js';

/** The host's operating-system family: it picks the shell (`bash` on POSIX, `pwsh` on Windows). */
export type HostPlatform = 'posix' | 'windows';

/** The name of the fixed capability proxy, on every surface. */
export const USE_CAPABILITY = 'use_capability';

/** The lean profile's tools besides the shell (the seed's unified boot surface). */
export const LEAN_SURFACE_TOOLS: readonly string[] = Object.freeze([
  'job_output',
  'job_kill',
  'read_file',
  'write_file',
  'edit_file',
  'view_image',
  USE_CAPABILITY,
]);

/**
 * Tools that need the embedding loop's conversation: listed (on the lean surface too, as the seed
 * says) only in a session that was given a conversation port, and nowhere else.
 */
export const CONVERSATION_TOOLS: readonly string[] = Object.freeze(['compress']);

/** The shell tool of a platform. */
export function shellToolName(platform: HostPlatform): 'bash' | 'pwsh' {
  return platform === 'windows' ? 'pwsh' : 'bash';
}

/** Options of {@link selectSurface}. */
export interface SelectSurfaceOptions {
  readonly profile: SurfaceProfile;
  readonly sandbox: SandboxMode;
  readonly platform: HostPlatform;
  /** Every registered tool (hidden ones are never selected). */
  readonly tools: readonly RegisteredTool[];
  /**
   * Whether the session has a conversation port: the {@link CONVERSATION_TOOLS} go on the surface
   * (lean and full); without one they are on no surface. Default false.
   */
  readonly conversation?: boolean;
}

/**
 * The provider-visible tools of a run, sorted by name:
 * - `lean`: the platform shell, `job_output`, `job_kill`, `read_file`, `write_file`, `edit_file`,
 *   `view_image`, `use_capability`;
 * - `full`: every listed built-in plus `use_capability`;
 * plus `compress` in both when the session has a conversation port (never otherwise); in both, the editing group is dropped in a `read_only` run, only the platform's shell is kept
 * (`bash` xor `pwsh`), and hidden aliases and non-built-in tools never appear. A name the registry
 * lacks is simply absent (the boot contract test pins the exact lists).
 */
export function selectSurface(options: SelectSurfaceOptions): RegisteredTool[] {
  const shell = shellToolName(options.platform);
  const otherShell = shell === 'bash' ? 'pwsh' : 'bash';
  const lean = new Set([shell, ...LEAN_SURFACE_TOOLS]);
  const selected = options.tools.filter((tool) => {
    const definition = tool.definition;
    if (definition.visibility !== 'listed') return false;
    if (tool.name === otherShell) return false;
    if (options.sandbox === 'read_only' && definition.group === 'editing_builtins') return false;
    if (tool.name === USE_CAPABILITY) return true;
    if (definition.source !== 'builtin') return false;
    if (CONVERSATION_TOOLS.includes(tool.name)) return options.conversation === true;
    return options.profile === 'full' || lean.has(tool.name);
  });
  return selected.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
