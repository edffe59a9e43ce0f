import { spawnSync } from 'node:child_process';
import os from 'node:os';

/** The machine and code a run measured. */
export interface MachineInfo {
  readonly cpuModel: string;
  /** Logical CPUs. */
  readonly cores: number;
  readonly memoryGB: number;
  readonly os: string;
  readonly node: string;
  /** `rg --version`'s first line, or `null` when ripgrep is missing. */
  readonly ripgrep: string | null;
  /** The 1, 5 and 15 minute load averages when the suite started. */
  readonly loadAtStart: readonly number[];
  /** `git rev-parse --short HEAD`, or `null` outside a repository. */
  readonly commit: string | null;
  /** Paths with uncommitted changes when the suite ran (other people's work in a shared tree counts too). */
  readonly uncommittedPaths: number;
  /** ISO time the suite started. */
  readonly startedAt: string;
}

function firstLine(command: string, args: readonly string[], cwd?: string): string | null {
  const result = spawnSync(command, args, { encoding: 'utf8', cwd });
  if (result.status !== 0 || typeof result.stdout !== 'string') return null;
  return result.stdout.split('\n')[0]?.trim() || null;
}

/** Describes this machine (CPU, cores, memory, OS, Node, ripgrep, load) and the checked-out commit. */
export function describeMachine(repoRoot: string): MachineInfo {
  const cpus = os.cpus();
  const status = spawnSync('git', ['status', '--porcelain'], { encoding: 'utf8', cwd: repoRoot });
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cores: cpus.length,
    memoryGB: Math.round((os.totalmem() / 1e9) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    ripgrep: firstLine('rg', ['--version']),
    loadAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
    commit: firstLine('git', ['rev-parse', '--short', 'HEAD'], repoRoot),
    uncommittedPaths:
      status.status === 0 ? status.stdout.split('\n').filter((line) => line.trim() !== '').length : 0,
    startedAt: new Date().toISOString(),
  };
}

/** The current load averages, rounded to two decimals. */
export function loadAverage(): number[] {
  return os.loadavg().map((value) => Math.round(value * 100) / 100);
}
