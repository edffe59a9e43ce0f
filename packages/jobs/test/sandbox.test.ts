import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createJobManager, type JobManager, type SandboxMode } from '../src/index.js';
import { manager, snapshotTree, tempDir, uniqueTag } from './helpers.js';

async function runText(jobs: JobManager, cwd: string, command: string) {
  const started = await jobs.start({ shell: 'bash', command, cwd });
  assert.ok(started.ok, started.ok ? '' : `${started.error.code}: ${started.error.message}`);
  const waited = await jobs.wait(started.value.id);
  assert.ok(waited.ok);
  const excerpt = jobs.output(started.value.id, { headBytes: 1 << 20, tailBytes: 1 << 20 });
  assert.ok(excerpt.ok);
  return { snapshot: waited.value.snapshot, text: excerpt.value.head + excerpt.value.tail };
}

/** A project root with ordinary files, a git directory and a nested one. */
function project(t: TestContext, withGit = true): string {
  const root = tempDir(t, 'jobs-root-');
  writeFileSync(path.join(root, 'a.txt'), 'original a\n');
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'sub', 'b.txt'), 'original b\n');
  if (withGit) {
    mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
  }
  return root;
}

/** Every way to write a file the issue names, aimed at `target` directory; `marker` ends the script. */
function writeAttempts(target: string, tag: number): string {
  return [
    `echo x > ${target}/a.txt`,
    `echo x >> ${target}/a.txt`,
    `echo x > ${target}/redirect-${tag}.txt`,
    `cp ${target}/a.txt ${target}/copy-${tag}.txt`,
    `mv ${target}/a.txt ${target}/moved-${tag}.txt`,
    `rm -f ${target}/sub/b.txt`,
    `rm -rf ${target}/sub`,
    `touch ${target}/a.txt ${target}/touched-${tag}.txt`,
    `mkdir ${target}/dir-${tag}`,
    `ln -s a.txt ${target}/link-${tag}`,
    `chmod 777 ${target}/a.txt`,
    `truncate -s 0 ${target}/a.txt`,
    `node -e "const fs=require('fs'); fs.writeFileSync('${target}/node-${tag}.txt','x')"`,
    `node -e "require('fs').unlinkSync('${target}/a.txt')"`,
    `node -e "require('fs').renameSync('${target}/sub','${target}/sub2')"`,
    `python3 -c "open('${target}/python-${tag}.txt','w').write('x')"`,
    `python3 -c "import os; os.remove('${target}/a.txt')"`,
    `python3 -c "import shutil; shutil.rmtree('${target}/sub')"`,
    'echo attempts-finished',
  ].join('; ');
}

describe('createJobManager sandbox', () => {
  it('hides a directory outside the roots (the user configuration directory with its sign-in tokens) from every sandboxed command, in read_only and workspace_write', async (t) => {
    // The sandbox shows no home and a private /tmp, so the directory lies in a readable root, where
    // the view would show it (a configuration directory under a system directory is shown the same way).
    const shown = mkdtempSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '.hidden-probe-'));
    t.after(() => rmSync(shown, { recursive: true, force: true }));
    const outside = path.join(shown, 'config');
    mkdirSync(path.join(outside, 'mcp-oauth'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(outside, 'mcp-oauth', 'entry.json'), 'token-text-never-read\n', { mode: 0o600 });
    const script = [
      `cat ${outside}/mcp-oauth/entry.json`,
      `ls -a ${outside} | tr '\\n' ' '; echo listed`,
      `echo x > ${outside}/planted.txt`,
      'echo finished',
    ].join('; ');
    for (const mode of ['read_only', 'workspace_write'] as const) {
      const root = project(t);
      const jobs = manager(t, mode, [root], {
        sandbox: {
          mode,
          roots: [root],
          readableRoots: [shown],
          hiddenDirectories: [outside, path.join(outside, 'mcp-oauth')],
        },
      });
      const { text } = await runText(jobs, root, script);
      assert.match(text, /finished/, `${mode}: the script ran`);
      assert.ok(!text.includes('token-text-never-read'), `${mode}: the token file is not readable`);
      assert.match(text, /^\. \.\. listed$/m, `${mode}: the directory lists empty`);
      assert.ok(!existsSync(path.join(outside, 'planted.txt')), `${mode}: nothing is written there`);
      // Without the setting the same directory is readable (the readable root shows it).
      const visible = project(t);
      const open = manager(t, mode, [visible], {
        sandbox: { mode, roots: [visible], readableRoots: [shown] },
      });
      const seen = await runText(open, visible, `cat ${outside}/mcp-oauth/entry.json`);
      assert.match(seen.text, /token-text-never-read/, `${mode}: the probe itself works`);
    }
  });

  it('changes nothing anywhere in read_only, whatever tool writes (SB-2)', async (t) => {
    const root = project(t);
    const outside = project(t);
    const tag = uniqueTag(t);
    const homeProbe = path.join(os.homedir(), `.toolhost-sandbox-probe-${tag}`);
    const tmpProbe = path.join(os.tmpdir(), `toolhost-sandbox-probe-${tag}`);
    const before = { root: snapshotTree(root), outside: snapshotTree(outside) };
    const jobs = manager(t, 'read_only', [root]);
    const { text } = await runText(
      jobs,
      root,
      [
        writeAttempts(root, tag),
        writeAttempts(outside, tag),
        `echo x > ${homeProbe}`,
        `echo private > ${tmpProbe} && cat ${tmpProbe}`,
        'echo all-finished',
      ].join('; '),
    );
    assert.match(text, /attempts-finished[\s\S]*attempts-finished[\s\S]*all-finished/, 'every attempt ran');
    assert.match(text, /Read-only file system/);
    assert.match(text, /EROFS/, 'node and python were refused by the kernel');
    assert.match(text, /^private$/m, 'the private /tmp is writable');
    assert.deepEqual(snapshotTree(root), before.root);
    assert.deepEqual(snapshotTree(outside), before.outside);
    assert.equal(existsSync(homeProbe), false);
    assert.equal(existsSync(tmpProbe), false, "the sandbox's /tmp is not the host's");
  });

  it('lets workspace_write write inside the root and nowhere else (SB-3)', async (t) => {
    const root = project(t);
    const outside = project(t);
    const tag = uniqueTag(t);
    const beforeOutside = snapshotTree(outside);
    const jobs = manager(t, 'workspace_write', [root]);
    const { text, snapshot } = await runText(
      jobs,
      path.join(root, 'sub'),
      `${[
        'echo inside > written.txt',
        'mkdir -p ../made/deeper && mv written.txt ../made/deeper/',
        "node -e \"require('fs').writeFileSync('../node.txt', 'n')\"",
        "python3 -c \"open('../python.txt', 'w').write('p')\"",
        'rm ../a.txt',
        writeAttempts(outside, tag),
      ].join(' && ')}; echo done`,
    );
    assert.equal(snapshot.sandbox, 'workspace_write');
    assert.match(text, /attempts-finished/);
    assert.equal(readFileSync(path.join(root, 'made', 'deeper', 'written.txt'), 'utf8'), 'inside\n');
    assert.equal(readFileSync(path.join(root, 'node.txt'), 'utf8'), 'n');
    assert.equal(readFileSync(path.join(root, 'python.txt'), 'utf8'), 'p');
    assert.equal(existsSync(path.join(root, 'a.txt')), false);
    assert.deepEqual(snapshotTree(outside), beforeOutside);
  });

  it('keeps an existing .git read-only in workspace_write, against every trick (SB-4)', async (t) => {
    const root = project(t);
    mkdirSync(path.join(root, 'vendor', 'lib', '.git'), { recursive: true });
    writeFileSync(path.join(root, 'vendor', 'lib', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const gitBefore = snapshotTree(path.join(root, '.git'));
    const nestedBefore = snapshotTree(path.join(root, 'vendor'));
    const jobs = manager(t, 'workspace_write', [root]);
    const { text } = await runText(
      jobs,
      root,
      [
        'echo evil > .git/config',
        'echo "#!/bin/sh" > .git/hooks/pre-commit',
        'git config user.name evil',
        'rm -rf .git',
        'mv .git moved-git',
        'mv vendor vendor2',
        'mv vendor/lib vendor/lib2',
        'echo evil > vendor/lib/.git/HEAD',
        'rm -rf vendor/lib/.git',
        "python3 -c \"open('.git/config','a').write('evil')\"",
        "node -e \"require('fs').rmSync('.git', {recursive: true})\"",
        'echo finished',
      ].join('; '),
    );
    assert.match(text, /finished/);
    assert.deepEqual(snapshotTree(path.join(root, '.git')), gitBefore);
    assert.deepEqual(snapshotTree(path.join(root, 'vendor')), nestedBefore);
    assert.equal(existsSync(path.join(root, 'moved-git')), false);
    assert.equal(
      existsSync(path.join(root, 'vendor2')),
      false,
      'a parent of a protected path cannot be renamed away',
    );
  });

  it('does not let workspace_write create a protected path that does not exist yet (SB-4)', async (t) => {
    const root = project(t, false);
    const jobs = manager(t, 'workspace_write', [root], {
      sandbox: { mode: 'workspace_write', roots: [root], protectedPaths: ['/config/', '/deploy.key'] },
    });
    const { text } = await runText(
      jobs,
      root,
      [
        'git init -q .',
        'mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit',
        'rm -rf .git; echo "gitdir: /tmp/elsewhere" > .git',
        'mkdir .toolhost/x',
        'mkdir -p config && echo evil > config/app.json',
        'echo evil > deploy.key',
        'python3 -c "import os; os.makedirs(\'.git/refs\', exist_ok=True)"',
        'mkdir elsewhere && mv elsewhere .git',
        'ls -A',
        'echo finished',
      ].join('; '),
    );
    assert.match(text, /finished/);
    assert.match(text, /^\.git$/m, 'inside, .git is an empty placeholder');
    await jobs.close();
    const names = readdirSync(root).sort();
    assert.deepEqual(names, ['a.txt', 'elsewhere', 'sub'], 'placeholders are gone and nothing was created');
  });

  it('re-binds configured protected patterns read-only and hides secrets (SB-4, SB-5)', async (t) => {
    const root = project(t);
    writeFileSync(path.join(root, 'yarn.lock'), 'lock v1\n');
    mkdirSync(path.join(root, 'pkg'));
    writeFileSync(path.join(root, 'pkg', 'yarn.lock'), 'nested lock\n');
    writeFileSync(path.join(root, '.env'), 'API_KEY=super-secret-value\n');
    mkdirSync(path.join(root, 'keys'));
    writeFileSync(path.join(root, 'keys', 'id_rsa'), 'PRIVATE KEY MATERIAL\n');
    const jobs = manager(t, 'workspace_write', [root], {
      sandbox: {
        mode: 'workspace_write',
        roots: [root],
        protectedPaths: ['*.lock'],
        secretPaths: ['.env', 'keys/'],
      },
    });
    const { text } = await runText(
      jobs,
      root,
      [
        'echo evil > yarn.lock',
        'echo evil > pkg/yarn.lock',
        'cat .env',
        'cat keys/id_rsa',
        'ls keys | wc -l',
        'echo evil > .env',
        'echo ok > free.txt',
        'echo finished',
      ].join('; '),
    );
    assert.match(text, /finished/);
    assert.ok(!text.includes('super-secret-value'));
    assert.ok(!text.includes('PRIVATE KEY MATERIAL'));
    assert.equal(readFileSync(path.join(root, 'yarn.lock'), 'utf8'), 'lock v1\n');
    assert.equal(readFileSync(path.join(root, 'pkg', 'yarn.lock'), 'utf8'), 'nested lock\n');
    assert.equal(readFileSync(path.join(root, '.env'), 'utf8'), 'API_KEY=super-secret-value\n');
    assert.equal(readFileSync(path.join(root, 'free.txt'), 'utf8'), 'ok\n');
  });

  it('hides secrets in read_only too (SB-5)', async (t) => {
    const root = project(t);
    writeFileSync(path.join(root, '.env'), 'TOKEN=read-only-secret\n');
    writeFileSync(path.join(root, 'visible.txt'), 'public\n');
    const jobs = manager(t, 'read_only', [root], {
      sandbox: { mode: 'read_only', roots: [root], secretPaths: ['.env'] },
    });
    const { text } = await runText(jobs, root, 'cat .env; cat visible.txt; ls -a | grep -c "^.env$"');
    assert.ok(!text.includes('read-only-secret'));
    assert.match(text, /^public$/m);
    assert.match(text, /^1$/m, 'the name stays, the content is gone');
    assert.deepEqual(
      readdirSync(root).sort(),
      ['.env', '.git', 'a.txt', 'sub', 'visible.txt'],
      'no placeholders in read_only',
    );
  });

  it('keeps the state directory read-only inside the sandbox (SB-7)', async (t) => {
    const root = project(t);
    const stateDir = path.join(root, '.toolhost', 'jobs');
    const jobs = manager(t, 'workspace_write', [root], { stateDir });
    const first = await runText(jobs, root, 'echo first');
    const { text } = await runText(
      jobs,
      root,
      `cat ${first.snapshot.logPath}; echo evil > ${first.snapshot.logPath}; rm -rf ${stateDir}/live; echo finished`,
    );
    assert.match(text, /^first$/m, 'logs are readable from the sandbox');
    assert.match(text, /finished/);
    assert.equal(readFileSync(first.snapshot.logPath, 'utf8'), 'first\n');
    assert.ok(existsSync(path.join(stateDir, 'live')));
  });

  it('blocks the network in read_only and workspace_write, and allows it when configured (SB-2, SB-3)', async (t) => {
    const connections: string[] = [];
    const server: Server = createServer((socket) => {
      connections.push('connected');
      socket.end('hello from host\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const root = project(t);
    const attempts = [
      `timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3' || echo bash-refused`,
      `node -e "require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log('node-refused', e.code))"`,
      `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), 3); print(s.recv(100).decode())" 2>/dev/null || echo python-refused`,
      'echo finished',
    ].join('; ');
    for (const mode of ['read_only', 'workspace_write'] as SandboxMode[]) {
      const jobs = manager(t, mode, [root]);
      const { text } = await runText(jobs, root, attempts);
      assert.match(text, /bash-refused[\s\S]*node-refused[\s\S]*python-refused[\s\S]*finished/, mode);
      assert.ok(!text.includes('hello from host'), mode);
    }
    assert.deepEqual(connections, [], 'the host listener saw no connection');
    const open = manager(t, 'workspace_write', [root], {
      sandbox: { mode: 'workspace_write', roots: [root], network: true },
    });
    const { text } = await runText(open, root, attempts);
    assert.equal(text.split('hello from host').length - 1, 3, 'with network: true all three connect');
  });

  it('fails closed with SANDBOX_UNAVAILABLE and spawns nothing when bubblewrap does not work (SB-1)', async (t) => {
    const root = project(t);
    const bin = tempDir(t, 'jobs-fake-bwrap-');
    const broken = path.join(bin, 'broken-bwrap');
    const counter = path.join(bin, 'runs');
    writeFileSync(
      broken,
      `#!/bin/sh\necho run >> ${counter}\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n`,
    );
    // A "bubblewrap" that runs the command without any sandbox: only a real probe catches it.
    const fake = path.join(bin, 'fake-bwrap');
    writeFileSync(fake, '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n');
    chmodSync(broken, 0o755);
    chmodSync(fake, 0o755);
    const marker = path.join(root, 'spawned');
    const cases: Array<[string, string | undefined, NodeJS.Platform | undefined, RegExp]> = [
      ['broken', broken, undefined, /No permissions to create new namespace/],
      ['fake', fake, undefined, /failed its probe run/],
      ['missing', path.join(bin, 'absent'), undefined, /failed its probe run|not installed/],
      ['windows', undefined, 'win32', /no OS sandbox is available on win32/],
    ];
    for (const [name, bubblewrapPath, platform, reason] of cases) {
      for (const mode of ['read_only', 'workspace_write'] as const) {
        const jobs = createJobManager({
          sandbox: {
            mode,
            roots: [root],
            ...(bubblewrapPath ? { bubblewrapPath } : {}),
            ...(platform ? { platform } : {}),
          },
        });
        t.after(() => jobs.close());
        for (let attempt = 0; attempt < 2; attempt++) {
          const started = await jobs.start({ shell: 'bash', command: `touch ${marker}`, cwd: root });
          assert.equal(started.ok, false, name);
          assert.equal(!started.ok && started.error.code, 'SANDBOX_UNAVAILABLE', name);
          assert.match(!started.ok ? started.error.message : '', reason, name);
        }
        assert.equal(jobs.list().length, 0);
      }
    }
    assert.equal(existsSync(marker), false, 'nothing was spawned');
    assert.equal(readFileSync(counter, 'utf8'), 'run\n', 'the probe ran once and its result was cached');
    const danger = manager(t, 'danger_full_access', [root], {
      sandbox: { mode: 'danger_full_access', roots: [root], bubblewrapPath: broken },
    });
    const { snapshot } = await runText(danger, root, `touch ${marker}`);
    assert.equal(snapshot.state, 'done', 'danger_full_access runs the plain shell');
    assert.equal(existsSync(marker), true);
  });

  it('runs commands without privileges, in their own namespaces (SB-6)', async (t) => {
    const root = project(t);
    const jobs = manager(t, 'read_only', [root]);
    const { text } = await runText(
      jobs,
      root,
      [
        "grep -E '^CapEff' /proc/self/status",
        'unshare -U true 2>/dev/null && echo userns-allowed || echo userns-refused',
        'mount -t tmpfs none /tmp 2>/dev/null && echo mount-allowed || echo mount-refused',
        'echo pid=$$',
        'ps -e --no-headers | wc -l',
      ].join('; '),
    );
    assert.match(text, /^CapEff:\s+0+$/m);
    assert.match(text, /userns-refused/);
    assert.match(text, /mount-refused/);
    assert.match(text, /^pid=\d$/m, 'the shell lives in a fresh pid namespace');
    const processCount = Number(text.trim().split('\n').at(-1));
    assert.ok(processCount < 10, 'host processes are invisible');
  });
});
