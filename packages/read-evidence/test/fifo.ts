import { spawnSync } from 'node:child_process';

/** Creates a FIFO with the system's mkfifo; false where there is none. */
export async function mkfifo(path: string): Promise<boolean> {
  const result = spawnSync('mkfifo', [path]);
  return result.status === 0;
}
