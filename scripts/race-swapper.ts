// A swapping helper process for the race tests of path-policy and builtins: it exchanges two names with renameat2(2)
// RENAME_EXCHANGE in a tight loop (a real directory and a symbolic link, so every lookup sees one
// or the other, never neither), until told to stop. A tiny C program compiled with gcc when gcc is
// there, else python3 with ctypes; without either (or off Linux) the race tests skip.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const C_SOURCE = `#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile sig_atomic_t stopping = 0;
static void on_term(int signal_number) { (void)signal_number; stopping = 1; }
static int exchange(const char *a, const char *b) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
}
int main(int argc, char **argv) {
  if (argc != 3) return 64;
  signal(SIGTERM, on_term);
  unsigned long swaps = 0;
  printf("ready\\n");
  fflush(stdout);
  while (!stopping) {
    if (exchange(argv[1], argv[2]) != 0) { perror("renameat2"); return 2; }
    swaps++;
  }
  /* An even number of exchanges puts every name back where it was. */
  if (swaps % 2 == 1) { if (exchange(argv[1], argv[2]) != 0) return 2; swaps++; }
  printf("%lu\\n", swaps);
  fflush(stdout);
  return 0;
}
`;

const PYTHON_SOURCE = `import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
renameat2 = libc.renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
AT_FDCWD = -100
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
stopping = False
def on_term(signum, frame):
    global stopping
    stopping = True
signal.signal(signal.SIGTERM, on_term)
swaps = 0
print("ready", flush=True)
while not stopping:
    if renameat2(AT_FDCWD, a, AT_FDCWD, b, 2) != 0:
        print(os.strerror(ctypes.get_errno()), file=sys.stderr)
        sys.exit(2)
    swaps += 1
if swaps % 2 == 1:
    renameat2(AT_FDCWD, a, AT_FDCWD, b, 2)
    swaps += 1
print(swaps, flush=True)
`;

/** How a swapper runs: a compiled program, or python3 with a script. */
interface SwapperCommand {
  readonly command: string;
  readonly prefix: readonly string[];
  readonly kind: 'gcc' | 'python3';
}

let prepared: SwapperCommand | null | undefined;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function prepare(): SwapperCommand | null {
  if (prepared !== undefined) return prepared;
  prepared = null;
  if (process.platform !== 'linux') return prepared;
  const directory = mkdtempSync(path.join(tmpdir(), 'toolhost-swapper-'));
  try {
    const source = path.join(directory, 'swapper.c');
    const binary = path.join(directory, 'swapper');
    writeFileSync(source, C_SOURCE);
    execFileSync('gcc', ['-O2', '-o', binary, source], { stdio: 'ignore', timeout: 60_000 });
    prepared = { command: binary, prefix: [], kind: 'gcc' };
    return prepared;
  } catch {
    // No compiler: try python3.
  }
  try {
    const script = path.join(directory, 'swapper.py');
    writeFileSync(script, PYTHON_SOURCE);
    execFileSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], {
      stdio: 'ignore',
      timeout: 30_000,
    });
    prepared = { command: 'python3', prefix: [script], kind: 'python3' };
  } catch {
    prepared = null;
  }
  return prepared;
}

/** Why the race tests cannot run here, or false when they can. */
export function swapperUnavailable(): string | false {
  if (process.platform !== 'linux') return 'renameat2(RENAME_EXCHANGE) is Linux-only';
  return prepare() === null ? 'neither gcc nor python3 with ctypes renameat2 is available' : false;
}

/** A running swapper. */
export interface Swapper {
  /** `gcc` or `python3`. */
  readonly kind: 'gcc' | 'python3';
  /** Stops the loop (the names end where they started) and resolves to the number of exchanges. */
  stop(): Promise<number>;
}

/**
 * Starts a separate process exchanging `first` and `second` as fast as it can; resolves once it
 * has begun. The process is killed if the test ends without `stop()`.
 */
export async function startSwapper(first: string, second: string): Promise<Swapper> {
  const command = prepare();
  if (command === null) throw new Error('no swapper available (check swapperUnavailable() first)');
  const child: ChildProcess = spawn(command.command, [...command.prefix, first, second], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (output.includes('ready\n')) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
    void exited.then((code) => {
      clearInterval(poll);
      reject(new Error(`the swapper exited early (${code}): ${errors}`));
    });
  });
  running.add(child);
  void exited.then(() => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const leftover of running) leftover.kill('SIGKILL');
    });
  }
  return {
    kind: command.kind,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) throw new Error(`the swapper failed (${code}): ${errors}`);
      const count = Number(output.split('\n').filter((line) => line !== '' && line !== 'ready')[0]);
      return count;
    },
  };
}
