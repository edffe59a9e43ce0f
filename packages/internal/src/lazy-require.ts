import { createRequire } from 'node:module';

/**
 * A getter that loads a CommonJS module on its first call and returns the same module after (issue
 * 25: cold start; libraries most processes never use, such as the diff, regex and encoding engines,
 * were parsed by every toolhost process at start-up). The require is synchronous, so a synchronous
 * caller stays synchronous. `from` is the caller's `import.meta.url`: the module is resolved from
 * the caller's package (whose dependency it is), not from this one, also once bundled.
 */
export function lazyRequire<T>(from: string | URL, specifier: string): () => T {
  let loaded: { readonly module: T } | undefined;
  return () => {
    loaded ??= { module: createRequire(from)(specifier) as T };
    return loaded.module;
  };
}
