import { readdirSync, readFileSync } from 'node:fs';

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` prints it (octal flags). */
const O_CLOEXEC = 0o2000000;

let inherited: readonly number[] | undefined;

/**
 * The descriptors above stdio that this process holds without close-on-exec, so that every program it
 * starts inherits them (requirement JOB-FD-1): typically ones the host itself inherited from the
 * program that started it (`node host.js 300>file`), which Node never marks close-on-exec. Node opens
 * its own descriptors with `O_CLOEXEC`, so in an ordinary host this list is empty. Linux only (it
 * reads `/proc/self/fdinfo`); elsewhere it returns `[]`.
 *
 * Read once per process and remembered (about a millisecond for a few dozen descriptors): a Node
 * process creates no descriptor without close-on-exec after it started (only a native addon could),
 * and closing one in a child that no longer exists in the host is harmless. `fresh` reads again.
 */
export function listInheritedDescriptors(fresh = false): readonly number[] {
  if (!inherited || fresh) inherited = Object.freeze(readInheritedDescriptors());
  return inherited;
}

function readInheritedDescriptors(): number[] {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');
    } catch {
      // The listing's own descriptor, or one closed meanwhile.
      continue;
    }
    const flags = /^flags:\s+([0-7]+)/m.exec(info);
    if (flags && (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/**
 * The text of a `BASH_ENV` file that closes the descriptors: bash reads it before it runs its `-c`
 * command (also with `--norc`), so a bash job drops them without an extra process; it unsets
 * `BASH_ENV` so shells the command starts do not read it again.
 */
export function closingScript(descriptors: readonly number[]): string {
  return `exec ${descriptors.map((fd) => `${fd}>&-`).join(' ')}\nunset BASH_ENV\n`;
}

/**
 * Wraps a command so that it starts without the given descriptors: `bash -c 'exec 300>&- ...; exec
 * "$@"'` closes them and replaces itself with the command (one extra `exec`, paid only when there is
 * something to close). Node cannot mark a descriptor close-on-exec, and neither its `spawn` nor
 * bubblewrap closes the ones it did not open, so this is the one place they can be dropped.
 */
export function closingDescriptors(
  descriptors: readonly number[],
  file: string,
  args: readonly string[],
  bash = 'bash',
): { file: string; args: string[] } {
  if (descriptors.length === 0) return { file, args: [...args] };
  const closes = descriptors.map((fd) => `${fd}>&-`).join(' ');
  return { file: bash, args: ['-c', `exec ${closes}; exec "$@"`, 'toolhost-close-fds', file, ...args] };
}
