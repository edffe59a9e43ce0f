import { createRequire } from 'node:module';

let version: string | undefined;

/**
 * This package's version (its package.json), sent as the MCP client version by the proxy's connections
 * and by `loginMcpServer` (initialize and OAuth client registration alike). Read once.
 */
export function packageVersion(): string {
  // `../package.json` is the package root from `src/` and from `dist/` alike.
  version ??= String(
    (createRequire(import.meta.url)('../package.json') as { version?: unknown }).version ?? '0.0.0',
  );
  return version;
}
