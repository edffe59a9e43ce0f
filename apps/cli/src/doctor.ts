import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** How one check came out: present and working, absent, or present but not working here. */
export type DoctorStatus = 'ok' | 'missing' | 'failing';

/** One thing toolhost uses, as found on this machine. */
export interface DoctorCheck {
  /** `node`, `git`, `rg`, `bwrap` (Linux) or `sandbox-exec` (macOS). */
  readonly name: string;
  readonly status: DoctorStatus;
  /** Whether toolhost cannot do its job without it (the shell sandbox, Node); the others are recommended. */
  readonly required: boolean;
  readonly version?: string;
  readonly path?: string;
  /** What it is for, or exactly what is wrong. */
  readonly detail: string;
  /** The command that installs or repairs it on this machine, when one is known. */
  readonly fix?: string;
}

/** What `toolhost doctor` found. */
export interface DoctorReport {
  /** Every required check passed. */
  readonly ok: boolean;
  readonly platform: NodeJS.Platform;
  /** The package manager the fixes use (`apt-get`, `dnf`, `brew` ...), when one was found. */
  readonly packageManager: string | null;
  readonly checks: readonly DoctorCheck[];
  /** One command that installs every missing package, when a package manager was found. */
  readonly installAll: string | null;
}

/** What the checks look at; every field defaults to this process and machine (tests replace them). */
export interface DiagnoseOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  readonly nodeVersion?: string;
  /** The Node range toolhost declares (`engines.node`), `>=MAJOR.MINOR`. */
  readonly nodeRange: string;
  /** Whether this process runs as root (then fixes need no `sudo`). */
  readonly isRoot?: boolean;
  /** Finds bubblewrap (default: `@toolhost/jobs`' `findBubblewrap`, the executable the sandbox uses). */
  readonly findBubblewrap?: (searchPath: string) => string | undefined;
  /** Runs bubblewrap the way the sandbox does (default: `@toolhost/jobs`' `probeBubblewrap`). */
  readonly probeBubblewrap?: (executable: string) => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Reads a `/proc/sys` setting (default: the file's first line, `undefined` when absent). */
  readonly readSysctl?: (name: string) => string | undefined;
}

/** The package managers the fixes know, in the order they are looked for, and how they install. */
const PACKAGE_MANAGERS = [
  { name: 'apt-get', install: 'apt-get install -y', sudo: true },
  { name: 'dnf', install: 'dnf install -y', sudo: true },
  { name: 'yum', install: 'yum install -y', sudo: true },
  { name: 'pacman', install: 'pacman -S --needed --noconfirm', sudo: true },
  { name: 'zypper', install: 'zypper install -y', sudo: true },
  { name: 'apk', install: 'apk add', sudo: true },
  { name: 'brew', install: 'brew install', sudo: false },
] as const;

/** How a kernel that refuses bubblewrap its namespaces shows in bwrap's message. */
const NAMESPACE_FAILURE = /uid map|namespace|Operation not permitted|Permission denied|unshare|clone/i;

/** The package that provides each command; the same name in every manager above. */
const PACKAGES: Readonly<Record<string, string>> = { git: 'git', rg: 'ripgrep', bwrap: 'bubblewrap' };

/** An executable on the search path (absolute entries only, as the tools look them up), or undefined. */
function findOnPath(name: string, searchPath: string, extra: readonly string[] = []): string | undefined {
  const directories = [...extra, ...searchPath.split(delimiter)];
  for (const directory of directories) {
    if (!directory || !isAbsolute(directory)) continue;
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The first line of `command --version`, or undefined when it cannot be run. */
function versionOf(executable: string, args: readonly string[] = ['--version']): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(executable, [...args], { timeout: 20_000, encoding: 'utf8' }, (error, stdout) => {
      resolve(error ? undefined : stdout.split('\n')[0]?.trim() || undefined);
    });
  });
}

/** `>=20.19` against `20.20.2`: whether the version satisfies a `>=MAJOR.MINOR[.PATCH]` range. */
export function satisfiesMinimum(version: string, range: string): boolean {
  const minimum = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  const actual = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!minimum || !actual) return false;
  const wanted = [Number(minimum[1]), Number(minimum[2] ?? 0), Number(minimum[3] ?? 0)];
  const have = [Number(actual[1]), Number(actual[2]), Number(actual[3])];
  for (let index = 0; index < 3; index += 1) {
    if (have[index]! !== wanted[index]!) return have[index]! > wanted[index]!;
  }
  return true;
}

function defaultSysctl(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8')
      .split('\n')[0]
      ?.trim();
  } catch {
    return undefined;
  }
}

/**
 * Why bubblewrap may fail to build its sandbox here, and the setting that allows it, from the
 * kernel's user-namespace switches (Ubuntu 23.10+ AppArmor, older Debian kernels, a zero limit).
 */
function namespaceFix(readSysctl: (name: string) => string | undefined, sudo: string): string | undefined {
  if (readSysctl('kernel.apparmor_restrict_unprivileged_userns') === '1') {
    return `${sudo}sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (AppArmor restricts unprivileged user namespaces; or give bwrap an AppArmor profile that allows userns)`;
  }
  if (readSysctl('kernel.unprivileged_userns_clone') === '0') {
    return `${sudo}sysctl -w kernel.unprivileged_userns_clone=1 (the kernel disables unprivileged user namespaces)`;
  }
  if (readSysctl('user.max_user_namespaces') === '0') {
    return `${sudo}sysctl -w user.max_user_namespaces=15000 (the kernel allows no user namespaces)`;
  }
  return undefined;
}

/**
 * Looks at what toolhost uses on this machine: Node (its version against `engines.node`), git, ripgrep
 * and the shell sandbox (bubblewrap on Linux, probed the way the sandbox runs it, so "installed but
 * cannot create a sandbox here" is told apart from "not installed"; Seatbelt on macOS). Each check
 * says what is wrong and the command that installs or repairs it with the machine's package manager.
 * Runs nothing but version queries and the sandbox probe; never throws.
 */
export async function diagnose(options: DiagnoseOptions): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const searchPath = env.PATH ?? '';
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  const sudo = isRoot || platform === 'darwin' ? '' : 'sudo ';
  const readSysctl = options.readSysctl ?? defaultSysctl;
  // Distribution package managers live in the system directories whatever PATH says.
  const manager = PACKAGE_MANAGERS.find((candidate) =>
    findOnPath(candidate.name, searchPath, [
      '/usr/bin',
      '/bin',
      '/usr/sbin',
      '/opt/homebrew/bin',
      '/usr/local/bin',
    ]),
  );
  const installCommand = (packages: readonly string[]) =>
    manager ? `${manager.sudo ? sudo : ''}${manager.install} ${packages.join(' ')}` : undefined;
  const checks: DoctorCheck[] = [];
  const missingPackages: string[] = [];
  const withFix = (check: Omit<DoctorCheck, 'fix'>, fix: string | undefined): DoctorCheck =>
    fix ? { ...check, fix } : check;

  const nodeVersion = options.nodeVersion ?? process.versions.node;
  checks.push(
    satisfiesMinimum(nodeVersion, options.nodeRange)
      ? {
          name: 'node',
          status: 'ok',
          required: true,
          version: nodeVersion,
          detail: `toolhost needs ${options.nodeRange}`,
        }
      : {
          name: 'node',
          status: 'failing',
          required: true,
          version: nodeVersion,
          detail: `Node ${nodeVersion} is too old: toolhost needs ${options.nodeRange}`,
          fix: 'install a current Node LTS from https://nodejs.org (or: nvm install --lts)',
        },
  );

  const tool = async (name: 'git' | 'rg', detail: string, missing: string) => {
    const found = findOnPath(name, searchPath);
    const version = found ? await versionOf(found) : undefined;
    if (found && version) {
      checks.push({ name, status: 'ok', required: false, version, path: found, detail });
      return;
    }
    missingPackages.push(PACKAGES[name]!);
    checks.push(
      withFix(
        found
          ? {
              name,
              status: 'failing',
              required: false,
              path: found,
              detail: `${found} does not run (${name} --version failed); ${missing}`,
            }
          : { name, status: 'missing', required: false, detail: `${name} is not on PATH; ${missing}` },
        installCommand([PACKAGES[name]!]),
      ),
    );
  };
  await tool(
    'git',
    'the project context of `run` (branch, changed files) and git commands in the shell',
    'the agent loop cannot show the branch or changed files',
  );
  await tool(
    'rg',
    'grep runs ripgrep',
    'grep falls back to its JavaScript engine (same results, slower on large trees)',
  );

  if (platform === 'linux') {
    const jobs = await import('@toolhost/jobs');
    const find = options.findBubblewrap ?? jobs.findBubblewrap;
    const probe = options.probeBubblewrap ?? jobs.probeBubblewrap;
    const executable = find(searchPath);
    const consequence =
      'shell calls in read_only and workspace_write fail with SANDBOX_UNAVAILABLE (danger_full_access runs them unsandboxed)';
    if (!executable) {
      missingPackages.push(PACKAGES.bwrap!);
      checks.push(
        withFix(
          {
            name: 'bwrap',
            status: 'missing',
            required: true,
            detail: `bubblewrap (bwrap) is not installed: ${consequence}`,
          },
          installCommand([PACKAGES.bwrap!]),
        ),
      );
    } else {
      const version = await versionOf(executable);
      const probed = await probe(executable);
      const found = {
        name: 'bwrap',
        required: true,
        path: executable,
        ...(version ? { version } : {}),
      } as const;
      checks.push(
        probed.ok
          ? { ...found, status: 'ok', detail: 'the shell sandbox works here' }
          : withFix(
              { ...found, status: 'failing', detail: `${probed.reason}: ${consequence}` },
              namespaceFix(readSysctl, sudo) ??
                (NAMESPACE_FAILURE.test(probed.reason)
                  ? 'allow unprivileged user namespaces for bwrap (in a container: run it with a seccomp profile that permits them)'
                  : undefined),
            ),
      );
    }
  } else if (platform === 'darwin') {
    const executable = findOnPath('sandbox-exec', '', ['/usr/bin']);
    checks.push(
      executable
        ? {
            name: 'sandbox-exec',
            status: 'ok',
            required: true,
            path: executable,
            detail: 'the shell sandbox (Seatbelt) works here',
          }
        : {
            name: 'sandbox-exec',
            status: 'missing',
            required: true,
            detail:
              '/usr/bin/sandbox-exec is missing: shell calls outside danger_full_access fail with SANDBOX_UNAVAILABLE',
          },
    );
  } else {
    checks.push({
      name: 'sandbox',
      status: 'missing',
      required: true,
      detail: `no OS sandbox on ${platform}: shell calls need --sandbox danger_full_access`,
    });
  }

  return {
    ok: checks.every((check) => !check.required || check.status === 'ok'),
    platform,
    packageManager: manager?.name ?? null,
    checks,
    installAll: missingPackages.length > 0 ? (installCommand(missingPackages) ?? null) : null,
  };
}
