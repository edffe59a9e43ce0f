import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomicSync}. */
export interface AtomicWriteOptions {
  /** Flush the file to disk before the rename (a crash then leaves the old file or the new one). Default true. */
  readonly fsync?: boolean;
}

/**
 * Replaces `target` with `data` atomically: a new 0600 temporary file `.<name>.<random>.tmp` beside it
 * (created exclusively, so it never follows a planted link), written, flushed to disk unless
 * `fsync: false`, then renamed over `target`; a reader sees the old contents or the new ones, never half
 * of either. On any failure the temporary file is removed and the file system's error is thrown (the
 * caller reports it without echoing paths or contents). The directory must exist.
 */
export function writeFileAtomicSync(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): void {
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeAll(fd, data);
    if (options.fsync !== false) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let written = 0;
  // writeSync may write less than asked (a full pipe, a signal); loop until all of it is down.
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}
