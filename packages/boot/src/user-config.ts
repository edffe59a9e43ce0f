import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomicSync } from '@toolhost/internal';

/** The user's configuration file inside {@link resolveUserConfigDir}. */
export const USER_CONFIG_FILE_NAME = 'config.json';
/** The trust store inside {@link resolveUserConfigDir}: project configurations the user approved. */
export const TRUST_STORE_FILE_NAME = 'trusted-projects.json';

/** Options of {@link resolveUserConfigDir}. */
export interface UserConfigDirOptions {
  /** Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** Default `os.homedir()`. */
  readonly home?: string;
}

/**
 * The directory that holds what belongs to the user and never to a project: the user's own
 * configuration, the project-trust store and MCP sign-ins (`mcp-oauth/`, `toolhost mcp login`).
 * `TOOLHOST_CONFIG_DIR` wins; then `%APPDATA%\toolhost` on Windows, `$XDG_CONFIG_HOME/toolhost`, else
 * `~/.config/toolhost`.
 */
export function resolveUserConfigDir(options: UserConfigDirOptions = {}): string {
  const env = options.env ?? process.env;
  const explicit = env.TOOLHOST_CONFIG_DIR;
  if (explicit && explicit.trim() !== '') return explicit;
  const platform = options.platform ?? process.platform;
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'toolhost');
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg?.startsWith('/')) return join(xdg, 'toolhost');
  return join(options.home ?? homedir(), '.config', 'toolhost');
}

/** One approved project configuration: its real path and the SHA-256 of the bytes the user approved. */
export interface ProjectTrustEntry {
  readonly sha256: string;
  readonly trustedAt: string;
}

interface TrustStoreFile {
  readonly format: 'toolhost-trust-v1';
  readonly projects: Record<string, ProjectTrustEntry>;
}

/** SHA-256 (hex) of a configuration file's bytes, the identity trust is granted to. */
export function configDigest(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function readTrustStore(dir: string): TrustStoreFile {
  let text: string;
  try {
    text = readFileSync(join(dir, TRUST_STORE_FILE_NAME), 'utf8');
  } catch {
    return { format: 'toolhost-trust-v1', projects: {} };
  }
  try {
    const parsed = JSON.parse(text) as Partial<TrustStoreFile>;
    if (parsed.format !== 'toolhost-trust-v1' || typeof parsed.projects !== 'object' || !parsed.projects) {
      return { format: 'toolhost-trust-v1', projects: {} };
    }
    const projects: Record<string, ProjectTrustEntry> = {};
    for (const [file, entry] of Object.entries(parsed.projects)) {
      if (entry && typeof entry.sha256 === 'string' && /^[0-9a-f]{64}$/.test(entry.sha256)) {
        projects[file] = { sha256: entry.sha256, trustedAt: String(entry.trustedAt ?? '') };
      }
    }
    return { format: 'toolhost-trust-v1', projects };
  } catch {
    // A damaged store trusts nothing (fail closed); the next `toolhost trust` rewrites it.
    return { format: 'toolhost-trust-v1', projects: {} };
  }
}

/**
 * Whether the user approved exactly these bytes of the project configuration at `file` (a real
 * path). Any change to the file ends the trust until it is approved again.
 */
export function isProjectConfigTrusted(dir: string, file: string, sha256: string): boolean {
  return readTrustStore(dir).projects[file]?.sha256 === sha256;
}

/** The approved entry for a project configuration, if any (its bytes may have changed since). */
export function projectTrustEntry(dir: string, file: string): ProjectTrustEntry | undefined {
  return readTrustStore(dir).projects[file];
}

/**
 * Records (or with `sha256: null`, removes) the user's approval of a project configuration. The store
 * is written atomically (temporary file, fsync, rename) with mode 0600 in a 0700 directory.
 */
export function writeProjectTrust(dir: string, file: string, sha256: string | null): void {
  const store = readTrustStore(dir);
  const projects = { ...store.projects };
  if (sha256 === null) delete projects[file];
  else projects[file] = { sha256, trustedAt: new Date().toISOString() };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, TRUST_STORE_FILE_NAME);
  const body = `${JSON.stringify({ format: 'toolhost-trust-v1', projects }, null, 2)}\n`;
  writeFileAtomicSync(target, body);
}
