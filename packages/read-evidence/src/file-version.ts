import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';

/** Files up to this size (16 MiB) get a content hash in their version by default. */
export const DEFAULT_HASH_LIMIT = 16 * 1024 * 1024;

/** Files up to this size (1 MiB) keep their observed content by default, so a stale error can name changed lines. */
export const DEFAULT_CONTENT_LIMIT = 1024 * 1024;

/**
 * A file's version: its metadata plus, for files up to the hash limit, the SHA-256 of its content.
 * Numbers that can exceed 2^53 (nanosecond times, inode and device numbers) are decimal strings, so
 * a version is plain JSON.
 */
export interface FileVersion {
  readonly size: number;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  /** The full `st_mode` (type and permission bits). */
  readonly mode: number;
  readonly ino: string;
  readonly dev: string;
  /** Hex SHA-256 of the content, or `null` when the file was larger than the hash limit (metadata only). */
  readonly sha256: string | null;
}

/** The metadata part of a {@link FileVersion}, read from `stat` with `{ bigint: true }`. */
export type FileMetadata = Omit<FileVersion, 'sha256'>;

/** The metadata of a file from its bigint stats. */
export function fileMetadataOf(stats: BigIntStats): FileMetadata {
  return {
    size: Number(stats.size),
    mtimeNs: stats.mtimeNs.toString(),
    ctimeNs: stats.ctimeNs.toString(),
    mode: Number(stats.mode),
    ino: stats.ino.toString(),
    dev: stats.dev.toString(),
  };
}

/** A version from bigint stats and an optional content hash. */
export function fileVersionOf(stats: BigIntStats, sha256: string | null): FileVersion {
  return { ...fileMetadataOf(stats), sha256 };
}

/** Whether two versions (or metadata records) have equal metadata: size, times, mode, inode and device. */
export function sameFileMetadata(left: FileMetadata, right: FileMetadata): boolean {
  return (
    left.size === right.size &&
    left.mtimeNs === right.mtimeNs &&
    left.ctimeNs === right.ctimeNs &&
    left.mode === right.mode &&
    left.ino === right.ino &&
    left.dev === right.dev
  );
}

/**
 * The identity key of a file: `native:<dev>:<ino>` where the platform gives an inode number, else
 * `path:<real path>`. Hard links to one inode share a key, so they share one observation.
 */
export function fileIdentityKey(metadata: Pick<FileMetadata, 'dev' | 'ino'>, realPath: string): string {
  return metadata.ino !== '0' ? `native:${metadata.dev}:${metadata.ino}` : `path:${realPath}`;
}

/** Hex SHA-256 of some bytes. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A value-free summary of a version for error details and audits. */
export function describeVersion(version: FileVersion): Readonly<Record<string, unknown>> {
  return {
    size: version.size,
    mtimeNs: version.mtimeNs,
    ctimeNs: version.ctimeNs,
    mode: version.mode.toString(8),
    identity: `${version.dev}:${version.ino}`,
    sha256: version.sha256,
  };
}
