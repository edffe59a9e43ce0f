import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/pathological-call.ts', import.meta.url));

/** What a scenario of fixtures/pathological-call.ts printed, or that it had to be killed. */
export type IsolatedCallOutcome =
  | {
      readonly blocked: false;
      readonly result: { ok: boolean; code?: string; text: string };
      readonly stderr: string;
    }
  | { readonly blocked: true; readonly stderr: string };

/**
 * Runs a scenario of fixtures/pathological-call.ts in a child process (a call that blocks a thread
 * would also block the test runner's own timers). `deadlineMs` is generous: it only tells a blocked
 * process from a slow one on a loaded machine; nothing is asserted about time.
 */
export function runIsolatedCall(scenario: string, deadlineMs = 90_000): Promise<IsolatedCallOutcome> {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolhost/source', '--import', 'tsx', FIXTURE, scenario],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let blocked = false;
    const timer = setTimeout(() => {
      blocked = true;
      child.kill('SIGKILL');
    }, deadlineMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (blocked) {
        resolve({ blocked: true, stderr });
        return;
      }
      const line = stdout.trim().split('\n').at(-1);
      if (code !== 0 || line === undefined || line === '') {
        reject(new Error(`scenario ${scenario} exited with ${code}: ${stderr}`));
        return;
      }
      resolve({ blocked: false, result: JSON.parse(line), stderr });
    });
  });
}
