import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** One process as the operating system reports it. */
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Process group id. */
  readonly pgid: number;
  /** Session id. */
  readonly sid: number;
  /** The kernel's short command name (`comm`). */
  readonly name: string;
  /** `true` for a zombie: it has exited and only waits to be reaped, so it counts as gone. */
  readonly zombie: boolean;
}

/**
 * What identifies a process beyond its pid, so a reused pid is never mistaken for it: the start time
 * (clock ticks since boot on Linux, the `lstart` text elsewhere) and a hash of its command line.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
  readonly commandHash: string;
}

const isLinux = process.platform === 'linux';

/**
 * Lists every process visible to this user. On Linux it reads `/proc` directly (no subprocess, so it
 * is cheap enough to poll during a kill); elsewhere it runs `ps`. On Windows it returns `[]`.
 */
export function listProcesses(): ProcessInfo[] {
  if (isLinux) return listLinuxProcesses();
  if (process.platform === 'win32') return [];
  return listPsProcesses();
}

function listLinuxProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return processes;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const info = readLinuxStat(Number(entry));
    if (info) processes.push(info.process);
  }
  return processes;
}

interface LinuxStat {
  readonly process: ProcessInfo;
  readonly startTime: string;
}

function readLinuxStat(pid: number): LinuxStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // `comm` is in parentheses and may itself contain spaces and parentheses: split after the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 of proc(5): state, ppid, pgrp, session, ..., starttime is field 22.
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined) return undefined;
  return {
    process: {
      pid,
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      sid: Number(fields[3]),
      name: text.slice(open + 1, close),
      zombie: state === 'Z' || state === 'X',
    },
    startTime,
  };
}

function listPsProcesses(): ProcessInfo[] {
  let text: string;
  try {
    text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,sess=,stat=,comm='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return [];
  }
  const processes: ProcessInfo[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match) continue;
    processes.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      sid: Number(match[4]),
      zombie: match[5]!.startsWith('Z'),
      name: match[6]!.trim(),
    });
  }
  return processes;
}

/**
 * Reads a live process's identity (start time and command-line hash), or `undefined` when the process
 * does not exist, is a zombie, or cannot be inspected.
 */
export function readProcessIdentity(pid: number): ProcessIdentity | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (isLinux) {
    const stat = readLinuxStat(pid);
    if (!stat || stat.process.zombie) return undefined;
    let commandLine: Buffer;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`);
    } catch {
      return undefined;
    }
    return { pid, startTime: stat.startTime, commandHash: hashCommandLine(commandLine) };
  }
  if (process.platform === 'win32') return undefined;
  try {
    const text = execFileSync('ps', ['-p', String(pid), '-o', 'stat=,lstart=,command='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // lstart is a fixed five-word date ("Mon Jan  2 15:04:05 2006"); the command follows it.
    const match = /^\s*(\S+)\s+(\S+\s+\S+\s+\d+\s+\S+\s+\d+)\s+(.*)$/.exec(text.trimEnd());
    if (!match || match[1]!.startsWith('Z')) return undefined;
    return { pid, startTime: match[2]!, commandHash: hashCommandLine(Buffer.from(match[3]!)) };
  } catch {
    return undefined;
  }
}

/**
 * A process's start time as {@link readProcessIdentity} reports it, without hashing its command line
 * (cheap on Linux); `undefined` when it is gone or cannot be read.
 */
export function readProcessStartTime(pid: number): string | undefined {
  if (isLinux) {
    const stat = readLinuxStat(pid);
    return stat && !stat.process.zombie ? stat.startTime : undefined;
  }
  return readProcessIdentity(pid)?.startTime;
}

function hashCommandLine(commandLine: Buffer): string {
  return createHash('sha256').update(commandLine).digest('hex').slice(0, 32);
}

/** Whether a process with this pid exists and has not exited (a zombie counts as exited). */
export function isProcessAlive(pid: number): boolean {
  if (isLinux) {
    const stat = readLinuxStat(pid);
    return stat !== undefined && !stat.process.zombie;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether one process's environment contains `NAME=value` exactly (Linux only; false elsewhere). */
export function processHasEnvironment(pid: number, name: string, value: string): boolean {
  if (!isLinux) return false;
  try {
    return environmentContains(readFileSync(`/proc/${pid}/environ`), Buffer.from(`${name}=${value}\0`));
  } catch {
    return false;
  }
}

function environmentContains(environment: Buffer, needle: Buffer): boolean {
  // The variable is either the first entry or follows a NUL separator.
  for (let index = environment.indexOf(needle); index >= 0; index = environment.indexOf(needle, index + 1)) {
    if (index === 0 || environment[index - 1] === 0) return true;
  }
  return false;
}

/**
 * The pids whose environment contains `NAME=value` exactly. Linux only (it reads `/proc/<pid>/environ`,
 * which is readable for this user's own processes); elsewhere it returns `[]`. Used to find the
 * processes of a job that left its process group and were re-parented (`setsid`, double forks):
 * every job gets a random marker variable its descendants inherit.
 */
export function findProcessesWithEnvironment(name: string, value: string): number[] {
  if (!isLinux) return [];
  const needle = Buffer.from(`${name}=${value}\0`);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let environment: Buffer;
    try {
      environment = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (environmentContains(environment, needle)) pids.push(Number(entry));
  }
  return pids;
}
