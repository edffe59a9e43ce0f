import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

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
