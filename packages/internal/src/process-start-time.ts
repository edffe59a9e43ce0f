import { readFileSync } from 'node:fs';

/**
 * The start time of a process in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or null
 * where there is none (not Linux, no such process). A pid and its start time name one process: a reused
 * pid has another start time, so a lock or an owner record is never taken for a live process it is not.
 */
export function processStartTime(pid: number | 'self'): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
