import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createJobEnvironment, type JobManager, normalizeSandboxOptions } from '../src/index.js';
import { buildBubblewrapArguments } from '../src/bubblewrap.js';
import { planHostView } from '../src/host-view.js';
import { buildSeatbeltProfile } from '../src/seatbelt.js';
import { manager, tempDir } from './helpers.js';

const linux = process.platform === 'linux';

async function runText(jobs: JobManager, cwd: string, command: string) {
  const started = await jobs.start({ shell: 'bash', command, cwd });
  assert.ok(started.ok, started.ok ? '' : `${started.error.code}: ${started.error.message}`);
  const waited = await jobs.wait(started.value.id);
  assert.ok(waited.ok);
  const excerpt = jobs.output(started.value.id, { headBytes: 1 << 20, tailBytes: 1 << 20 });
  assert.ok(excerpt.ok);
  return { snapshot: waited.value.snapshot, text: excerpt.value.head + excerpt.value.tail };
}

/** The manager's private /tmp directories on the host (`<stateDir>/tmp/*`). */
function tmpDirectories(jobs: JobManager): string[] {
  const parent = path.join(jobs.stateDir, 'tmp');
  return existsSync(parent) ? readdirSync(parent).map((name) => path.join(parent, name)) : [];
}

describe('a private /tmp per manager (SB-16)', { skip: !linux && 'bubblewrap (Linux)' }, () => {
  it('issue 20: /tmp was a new tmpfs per command; with persistentTmp a file written to /tmp by one command is read by the next, and close removes it', async (t) => {
    const root = tempDir(t);
    // read_only: /tmp is the only writable place, and it is kept all the same.
    const jobs = manager(t, 'read_only', [root], { sandbox: { persistentTmp: true } });
    const first = await runText(
      jobs,
      root,
      'echo kept-across-commands > /tmp/note && mkdir /tmp/locked && touch /tmp/locked/inside && chmod 000 /tmp/locked && echo wrote',
    );
    assert.equal(first.snapshot.exitCode, 0, first.text);
    const second = await runText(jobs, root, 'cat /tmp/note');
    assert.equal(second.snapshot.exitCode, 0, second.text);
    assert.match(second.text, /kept-across-commands/);
    const [directory, ...others] = tmpDirectories(jobs);
    assert.ok(directory, 'the private /tmp lives under the state directory');
    assert.deepEqual(others, []);
    assert.equal(statSync(directory).mode & 0o777, 0o700);
    await jobs.close();
    assert.equal(
      existsSync(directory),
      false,
      'close removes the private /tmp, a mode-000 directory included',
    );
  });

  it('never shares the private /tmp between managers', async (t) => {
    const root = tempDir(t);
    const one = manager(t, 'workspace_write', [root], { sandbox: { persistentTmp: true } });
    const other = manager(t, 'workspace_write', [root], { sandbox: { persistentTmp: true } });
    assert.equal((await runText(one, root, 'echo mine > /tmp/only-one')).snapshot.exitCode, 0);
    const read = await runText(other, root, 'ls -A /tmp; cat /tmp/only-one');
    assert.notEqual(read.snapshot.exitCode, 0, read.text);
    assert.doesNotMatch(read.text, /mine/);
  });

  it('keeps a new, empty /tmp per command without persistentTmp (wave-1 behaviour)', async (t) => {
    const root = tempDir(t);
    const jobs = manager(t, 'workspace_write', [root]);
    assert.equal((await runText(jobs, root, 'echo gone > /tmp/note')).snapshot.exitCode, 0);
    const read = await runText(jobs, root, 'cat /tmp/note');
    assert.notEqual(read.snapshot.exitCode, 0, read.text);
    assert.deepEqual(tmpDirectories(jobs), []);
  });
});

describe('writable roots (SB-15)', () => {
  it('lets workspace_write write a writable root, shows it read-only in read_only, and keeps its own .git read-only', {
    skip: !linux && 'bubblewrap (Linux)',
  }, async (t) => {
    const root = tempDir(t);
    const cache = tempDir(t, 'jobs-cache-');
    mkdirSync(path.join(cache, '.git'));
    writeFileSync(path.join(cache, '.git', 'config'), '[core]\n');
    const writing = manager(t, 'workspace_write', [root], { sandbox: { writableRoots: [cache] } });
    const wrote = await runText(writing, root, `echo built > ${cache}/artifact && echo ok`);
    assert.equal(wrote.snapshot.exitCode, 0, wrote.text);
    const hooked = await runText(writing, root, `echo x >> ${cache}/.git/config`);
    assert.notEqual(hooked.snapshot.exitCode, 0, 'the writable root’s .git stays read-only');
    const sibling = path.join(path.dirname(cache), `next-to-cache-${process.pid}`);
    t.after(() => rmSync(sibling, { force: true }));
    await runText(writing, root, `echo x > ${sibling}`);
    assert.equal(existsSync(sibling), false, 'only the writable root itself is writable on the host');

    const reading = manager(t, 'read_only', [root], { sandbox: { writableRoots: [cache] } });
    const read = await runText(reading, root, `cat ${cache}/artifact; echo y > ${cache}/other`);
    assert.match(read.text, /built/);
    assert.notEqual(read.snapshot.exitCode, 0, 'read_only writes nothing, writable roots included');
    assert.equal(existsSync(path.join(cache, 'other')), false);
  });

  it('issue 20: a readable or writable root under the host’s /tmp was hidden by the sandbox’s /tmp; it is bound on top of it', {
    skip: !linux && 'bubblewrap (Linux)',
  }, async (t) => {
    const root = tempDir(t);
    const readable = tempDir(t, 'jobs-readable-');
    writeFileSync(path.join(readable, 'shown.txt'), 'visible-readable-root\n');
    const cache = tempDir(t, 'jobs-cache-');
    const jobs = manager(t, 'workspace_write', [root], {
      sandbox: { readableRoots: [readable], writableRoots: [cache], persistentTmp: true },
    });
    const result = await runText(
      jobs,
      root,
      `cat ${readable}/shown.txt && echo on-host > ${cache}/made && echo ok`,
    );
    assert.equal(result.snapshot.exitCode, 0, result.text);
    assert.match(result.text, /visible-readable-root/);
    assert.equal(readFileSync(path.join(cache, 'made'), 'utf8'), 'on-host\n');
  });

  it('keeps the credential stores inside a writable root covered', {
    skip: !linux && 'bubblewrap (Linux)',
  }, async (t) => {
    const root = tempDir(t);
    const home = tempDir(t, 'jobs-home-');
    mkdirSync(path.join(home, '.cache', 'huggingface'), { recursive: true });
    writeFileSync(path.join(home, '.cache', 'huggingface', 'token'), 'hf_secret_token_value\n');
    const jobs = manager(t, 'workspace_write', [root], {
      sandbox: { home, writableRoots: [path.join(home, '.cache')] },
    });
    const result = await runText(
      jobs,
      root,
      `echo cached > ${home}/.cache/pip-cache && cat ${home}/.cache/huggingface/token; echo stolen > ${home}/.cache/huggingface/token; echo done`,
    );
    assert.match(result.text, /done/);
    assert.doesNotMatch(result.text, /hf_secret_token_value/);
    assert.equal(existsSync(path.join(home, '.cache', 'pip-cache')), true);
  });

  it('refuses a writable root that is /, the home directory or above it, holds a root or lies in a credential store', (t) => {
    const home = tempDir(t, 'jobs-home-');
    const root = path.join(home, 'project');
    mkdirSync(path.join(root), { recursive: true });
    mkdirSync(path.join(home, '.ssh'));
    const refused = (writableRoots: string[], pattern: RegExp) =>
      assert.throws(
        () => normalizeSandboxOptions({ mode: 'workspace_write', roots: [root], home, writableRoots }),
        (error: unknown) => error instanceof TypeError && pattern.test(error.message),
      );
    refused(['/'], /writableRoots\[0\] is the file system root/);
    refused(['/usr', home], /writableRoots\[1\] is the home directory or contains it/);
    refused([path.dirname(home)], /writableRoots\[0\] is the home directory or contains it/);
    refused(['relative/cache'], /writableRoots\[0\] must be an absolute path/);
    refused([path.join(home, '.ssh')], /writableRoots\[0\] lies inside a credential store/);
    const outsideHome = tempDir(t, 'jobs-outer-');
    const nestedRoot = path.join(outsideHome, 'repo');
    mkdirSync(nestedRoot);
    assert.throws(
      () =>
        normalizeSandboxOptions({
          mode: 'workspace_write',
          roots: [nestedRoot],
          home,
          writableRoots: [outsideHome],
        }),
      /writableRoots\[0\] contains a root/,
    );
  });

  it('refuses a writable root that holds the state directory', (t) => {
    const root = tempDir(t);
    const outer = tempDir(t, 'jobs-outer-');
    assert.throws(
      () =>
        manager(t, 'workspace_write', [root], {
          stateDir: path.join(outer, 'state'),
          sandbox: { writableRoots: [outer] },
        }),
      /writableRoots\[0\] contains the state directory/,
    );
  });

  it('leaves out writable roots inside a root (writable already) and missing ones', (t) => {
    const root = tempDir(t);
    mkdirSync(path.join(root, 'build'));
    const cache = tempDir(t, 'jobs-cache-');
    const settings = normalizeSandboxOptions({
      mode: 'workspace_write',
      roots: [root],
      writableRoots: [path.join(root, 'build'), path.join(cache, 'missing'), cache, cache],
    });
    assert.deepEqual(settings.writableRoots, [cache]);
  });
});

describe('sandbox settings in the generated layouts', () => {
  it('binds a writable root writable in workspace_write only, after the readable roots around it', (t) => {
    const outer = tempDir(t, 'jobs-readable-');
    const inner = path.join(outer, 'cache');
    mkdirSync(inner);
    const writable = planHostView({
      home: undefined,
      readableRoots: [outer],
      roots: [],
      writableRoots: [inner],
      writable: true,
    });
    const binds = writable.mounts.filter((mount) => mount.kind === 'bind' || mount.kind === 'ro-bind');
    assert.deepEqual(binds.slice(-2), [
      { kind: 'ro-bind', source: outer, path: outer },
      { kind: 'bind', source: inner, path: inner },
    ]);
    assert.ok(writable.visibleTrees.includes(inner));
    assert.ok(!writable.exposed.includes(inner), 'a writable root exposes no credential store');
    const readOnly = planHostView({ home: undefined, readableRoots: [], roots: [], writableRoots: [inner] });
    assert.ok(readOnly.mounts.some((mount) => mount.kind === 'ro-bind' && mount.path === inner));
    assert.ok(!readOnly.mounts.some((mount) => mount.kind === 'bind'));
  });

  it('binds the private /tmp in place of a tmpfs', () => {
    const hostView = { mounts: [], hiddenFiles: [], hiddenDirectories: [], exposed: [] };
    const base = {
      mode: 'read_only' as const,
      hostView,
      roots: [],
      network: false,
      stateDir: '/s',
      cwd: '/',
    };
    const fresh = buildBubblewrapArguments(base);
    assert.deepEqual(fresh.slice(fresh.indexOf('--tmpfs'), fresh.indexOf('--tmpfs') + 2), [
      '--tmpfs',
      '/tmp',
    ]);
    const kept = buildBubblewrapArguments({ ...base, tmpDir: '/s/tmp/h1.abc' });
    assert.ok(!kept.includes('--tmpfs'));
    const bind = kept.indexOf('/s/tmp/h1.abc');
    assert.deepEqual(kept.slice(bind - 1, bind + 2), ['--bind', '/s/tmp/h1.abc', '/tmp']);
  });

  it('lets Seatbelt write the writable roots in workspace_write, never their .git, and the private temporary directory last', () => {
    const layout = {
      roots: ['/Users/me/repo'],
      writableRoots: ['/Users/me/Library/Caches/go-build'],
      protectedPaths: [],
      secretPaths: ['/.toolhost/**'],
      network: false,
      tempDir: '/Users/me/repo/.toolhost/sessions/s/jobs/tmp/h1.x',
      stateDir: '/Users/me/repo/.toolhost/sessions/s/jobs',
    };
    const profile = buildSeatbeltProfile({ ...layout, mode: 'workspace_write' });
    assert.match(
      profile,
      /\(allow file-write\* \(subpath "\/Users\/me\/repo"\) \(subpath "\/Users\/me\/Library\/Caches\/go-build"\)\)/,
    );
    assert.match(profile, /\(deny file-write\* [^\n]*"\/Users\/me\/Library\/Caches\/go-build\/\.git"/);
    const lines = profile.trim().split('\n');
    assert.equal(
      lines.at(-1),
      `(allow file-read* file-write* (literal "${layout.tempDir}") (subpath "${layout.tempDir}"))`,
      'the temporary directory inside the state directory stays usable (the last matching rule wins)',
    );
    const readOnly = buildSeatbeltProfile({ ...layout, mode: 'read_only' });
    assert.doesNotMatch(readOnly, /go-build"\)\)/);
  });
});

describe('environment inheritance (JOB-ENV-4)', () => {
  const host = {
    PATH: '/bin',
    HOME: '/home/me',
    GOPATH: '/home/me/go',
    JAVA_HOME: '/usr/lib/jvm/x',
    API_TOKEN: 'token-value',
    NPM_CONFIG_AUTH: 'npm-auth-value',
    NPM_CONFIG_REGISTRY: 'https://registry.example',
    LC_ALL: 'en_US.UTF-8',
  };

  it('issue 20: the scrub had no pass-through; inherit "all" passes every name that does not look like a secret', () => {
    const environment = createJobEnvironment(host, { inherit: 'all' });
    assert.equal(environment.GOPATH, '/home/me/go');
    assert.equal(environment.JAVA_HOME, '/usr/lib/jvm/x');
    assert.equal(environment.API_TOKEN, undefined);
    assert.equal(environment.NPM_CONFIG_AUTH, undefined);
  });

  it('passes a secret-looking name only when named exactly, never through a prefix', () => {
    const environment = createJobEnvironment(host, { pass: ['GOPATH', 'NPM_CONFIG_*', 'API_*'] });
    assert.equal(environment.GOPATH, '/home/me/go');
    assert.equal(environment.NPM_CONFIG_REGISTRY, 'https://registry.example');
    assert.equal(environment.NPM_CONFIG_AUTH, undefined);
    assert.equal(environment.API_TOKEN, undefined);
    assert.equal(createJobEnvironment(host, { pass: ['API_TOKEN'] }).API_TOKEN, 'token-value');
  });

  it('starts from nothing with inherit "none", keeps the forced settings, and lets exclude win over everything but set', () => {
    const none = createJobEnvironment(host, { inherit: 'none', pass: ['GOPATH'] });
    assert.equal(none.PATH, undefined);
    assert.equal(none.HOME, undefined);
    assert.equal(none.GOPATH, '/home/me/go');
    assert.equal(none.CI, '1');
    assert.equal(none.LANG, 'C.UTF-8');
    const excluded = createJobEnvironment(host, {
      inherit: 'all',
      pass: ['API_TOKEN', 'GOPATH'],
      exclude: ['GOPATH', 'API_*', 'LC_*'],
      set: { GOPATH: '/set/by/config' },
    });
    assert.equal(excluded.API_TOKEN, undefined);
    assert.equal(excluded.LC_ALL, undefined);
    assert.equal(excluded.GOPATH, '/set/by/config');
    assert.throws(() => createJobEnvironment(host, { inherit: 'everything' as never }), TypeError);
  });
});
