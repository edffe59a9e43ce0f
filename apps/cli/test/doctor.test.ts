import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { diagnose, satisfiesMinimum } from '../src/doctor.js';
import { type Json, makeProject, runToolhost } from './helpers.js';

const LINUX = process.platform === 'linux';
const APT = ['/usr/bin/apt-get', '/bin/apt-get'].some((path) => existsSync(path));

describe('toolhost doctor', () => {
  it('reports node, git, rg and the sandbox of this machine, exit 0 exactly when the sandbox works (issue 23)', async () => {
    const project = await makeProject();
    try {
      const json = await runToolhost(['doctor', '--json'], { cwd: project.root });
      const report: Json = JSON.parse(json.stdout);
      assert.equal(json.code, report.ok ? 0 : 1, json.stderr);
      const names = report.checks.map((check: Json) => check.name);
      assert.deepEqual(names.slice(0, 3), ['node', 'git', 'rg']);
      if (LINUX) assert.equal(names[3], 'bwrap');
      const node = report.checks[0];
      assert.equal(node.status, 'ok');
      assert.equal(node.version, process.versions.node);
      for (const check of report.checks) {
        assert.ok(['ok', 'missing', 'failing'].includes(check.status), check.name);
        assert.ok(check.detail.length > 0);
        if (check.status === 'ok' && check.name !== 'node') assert.ok(check.path, check.name);
      }
      assert.equal(
        report.ok,
        report.checks.every((check: Json) => !check.required || check.status === 'ok'),
      );
      const human = await runToolhost(['doctor'], { cwd: project.root });
      assert.equal(human.code, json.code);
      assert.match(human.stdout, /^toolhost \S+ doctor: what toolhost uses on this machine/);
      for (const name of names)
        assert.match(human.stdout, new RegExp(`^ {2}(ok|missing|failing) +${name}\\b`, 'm'));
    } finally {
      await project.cleanup();
    }
  });

  it('names what is missing and the command that installs it when rg and git are not on PATH (issue 23: a newcomer skipped the apt-get line)', async () => {
    const project = await makeProject();
    try {
      const result = await runToolhost(['doctor', '--json'], {
        cwd: project.root,
        env: { PATH: '/nonexistent-toolhost-path' },
      });
      const report: Json = JSON.parse(result.stdout);
      const byName = new Map(report.checks.map((check: Json) => [check.name, check]));
      for (const [name, pkg] of [
        ['rg', 'ripgrep'],
        ['git', 'git'],
      ] as const) {
        const check: Json = byName.get(name);
        assert.equal(check.status, 'missing', name);
        assert.equal(check.required, false);
        assert.match(check.detail, new RegExp(`^${name} is not on PATH; `));
        if (APT) assert.match(check.fix, new RegExp(`apt-get install -y ${pkg}$`));
      }
      if (APT) {
        assert.equal(report.packageManager, 'apt-get');
        assert.match(report.installAll, /apt-get install -y git ripgrep/);
      }
      // Neither is required: the exit code follows the sandbox (whose probe also looks for sh on PATH).
      assert.equal(result.code, report.ok ? 0 : 1);
      const human = await runToolhost(['doctor'], {
        cwd: project.root,
        env: { PATH: '/nonexistent-toolhost-path' },
      });
      assert.match(
        human.stdout,
        /^ {2}missing +rg: rg is not on PATH; grep falls back to its JavaScript engine/m,
      );
      if (APT) assert.match(human.stdout, /^ {11}fix: (sudo )?apt-get install -y ripgrep$/m);
    } finally {
      await project.cleanup();
    }
  });

  it('is listed in the help and takes no arguments', async () => {
    const help = await runToolhost(['--help']);
    assert.match(help.stdout, /^ {2}doctor +what this machine is missing for toolhost/m);
    const extra = await runToolhost(['doctor', 'now']);
    assert.equal(extra.code, 2);
    assert.match(extra.stderr, /doctor takes no arguments/);
  });
});

describe('diagnose', () => {
  const base = { nodeRange: '>=20.19', env: { PATH: process.env.PATH }, platform: 'linux' as const };

  it('tells a bubblewrap that cannot build a sandbox here apart from a missing one, with the setting that allows it', async () => {
    const failing = await diagnose({
      ...base,
      isRoot: false,
      findBubblewrap: () => '/opt/fake/bwrap',
      probeBubblewrap: async () => ({
        ok: false,
        reason:
          'bubblewrap (/opt/fake/bwrap) failed its probe run (exit code 1): bwrap: setting up uid map: Permission denied',
      }),
      readSysctl: (name) => (name === 'kernel.apparmor_restrict_unprivileged_userns' ? '1' : undefined),
    });
    const bwrap = failing.checks.find((check) => check.name === 'bwrap')!;
    assert.equal(bwrap.status, 'failing');
    assert.equal(bwrap.path, '/opt/fake/bwrap');
    assert.match(
      bwrap.detail,
      /setting up uid map: Permission denied: shell calls in read_only and workspace_write fail with SANDBOX_UNAVAILABLE/,
    );
    assert.match(bwrap.fix ?? '', /^sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0 /);
    assert.equal(failing.ok, false);

    const missing = await diagnose({ ...base, isRoot: true, findBubblewrap: () => undefined });
    const absent = missing.checks.find((check) => check.name === 'bwrap')!;
    assert.equal(absent.status, 'missing');
    assert.match(absent.detail, /^bubblewrap \(bwrap\) is not installed: /);
    if (missing.packageManager === 'apt-get') {
      assert.equal(absent.fix, 'apt-get install -y bubblewrap');
      assert.match(missing.installAll ?? '', /bubblewrap$/);
    }
    assert.equal(missing.ok, false);

    const working = await diagnose({
      ...base,
      findBubblewrap: () => '/opt/fake/bwrap',
      probeBubblewrap: async () => ({ ok: true }),
    });
    assert.equal(working.checks.find((check) => check.name === 'bwrap')!.status, 'ok');
  });

  it('fails an old Node with the way to a current one, and says a user namespace limit of zero is the cause', async () => {
    const old = await diagnose({ ...base, nodeVersion: '18.20.4', findBubblewrap: () => undefined });
    const node = old.checks[0]!;
    assert.equal(node.status, 'failing');
    assert.match(node.detail, /Node 18\.20\.4 is too old: toolhost needs >=20\.19/);
    assert.match(node.fix ?? '', /nodejs\.org/);
    const limited = await diagnose({
      ...base,
      isRoot: true,
      findBubblewrap: () => '/opt/fake/bwrap',
      probeBubblewrap: async () => ({ ok: false, reason: 'bubblewrap failed its probe run (exit code 1)' }),
      readSysctl: (name) => (name === 'user.max_user_namespaces' ? '0' : undefined),
    });
    assert.match(
      limited.checks.find((check) => check.name === 'bwrap')!.fix ?? '',
      /^sysctl -w user\.max_user_namespaces=15000 /,
    );
  });
});

describe('satisfiesMinimum', () => {
  it('compares major, minor and patch numerically', () => {
    for (const [version, range, expected] of [
      ['20.19.0', '>=20.19', true],
      ['20.20.2', '>=20.19', true],
      ['20.18.9', '>=20.19', false],
      ['22.0.0', '>=20.19', true],
      ['v20.19.1', '>=20.19.1', true],
      ['20.9.0', '>=20.19', false],
      ['20.19.0', '^20.19', false],
    ] as const) {
      assert.equal(satisfiesMinimum(version, range), expected, `${version} ${range}`);
    }
  });
});
