// Argument types of the shell built-ins (bash, pwsh, job_output, job_kill and the hidden legacy
// aliases bash_output, kill_shell, wait). The JSDoc here is what the model reads as each parameter's
// description. `pnpm --filter @toolhost/builtins gen:schemas` turns these types into
// src/shell-schemas.generated.ts.

/** Arguments of `bash` (POSIX). */
export interface BashArguments {
  /**
   * The bash command to run; pipes, && and redirections work. Runs without a terminal and with no stdin, so interactive prompts get end-of-file: pass --yes/-y style flags.
   * @minLength 1
   */
  command: string;
  /** What the command does, in 5 to 10 words (shown to the user, e.g. "Run the unit tests"). */
  description?: string;
  /**
   * Kill the command (and everything it started) after this many milliseconds. Default 120000 (2 minutes), at most 600000. Ignored with run_in_background.
   * @TJS-type integer
   * @minimum 1
   * @maximum 600000
   */
  timeout_ms?: number;
  /** Start the command as a background job and return its id at once: for servers, watchers and long builds. Read its output with job_output, stop it with job_kill. Do not append "&". */
  run_in_background?: boolean;
  /** Directory to run in, relative to the project root. Default: the project root. Use this instead of "cd dir &&". */
  workdir?: string;
}

/** Arguments of `pwsh` (Windows). */
export interface PwshArguments {
  /**
   * The PowerShell command to run. Runs without a terminal and with no stdin. Chain commands with ";" and run the next only on success with "if ($?) { ... }".
   * @minLength 1
   */
  command: string;
  /**
   * What the command does, in 5 to 10 words (shown to the user, e.g. "Run the unit tests").
   * @minLength 1
   */
  description: string;
  /**
   * Kill the command (and everything it started) after this many milliseconds. Default 120000 (2 minutes), at most 600000. Ignored with run_in_background.
   * @TJS-type integer
   * @minimum 1
   * @maximum 600000
   */
  timeout_ms?: number;
  /** Start the command as a background job and return its pwsh-<n> id at once: for servers, watchers and long builds. Read its output with job_output, stop it with job_kill. */
  run_in_background?: boolean;
  /** Directory to run in, relative to the project root. Default: the project root. */
  workdir?: string;
}

/** Arguments of `job_output`. */
export interface JobOutputArguments {
  /**
   * Job id returned by the tool that started the background work (e.g. "bash-3").
   * @minLength 1
   */
  job_id: string;
  /** Block until the job finishes or timeout_ms passes; a timeout leaves the job running. Default false: return at once. */
  wait?: boolean;
  /**
   * How long wait=true blocks, in milliseconds. Default 30000, at most 600000.
   * @TJS-type integer
   * @minimum 1
   * @maximum 600000
   */
  timeout_ms?: number;
  /** Regular expression (JavaScript syntax, run in linear time: look-around and backreferences are refused): return only the new lines that match it. Lines that do not match are consumed too. */
  filter?: string;
}

/** Arguments of `job_kill`. */
export interface JobKillArguments {
  /**
   * Job id returned by the tool that started the background work (e.g. "bash-3").
   * @minLength 1
   */
  job_id: string;
  /** Why the job is being stopped (kept for the audit log). */
  reason?: string;
}

/** Arguments of the hidden legacy alias `bash_output`. */
export interface BashOutputArguments {
  /**
   * Job id of the background shell.
   * @minLength 1
   */
  job_id: string;
  /** Regular expression (JavaScript syntax, without look-around or backreferences): return only the new lines that match it. */
  filter?: string;
}

/** Arguments of the hidden legacy alias `kill_shell`. */
export interface KillShellArguments {
  /**
   * Job id of the background shell.
   * @minLength 1
   */
  job_id: string;
}

/** Arguments of the hidden legacy alias `wait`. */
export interface WaitArguments {
  /** The jobs to wait for. Default: every job running now. */
  job_ids?: string[];
  /**
   * Give up after this many seconds (the jobs keep running). Default 30, at most 600.
   * @TJS-type integer
   * @minimum 1
   * @maximum 600
   */
  timeout_seconds?: number;
}
