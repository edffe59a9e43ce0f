import type { AnyToolDefinition } from '@toolhost/contracts';
import type { PathPolicy } from '@toolhost/path-policy';
import { createGlobTool } from './glob.js';
import { createGrepTool, GREP_DEFAULT_OUTPUT_BYTES } from '../grep/grep.js';
import { findRipgrep } from '../grep/grep-ripgrep-path.js';
import { createLsTool } from './ls.js';
import { createViewImageTool } from '../files/view-image.js';

/** Options of {@link createDiscoveryTools}. */
export interface DiscoveryToolsOptions {
  /** Decides every path the tools touch: the search roots, and each file or entry they report. */
  readonly pathPolicy: PathPolicy;
  /**
   * The ripgrep executable for `grep`. Default (`undefined`): `rg` looked up on `PATH` once, at the
   * first search. `null`: always the JS engine (same rules and output, slower on large trees).
   * A path that cannot be started also falls back to the JS engine.
   */
  readonly rgPath?: string | null;
  /** Most bytes of results `grep` puts in the model text. Default 28 KiB (under the host's 32 KiB cap). */
  readonly grepOutputBytes?: number;
}

/**
 * Creates the discovery built-ins `ls`, `glob`, `grep` and `view_image`, in this order. All are in
 * group `read_only_builtins` with annotations readOnly / not destructive / closed world /
 * idempotent, run in parallel, honour their abort signal, declare the paths they touch for the
 * permission step (`list` for directories, `read` for a file) and never create file observations.
 * Results never name a path outside the policy's roots, and secret files (the policy's secret
 * patterns) are neither listed nor searched.
 */
export function createDiscoveryTools(options: DiscoveryToolsOptions): AnyToolDefinition[] {
  const { pathPolicy } = options;
  let ripgrep: string | null | undefined = options.rgPath;
  const resolveRipgrep = (): string | null => {
    // `null` is an answer (use the JS engine); only `undefined` means "look it up".
    if (ripgrep === undefined) ripgrep = findRipgrep();
    return ripgrep;
  };
  return [
    createLsTool({ pathPolicy }),
    createGlobTool({ pathPolicy }),
    createGrepTool({
      pathPolicy,
      ripgrep: resolveRipgrep,
      outputBytes: options.grepOutputBytes ?? GREP_DEFAULT_OUTPUT_BYTES,
    }),
    createViewImageTool({ pathPolicy }),
  ];
}
