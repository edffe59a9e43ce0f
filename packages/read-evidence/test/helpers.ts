import { existsSync, statSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { isLocalFileSystem } from '../src/read-small-file.js';

/** A fresh real temp directory for one test, removed when the test ends. */
export async function tempDir(context: TestContext, base: string = tmpdir()): Promise<string> {
  const directory = await realpath(await mkdtemp(join(base, 'toolhost-re-')));
  context.after(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** Unwraps a successful result or fails the test with the error. */
export function expectOk<T>(
  result: { ok: true; value: T } | { ok: false; error: { code: string; message: string } },
): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Unwraps a failed result's error code and message or fails the test. */
export function expectError(result: { ok: true } | { ok: false; error: { code: string; message: string } }): {
  code: string;
  message: string;
} {
  if (result.ok) throw new Error('expected a failure, got success');
  return result.error;
}

/**
 * A fresh temp directory on a local file system, where reads of small files take the synchronous
 * path (RE-19): the system temp directory, else `/dev/shm`; `undefined` where neither is local (for
 * example off Linux), and the caller skips.
 */
export async function localTempDir(context: TestContext): Promise<string | undefined> {
  for (const base of [tmpdir(), '/dev/shm']) {
    if (!existsSync(base)) continue;
    const directory = await tempDir(context, base);
    if (isLocalFileSystem(directory, statSync(directory).dev)) return directory;
  }
  return undefined;
}

/**
 * A stand-in for an AbortSignal that runs `change` the first time a reader asks whether it was
 * aborted, and is never aborted: a way to change a file at a reader's check point in the middle of a
 * read (the synchronous read asks once, after the descriptor's stat and before reading the bytes).
 */
export function changeAtFirstCheck(change: () => void): AbortSignal & { readonly checks: number } {
  let checks = 0;
  return {
    get aborted() {
      if (++checks === 1) change();
      return false;
    },
    get checks() {
      return checks;
    },
  } as AbortSignal & { readonly checks: number };
}
