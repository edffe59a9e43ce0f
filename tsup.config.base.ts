// The one tsup configuration of every package (each package's tsup.config.ts imports it). ESM with
// declarations and source maps. @toolhost/internal, the private helpers package, is bundled into each
// consumer: its JavaScript from its sources, its declarations from its built dist/index.d.ts (turbo
// builds it first: it is a devDependency of every consumer), so nothing published names it.
import type { Options } from 'tsup';

/** The private package bundled into its consumers (never published). */
const INTERNAL = '@toolhost/internal';

/** The build options of a package whose entry points are `entry` (default `src/index.ts`). */
export function packageBuild(entry: readonly string[] = ['src/index.ts']): Options {
  return {
    entry: [...entry],
    format: 'esm',
    dts: { resolve: [INTERNAL] },
    sourcemap: true,
    clean: true,
    noExternal: [INTERNAL],
    esbuildOptions(options) {
      // Bundle internal from its sources (its `@toolhost/source` export), so a package builds without
      // internal's dist; every other @toolhost import stays external and is unaffected.
      options.conditions = ['@toolhost/source', ...(options.conditions ?? [])];
    },
  };
}
