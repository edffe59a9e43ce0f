// Regression tests for the shell-sandbox holes of issue 15 ("The boundary holds"): each names the
// finding it pins and fails on the code before the fix.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SandboxMode } from '../src/index.js';
import { giveOwnerPermissions } from '../src/owner-permissions.js';
import { manager, processesMatching, runText, tempDir, uniqueTag, waitUntil } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * A temporary directory outside `/tmp` (the sandbox always had a private `/tmp`, so a secret there
 * proves nothing): under `/var/tmp`, or `undefined` when that is not writable here.
 */
function outsideTmp(t: TestContext, prefix: string): string | undefined {
  for (const base of ['/var/tmp']) {
    try {
      accessSync(base, constants.W_OK);
      const dir = realpathSync.native(mkdtempSync(path.join(base, prefix)));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

describe('shell sandbox holes of issue 15', () => {
  it('moves a nested .git created by a workspace_write command out of the root before the job is reported (nested protected paths, SB-13)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const stateDir = tempDir(t, 'jobs-state-');
    writeFileSync(path.join(root, 'a.txt'), 'a\n');
    const jobs = manager(t, 'workspace_write', [root], { stateDir });
    const { snapshot, text } = await runText(
      jobs,
      root,
      [
        'git init -q nested',
        "printf '#!/bin/sh\\necho hooked\\n' > nested/.git/hooks/pre-commit",
        'chmod +x nested/.git/hooks/pre-commit',
        // A gitfile pointing at a repository elsewhere in the root works as well as a directory.
        'git init -q --bare store && mkdir -p deep/er && echo "gitdir: ../../store" > deep/er/.git',
        'mkdir -p sub/.toolhost && echo x > sub/.toolhost/state',
        'echo finished',
      ].join(' && '),
    );
    assert.match(text, /finished/);
    assert.equal(snapshot.state, 'done');
    for (const leftover of ['nested/.git', 'deep/er/.git', 'sub/.toolhost']) {
      assert.equal(existsSync(path.join(root, leftover)), false, `${leftover} is gone from the root`);
      assert.ok(
        snapshot.notes.some(
          (note) => note.includes(` ${leftover},`) && note.includes('quarantine') && !note.includes(root),
        ),
        `the job says where ${leftover} went`,
      );
    }
    // What was moved is kept, not deleted: the hook is in the quarantine.
    const quarantine = path.join(stateDir, 'quarantine');
    const kept = readdirSync(quarantine);
    assert.equal(kept.length, 3);
    const hook = kept
      .map((name) => path.join(quarantine, name, 'hooks', 'pre-commit'))
      .find((candidate) => existsSync(candidate));
    assert.ok(hook && readFileSync(hook, 'utf8').includes('hooked'));
    // A git run outside the sandbox finds no repository in nested/ any more.
    assert.throws(() =>
      execFileSync('git', ['-C', path.join(root, 'nested'), 'rev-parse', '--absolute-git-dir'], {
        stdio: 'pipe',
        env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(root) },
      }),
    );
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n', 'nothing else was touched');
  });

  it('quarantines a .git made by a background job at its end and says so in the completion note (nested protected paths, SB-13)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const jobs = manager(t, 'workspace_write', [root]);
    const started = await jobs.start({
      shell: 'bash',
      command: 'git init -q bg',
      cwd: root,
      background: true,
    });
    assert.ok(started.ok);
    await jobs.wait(started.value.id);
    assert.equal(existsSync(path.join(root, 'bg', '.git')), false);
    const note = jobs.drainCompletionNotes() ?? '';
    assert.match(note, /bg\/\.git/);
    assert.match(note, /quarantine/);
  });

  it('quarantines a .git a command made in a project large enough to be watched, new directory or old (issue 25, nested protected paths, SB-13)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    // 600 directories: past the index's threshold for watching them instead of looking at each.
    for (let d = 0; d < 600; d++) mkdirSync(path.join(root, `d${d % 20}`, `e${d}`), { recursive: true });
    const jobs = manager(t, 'workspace_write', [root]);
    for (let call = 0; call < 5; call++) await runText(jobs, root, 'true');
    const { snapshot, text } = await runText(
      jobs,
      root,
      'git init -q d7/e407/old && mkdir -p d3/new/deeper && git init -q d3/new/deeper/repo && echo made',
    );
    assert.match(text, /made/);
    for (const leftover of ['d7/e407/old/.git', 'd3/new/deeper/repo/.git']) {
      assert.equal(existsSync(path.join(root, leftover)), false, `${leftover} is gone from the root`);
      assert.ok(snapshot.notes.some((note) => note.includes(` ${leftover},`) && note.includes('quarantine')));
    }
    // Later calls see the project as it is: a repository made outside is bound read-only.
    execFileSync('git', ['init', '-q', path.join(root, 'd9', 'e9', 'mine')]);
    const madeAt = Date.now();
    await waitUntil('the repository is older than the clock slack', () => Date.now() - madeAt > 200);
    await runText(jobs, root, 'true');
    const next = await runText(jobs, root, 'echo evil > d9/e9/mine/.git/hooks/pre-commit; echo done');
    assert.match(next.text, /Read-only file system/);
  });

  it('keeps the watcher barrier out of a command reach, so it cannot answer a check before the job changes are seen (barrier forged by the command, SB-17)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const stateDir = tempDir(t, 'jobs-state-');
    for (let d = 0; d < 600; d++) mkdirSync(path.join(root, `d${d % 20}`, `e${d}`), { recursive: true });
    const jobs = manager(t, 'workspace_write', [root], { stateDir });
    await runText(jobs, root, 'true');
    const barrierOf = () => readdirSync(path.join(stateDir, 'tmp')).find((name) => name.includes('.watch.'));
    await waitUntil('the watcher made its barrier directory', () => barrierOf() !== undefined);
    const barrier = path.join(stateDir, 'tmp', barrierOf()!);
    // A forged barrier event just before the job makes a .git would let a check answer early.
    const { snapshot, text } = await runText(
      jobs,
      root,
      `touch ${barrier}/0 ${barrier}/1 ${barrier}/x; echo "touch=$?"; git init -q d4/e4/late && echo made`,
    );
    assert.match(text, /touch=1/);
    assert.match(text, /made/);
    // The state directory is read-only inside the sandbox: the barrier files are out of reach (the
    // host touches them itself for its check, so their times do change).
    assert.match(text, /touch: cannot touch '[^']*\/0': Read-only file system/);
    assert.equal(existsSync(path.join(barrier, 'x')), false, 'nothing was made in the barrier directory');
    assert.equal(existsSync(path.join(root, 'd4', 'e4', 'late', '.git')), false);
    assert.ok(
      snapshot.notes.some((note) => note.includes(' d4/e4/late/.git,') && note.includes('quarantine')),
    );
  });

  it('leaves alone a .git someone made outside the sandbox that the job did not touch, and binds it read-only from then on (SB-4, SB-13)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const jobs = manager(t, 'workspace_write', [root]);
    await runText(jobs, root, 'true'); // the index is built
    execFileSync('git', ['init', '-q', path.join(root, 'mine')]);
    // Made well before the job starts (change times come from a coarse clock, so a change just before
    // a job counts as made during it).
    const madeAt = Date.now();
    await waitUntil('the repository is older than the clock slack', () => Date.now() - madeAt > 200);
    const first = await runText(jobs, root, 'echo untouched');
    assert.deepEqual(first.snapshot.notes, []);
    assert.ok(existsSync(path.join(root, 'mine', '.git', 'HEAD')), 'an untouched outside repository stays');
    // The next plans bind it read-only (a refresh after the job saw it).
    const second = await runText(jobs, root, 'echo evil > mine/.git/hooks/pre-commit; echo done');
    assert.match(second.text, /Read-only file system/);
    assert.equal(existsSync(path.join(root, 'mine', '.git', 'hooks', 'pre-commit')), false);
  });

  it('keeps a repository read-only after its directory is swapped with a sibling outside the sandbox (directory swap forgot the tree, SB-4, SB-14)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    execFileSync('git', ['init', '-q', path.join(root, 'a')]);
    mkdirSync(path.join(root, 'b'));
    const jobs = manager(t, 'workspace_write', [root]);
    await runText(jobs, root, 'true'); // the index is built, a/.git bound read-only
    // Inside the sandbox a and b cannot be renamed (a holds a mount); outside (the user, a move
    // through the host) they can. Both names stay, so the root's listing looks the same.
    renameSync(path.join(root, 'a'), path.join(root, 'swap'));
    renameSync(path.join(root, 'b'), path.join(root, 'a'));
    renameSync(path.join(root, 'swap'), path.join(root, 'b'));
    const madeAt = Date.now();
    await waitUntil('the swap is older than the clock slack', () => Date.now() - madeAt > 200);
    await runText(jobs, root, 'true'); // the check after it refreshes the index
    const next = await runText(jobs, root, 'echo evil > b/.git/hooks/pre-commit; echo done');
    assert.match(next.text, /Read-only file system/);
    assert.equal(existsSync(path.join(root, 'b', '.git', 'hooks', 'pre-commit')), false);
  });

  it('gives an unlistable directory back to its owner for the quarantine without following a link swapped in its place (quarantine chmod by path, SB-13)', (t) => {
    const root = tempDir(t, 'jobs-root-');
    const locked = path.join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o000);
    assert.ok(giveOwnerPermissions(locked), 'the directory itself is changed');
    assert.equal(statSync(locked).mode & 0o777, 0o700);
    // What a running command can put there between the check and the change: a link to a file of the
    // user's outside the root. Nothing is changed through it.
    const outside = tempDir(t, 'jobs-outside-');
    const precious = path.join(outside, 'precious');
    writeFileSync(precious, 'x');
    chmodSync(precious, 0o400);
    const link = path.join(root, 'swapped');
    symlinkSync(precious, link);
    assert.equal(giveOwnerPermissions(link), undefined);
    assert.equal(statSync(precious).mode & 0o777, 0o400, 'the file behind the link keeps its mode');
    // A link to a directory is not followed either.
    const directoryLink = path.join(root, 'swapped-directory');
    const lockedOutside = path.join(outside, 'locked');
    mkdirSync(lockedOutside, { mode: 0o500 });
    chmodSync(lockedOutside, 0o500);
    symlinkSync(lockedOutside, directoryLink);
    assert.equal(giveOwnerPermissions(directoryLink), undefined);
    assert.equal(statSync(lockedOutside).mode & 0o777, 0o500);
    chmodSync(lockedOutside, 0o700);
  });

  it('hides credential stores, the rest of the home directory and other projects from read_only commands, and keeps toolchains working (secrets outside the roots, SB-9, SB-10)', async (t) => {
    const outside = outsideTmp(t, 'jobs-outside-');
    if (!outside) return t.skip('no writable directory outside /tmp');
    const root = tempDir(t, 'jobs-root-');
    const home = path.join(outside, 'home');
    const secrets: Record<string, string> = {
      '.ssh/id_rsa': 'PRIVATE-KEY-MATERIAL',
      '.aws/credentials': 'aws_secret_access_key=AWS-SECRET',
      '.npmrc': '//registry.npmjs.org/:_authToken=NPM-TOKEN',
      '.git-credentials': 'https://user:GIT-CREDENTIAL@example.com',
      'notes.txt': 'PRIVATE-NOTES',
      '.cargo/credentials.toml': 'token = "CARGO-TOKEN"',
    };
    for (const [relative, content] of Object.entries(secrets)) {
      mkdirSync(path.dirname(path.join(home, relative)), { recursive: true });
      writeFileSync(path.join(home, relative), `${content}\n`);
    }
    mkdirSync(path.join(home, '.cargo', 'bin'), { recursive: true });
    writeFileSync(path.join(home, '.cargo', 'bin', 'tool'), 'TOOLCHAIN-FILE\n');
    const other = path.join(outside, 'other-project');
    mkdirSync(other);
    writeFileSync(path.join(other, '.env'), 'OTHER-PROJECT-SECRET\n');
    const jobs = manager(t, 'read_only', [root], {
      sandbox: { mode: 'read_only', roots: [root], home, secretPaths: ['.env'] },
    });
    const { text } = await runText(
      jobs,
      root,
      [
        ...Object.keys(secrets).map((relative) => `cat '${path.join(home, relative)}'`),
        `cat '${path.join(other, '.env')}'`,
        `cat '${path.join(home, '.cargo', 'bin', 'tool')}'`,
        `ls -A '${home}' | tr '\\n' ' '; echo`,
        'echo shadow-bytes=$(cat /etc/shadow 2>/dev/null | wc -c)',
        // Only the way to the home directory exists there: other projects are not in the view.
        `echo "outside=$(ls -A '${outside}' | tr '\\n' ' ')"`,
        'echo finished',
      ].join('; '),
    );
    assert.match(text, /finished/);
    for (const content of [...Object.values(secrets), 'OTHER-PROJECT-SECRET']) {
      assert.ok(!text.includes(content), `${content.split('-')[0]} stays hidden`);
    }
    assert.match(text, /TOOLCHAIN-FILE/, 'toolchain directories of the home directory are shown');
    assert.match(text, /shadow-bytes=0/);
    assert.match(text, /^outside=home $/m);
    // With the real home directory, the usual tools run (python lives under ~/.pyenv on this machine).
    const tools = manager(t, 'read_only', [root]);
    const versions = await runText(
      tools,
      root,
      'node -e \'console.log("node", 6 * 7)\' && python3 -c \'print("python", 6 * 7)\' && git --version && rg --version | head -1 && echo tools-ok',
    );
    assert.match(versions.text, /node 42/);
    assert.match(versions.text, /python 42/);
    assert.match(versions.text, /tools-ok/, versions.text);
  });

  it('shows a credential store only when a readable root names it (SB-9, SB-10)', async (t) => {
    const outside = outsideTmp(t, 'jobs-outside-');
    if (!outside) return t.skip('no writable directory outside /tmp');
    const root = tempDir(t, 'jobs-root-');
    const home = path.join(outside, 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'KEY-FOR-FETCH\n');
    writeFileSync(path.join(home, '.ssh', 'known_hosts'), 'KNOWN-HOSTS\n');
    mkdirSync(path.join(outside, 'data'));
    writeFileSync(path.join(outside, 'data', 'shared.txt'), 'SHARED-DATA\n');
    const command = `cat '${home}/.ssh/id_ed25519' '${home}/.ssh/known_hosts' '${outside}/data/shared.txt'; echo finished`;
    const narrow = manager(t, 'read_only', [root], {
      sandbox: {
        mode: 'read_only',
        roots: [root],
        home,
        readableRoots: [path.join(home, '.ssh', 'known_hosts'), path.join(outside, 'data'), '/nonexistent/x'],
      },
    });
    const first = await runText(narrow, root, command);
    assert.match(first.text, /KNOWN-HOSTS/);
    assert.match(first.text, /SHARED-DATA/);
    assert.ok(!first.text.includes('KEY-FOR-FETCH'));
    const wide = manager(t, 'read_only', [root], {
      sandbox: { mode: 'read_only', roots: [root], home, readableRoots: [path.join(home, '.ssh')] },
    });
    const second = await runText(wide, root, command);
    assert.match(second.text, /KEY-FOR-FETCH/);
  });

  it('makes listening unix sockets outside the roots unreachable (unix sockets, SB-11)', async (t) => {
    const outside = outsideTmp(t, 'jobs-sock-');
    if (!outside) return t.skip('no writable directory outside /tmp');
    const root = tempDir(t, 'jobs-root-');
    const readable = path.join(outside, 'readable');
    mkdirSync(readable);
    const servers: Server[] = [];
    const listen = async (socketPath: string) => {
      const server = createServer((socket) => socket.end('hello\n'));
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      servers.push(server);
    };
    t.after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));
    const sockets = {
      hidden: path.join(outside, 'docker.sock'),
      visible: path.join(readable, 'agent.sock'),
      exposed: path.join(outside, 'exposed.sock'),
      inside: path.join(root, 'project.sock'),
    };
    for (const socketPath of Object.values(sockets)) await listen(socketPath);
    const probe = (name: string, socketPath: string) =>
      `node -e "require('net').connect('${socketPath}').on('data', (d) => console.log('${name}', 'connected', String(d).trim())).on('error', (e) => console.log('${name}', 'refused', e.code))"`;
    for (const mode of ['read_only', 'workspace_write'] as SandboxMode[]) {
      const jobs = manager(t, mode, [root], {
        sandbox: { mode, roots: [root], readableRoots: [readable, sockets.exposed] },
      });
      const { text } = await runText(
        jobs,
        root,
        Object.entries(sockets)
          .map(([name, socketPath]) => probe(name, socketPath))
          .join('; '),
      );
      assert.match(text, /^hidden refused/m, `${mode}: a socket in a hidden tree`);
      assert.match(text, /^visible refused/m, `${mode}: a socket inside a readable root`);
      assert.match(text, /^exposed connected hello/m, `${mode}: a socket named as a readable root`);
      assert.match(text, /^inside connected hello/m, `${mode}: a socket inside the root`);
    }
  });

  it('refuses to run a command when listing the protected and secret paths stops at its limit (bounded walk fails closed, SB-12)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    for (let index = 0; index < 40; index++) writeFileSync(path.join(root, `file-${index}.txt`), '');
    mkdirSync(path.join(root, 'zz', 'deep'), { recursive: true });
    writeFileSync(path.join(root, 'zz', 'deep', '.env'), 'PAST-THE-LIMIT\n');
    const marker = path.join(root, 'ran');
    for (const mode of ['read_only', 'workspace_write'] as SandboxMode[]) {
      const jobs = manager(t, mode, [root], {
        sandbox: { mode, roots: [root], secretPaths: ['.env'], maxPlanEntries: 20 },
      });
      const started = await jobs.start({
        shell: 'bash',
        command: `cat zz/deep/.env; touch ${marker}`,
        cwd: root,
      });
      assert.equal(started.ok, false, mode);
      assert.equal(!started.ok && started.error.code, 'SANDBOX_PLAN_INCOMPLETE', mode);
      assert.match(!started.ok ? started.error.message : '', /limit of 20 entries/);
      assert.equal(jobs.list().length, 0, `${mode}: nothing was spawned`);
    }
    assert.equal(existsSync(marker), false);
    // With a limit the tree fits in, the command runs and the secret is covered.
    const jobs = manager(t, 'read_only', [root], {
      sandbox: { mode: 'read_only', roots: [root], secretPaths: ['.env'], maxPlanEntries: 100 },
    });
    const { text } = await runText(jobs, root, 'cat zz/deep/.env; echo finished');
    assert.match(text, /finished/);
    assert.ok(!text.includes('PAST-THE-LIMIT'));
  });

  it('leaves no setsid escapee without the job marker behind in danger_full_access (orphans, JOB-TREE-5)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const tag = uniqueTag(t);
    const jobs = manager(t, 'danger_full_access', [root]);
    const escapee = `setsid bash -c 'unset TOOLHOST_JOB_MARKER; exec sleep ${tag}' </dev/null >/dev/null 2>&1 &`;
    const foreground = await runText(jobs, root, `${escapee} sleep 0.3; echo left`);
    assert.equal(foreground.snapshot.contained, true);
    assert.match(foreground.text, /left/);
    assert.deepEqual(processesMatching(`sleep ${tag}`), [], 'the escapee ended with its job');
    const started = await jobs.start({
      shell: 'bash',
      command: `${escapee} sleep ${tag}.9`,
      cwd: root,
      background: true,
    });
    assert.ok(started.ok);
    await waitUntil('both sleepers run', () => processesMatching(`sleep ${tag}`).length === 1);
    jobs.kill(started.value.id);
    await jobs.wait(started.value.id);
    assert.deepEqual(processesMatching(`sleep ${tag}`), [], 'a kill ends the escapee too');
  });

  it('gives commands no descriptor beyond stdio, even one the host inherited (inherited descriptors, JOB-FD-1)', async (t) => {
    const root = tempDir(t, 'jobs-root-');
    const outsideFile = path.join(tempDir(t, 'jobs-fd-'), 'outside');
    writeFileSync(outsideFile, '');
    const fixture = path.join(packageDir, 'test', 'fixtures', 'descriptor-host.ts');
    // The host is started by a shell that opened fd 300 without close-on-exec, as `cmd 300>file` does.
    const child = spawn(
      'bash',
      [
        '-c',
        `exec 300>>"$OUTSIDE_FILE"; exec "$NODE" --conditions=@toolhost/source --import tsx "$FIXTURE" "$ROOT"`,
      ],
      {
        cwd: packageDir,
        env: {
          ...process.env,
          OUTSIDE_FILE: outsideFile,
          NODE: process.execPath,
          FIXTURE: fixture,
          ROOT: root,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, output);
    const results = JSON.parse(output) as Array<{ mode: string; contained: boolean; text: string }>;
    assert.deepEqual(
      results.map((result) => [result.mode, result.contained]),
      [
        ['read_only', true],
        ['workspace_write', true],
        ['danger_full_access', true],
        ['danger_full_access', false],
      ],
    );
    for (const result of results) {
      assert.match(result.text, /fds=0 1 2 3\s*$/m, `${result.mode}: only stdio (and ls's own listing)`);
      assert.match(result.text, /Bad file descriptor/, `${result.mode}: fd 300 is closed`);
    }
    assert.equal(
      readFileSync(outsideFile, 'utf8'),
      '',
      'nothing was written through the inherited descriptor',
    );
  });
});
