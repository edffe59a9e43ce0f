import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  configDigest,
  createHost,
  type Host,
  type HostConfigInput,
  type HostOptions,
  writeProjectTrust,
} from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

// Real commands in the bubblewrap sandbox (Linux), real loopback HTTP, real host environment.
const linux = process.platform === 'linux';
const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

let root: { dir: string; cleanup: () => void };
let userDir: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, userConfigDir: userDir.dir, config: false, ...options });
  hosts.push(created);
  return created;
}

/** A host that reads the project's own toolhost.config.json (untrusted unless approved). */
async function projectHost(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, userConfigDir: userDir.dir, ...options });
  hosts.push(created);
  return created;
}

async function bash(h: Host, command: string) {
  return h.dispatch({ name: 'bash', arguments: { command, timeout_ms: 60_000 } });
}

beforeEach(() => {
  root = tempRoot();
  userDir = tempRoot('toolhost-user-config-');
  outside = tempRoot('toolhost-outside-');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
  userDir.cleanup();
  outside.cleanup();
});

/** A loopback HTTP server of the test's own, answering every request with `body`. */
async function loopbackServer(body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, server };
}

/** A command that fetches `url` and prints the body: curl, or a node one-liner where curl is missing. */
function fetchCommand(url: string): string {
  return hasCurl
    ? `curl -sS --max-time 15 ${url}`
    : `node -e "fetch('${url}').then(r => r.text()).then(t => console.log(t), e => { console.error(String(e)); process.exit(1); })"`;
}

describe('sandbox.network', { skip: !linux && 'bubblewrap (Linux)' }, () => {
  it('issue 20: the shell had no network in workspace_write and no setting for it; with sandbox.network: true a fetch of a loopback server of the test works, and without it fails', async (t) => {
    const { url, server } = await loopbackServer('hello-from-the-test-server');
    t.after(() => server.close());
    const withNetwork = await host({ sandbox: 'workspace_write', config: { sandbox: { network: true } } });
    const reached = await bash(withNetwork, fetchCommand(url));
    assert.equal(reached.status, 'ok', reached.output);
    assert.match(reached.output, /hello-from-the-test-server/);

    const without = await host({ sandbox: 'workspace_write' });
    const refused = await bash(without, fetchCommand(url));
    assert.equal(refused.status, 'error');
    assert.doesNotMatch(refused.output, /hello-from-the-test-server/);
  });

  it('never gives read_only the network, and lets the network option (--network) win over the configuration', async (t) => {
    const { url, server } = await loopbackServer('hello-again');
    t.after(() => server.close());
    const readOnly = await host({ sandbox: 'read_only', config: { sandbox: { network: true } } });
    assert.equal((await bash(readOnly, fetchCommand(url))).status, 'error');
    const byOption = await host({ sandbox: 'workspace_write', network: true });
    assert.match((await bash(byOption, fetchCommand(url))).output, /hello-again/);
    const optionOff = await host({
      sandbox: 'workspace_write',
      network: false,
      config: { sandbox: { network: true } },
    });
    assert.equal((await bash(optionOff, fetchCommand(url))).status, 'error');
    assert.deepEqual(byOption.defaultSession().effectiveAnnotations('bash')?.openWorld, true);
    assert.deepEqual(optionOff.defaultSession().effectiveAnnotations('bash')?.openWorld, false);
  });
});

describe('shellEnvironment', { skip: !linux && 'bubblewrap (Linux)' }, () => {
  const saved: Record<string, string | undefined> = {};
  const hostVariables = {
    GOPATH: '/opt/gopath-for-the-test',
    API_TOKEN: 'api-token-value-never-shown',
    TOOLHOST_TEST_PLAIN: 'plain-value',
  };
  beforeEach(() => {
    for (const [name, value] of Object.entries(hostVariables)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('issue 20: the environment scrub had no pass-through; shellEnvironment.include ["GOPATH"] passes GOPATH while the host’s API_TOKEN stays hidden', async () => {
    const before = await host();
    const scrubbed = await bash(before, 'env');
    assert.doesNotMatch(scrubbed.output, /GOPATH=/, 'the allowlist alone drops GOPATH');
    const h = await host({ config: { shellEnvironment: { include: ['GOPATH'] } } });
    const result = await bash(h, 'env');
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /^GOPATH=\/opt\/gopath-for-the-test$/m);
    assert.doesNotMatch(result.output, /api-token-value-never-shown/);
    assert.doesNotMatch(result.output, /TOOLHOST_TEST_PLAIN/);
  });

  it('passes a secret-looking name only when include names it exactly; inherit "all" passes the rest, exclude wins, set is never logged', async () => {
    const audit = auditSink();
    const h = await host({
      onAudit: audit.onAudit,
      auditFile: true,
      config: {
        shellEnvironment: {
          inherit: 'all',
          include: ['API_*'],
          exclude: ['GOPATH'],
          set: { FROM_CONFIG: 'set-value-never-logged' },
        },
      },
    });
    const result = await bash(h, 'env');
    assert.match(result.output, /^TOOLHOST_TEST_PLAIN=plain-value$/m);
    assert.match(result.output, /^FROM_CONFIG=set-value-never-logged$/m);
    assert.doesNotMatch(result.output, /api-token-value-never-shown/, 'a prefix never passes a secret');
    assert.doesNotMatch(result.output, /GOPATH=/);
    const exact = await host({ config: { shellEnvironment: { include: ['API_TOKEN'] } } });
    assert.match((await bash(exact, 'env')).output, /^API_TOKEN=api-token-value-never-shown$/m);
    await h.close();
    assert.ok(!JSON.stringify(audit.events).includes('set-value-never-logged'));
    const logged = readFileSync(join(h.stateDir, 'audit.jsonl'), 'utf8');
    assert.ok(logged.length > 0);
    assert.ok(!logged.includes('set-value-never-logged'));
  });
});

describe('a private /tmp per session', { skip: !linux && 'bubblewrap (Linux)' }, () => {
  it('issue 20: /tmp was a new tmpfs per command; a file written to /tmp by one call is read by the next in the same session and gone in a new session', async () => {
    const h = await host({ sandbox: 'read_only' });
    const wrote = await bash(h, 'echo kept-for-the-session > /tmp/note.txt');
    assert.equal(wrote.status, 'ok', wrote.output);
    const read = await bash(h, 'cat /tmp/note.txt');
    assert.equal(read.status, 'ok', read.output);
    assert.match(read.output, /kept-for-the-session/);

    const other = await h.openSession();
    const elsewhere = await other.dispatch({ name: 'bash', arguments: { command: 'cat /tmp/note.txt' } });
    assert.equal(elsewhere.status, 'error');
    assert.doesNotMatch(elsewhere.output, /kept-for-the-session/);

    const session = h.defaultSession();
    const tmpParent = join(session.dir, 'jobs', 'tmp');
    assert.equal(readdirSync(tmpParent).length, 1, 'one private /tmp under the session’s state directory');
    await session.close();
    assert.deepEqual(readdirSync(tmpParent), [], 'closing the session removes its /tmp');
    const resumed = await h.resumeSession(session.id);
    const afterResume = await resumed.dispatch({ name: 'bash', arguments: { command: 'cat /tmp/note.txt' } });
    assert.equal(afterResume.status, 'error', 'a resumed session starts with an empty /tmp');
  });

  it('shares the session’s /tmp between its background and foreground commands', async () => {
    const h = await host({ sandbox: 'workspace_write' });
    const started = await h.dispatch({
      name: 'bash',
      arguments: {
        command:
          'for i in $(seq 1 600); do [ -f /tmp/ping ] && { echo pong > /tmp/pong; exit 0; }; sleep 0.1; done; exit 1',
        run_in_background: true,
      },
    });
    assert.equal(started.status, 'ok', started.output);
    const ping = await bash(
      h,
      'echo ping > /tmp/ping; for i in $(seq 1 600); do [ -f /tmp/pong ] && break; sleep 0.1; done; cat /tmp/pong',
    );
    assert.match(ping.output, /pong/);
  });
});

describe('sandbox.writableRoots, readableRoots and maxPlanEntries', {
  skip: !linux && 'bubblewrap (Linux)',
}, () => {
  it('lets commands write a writable root in workspace_write, while the file tools still refuse it', async () => {
    const cache = join(outside.dir, 'cache');
    mkdirSync(cache);
    const h = await host({ sandbox: 'workspace_write', config: { sandbox: { writableRoots: [cache] } } });
    const wrote = await bash(h, `echo built > ${cache}/artifact`);
    assert.equal(wrote.status, 'ok', wrote.output);
    assert.equal(readFileSync(join(cache, 'artifact'), 'utf8'), 'built\n');
    const tool = await h.dispatch({
      name: 'write_file',
      arguments: { path: join(cache, 'x'), content: 'x' },
    });
    assert.equal(tool.error?.code, 'PATH_OUTSIDE_ROOT');
    const readOnly = await host({ sandbox: 'read_only', config: { sandbox: { writableRoots: [cache] } } });
    const refused = await bash(readOnly, `cat ${cache}/artifact && echo y > ${cache}/other`);
    assert.match(refused.output, /built/);
    assert.equal(existsSync(join(cache, 'other')), false);
  });

  it('shows a readable root read-only, and only when configured', async () => {
    const shared = join(outside.dir, 'shared');
    mkdirSync(shared);
    writeFileSync(join(shared, 'notes.txt'), 'shared-notes\n');
    const hidden = await host();
    assert.equal((await bash(hidden, `cat ${shared}/notes.txt`)).status, 'error');
    const h = await host({ sandbox: 'workspace_write', config: { sandbox: { readableRoots: [shared] } } });
    assert.match((await bash(h, `cat ${shared}/notes.txt`)).output, /shared-notes/);
    assert.equal((await bash(h, `echo x > ${shared}/notes.txt`)).status, 'error');
    assert.equal(readFileSync(join(shared, 'notes.txt'), 'utf8'), 'shared-notes\n');
  });

  it('passes sandbox.maxPlanEntries to the protected-path plan (commands refused past it)', async () => {
    for (let index = 0; index < 5; index++) writeFileSync(join(root.dir, `f${index}.txt`), 'x');
    const h = await host({ sandbox: 'workspace_write', config: { sandbox: { maxPlanEntries: 2 } } });
    const result = await bash(h, 'echo never-runs');
    assert.equal(result.error?.code, 'SANDBOX_PLAN_INCOMPLETE', result.output);
  });
});

describe('shell sandbox settings from an untrusted project configuration', () => {
  const widening: HostConfigInput = {
    sandbox: {
      network: true,
      writableRoots: ['/var/tmp'],
      readableRoots: ['~/.ssh'],
      maxPlanEntries: 5_000_000,
    },
    shellEnvironment: {
      inherit: 'all',
      include: ['GOPATH', 'API_TOKEN'],
      exclude: ['TOOLHOST_TEST_PLAIN'],
      set: { PATH: '/tmp/evil', LD_PRELOAD: '/tmp/evil.so' },
    },
  };

  function writeProjectConfig(value: unknown): string {
    const file = join(root.dir, 'toolhost.config.json');
    writeFileSync(file, JSON.stringify(value));
    return file;
  }

  it('policy from the model: ignores sandbox.network: true, writable and readable roots, a higher maxPlanEntries, include, inherit "all" and set, and lists them in configReport.ignored', async () => {
    writeProjectConfig(widening);
    const h = await projectHost({ sandbox: 'workspace_write' });
    assert.deepEqual(h.configReport.ignored.map((entry) => entry.field).sort(), [
      'sandbox.maxPlanEntries',
      'sandbox.network',
      'sandbox.readableRoots[0]',
      'sandbox.writableRoots[0]',
      'shellEnvironment.include[0]',
      'shellEnvironment.include[1]',
      'shellEnvironment.inherit',
      'shellEnvironment.set.LD_PRELOAD',
      'shellEnvironment.set.PATH',
    ]);
    assert.equal(h.config.sandbox.network, undefined);
    assert.deepEqual(h.config.sandbox.writableRoots, []);
    assert.deepEqual(h.config.sandbox.readableRoots, []);
    assert.equal(h.config.sandbox.maxPlanEntries, undefined);
    assert.deepEqual(h.config.shellEnvironment.include, []);
    assert.deepEqual(h.config.shellEnvironment.set, {});
    assert.equal(h.config.shellEnvironment.inherit, undefined);
    assert.deepEqual(
      h.config.shellEnvironment.exclude,
      ['TOOLHOST_TEST_PLAIN'],
      'exclude narrows and applies',
    );
    assert.equal(h.defaultSession().effectiveAnnotations('bash')?.openWorld, false, 'no network');
    // Set values are never reported, only names.
    assert.ok(!JSON.stringify(h.configReport).includes('/tmp/evil'));
  });

  it('applies what narrows: network false over the user’s true, a lower plan limit, a narrower inherit, exclude', async () => {
    writeFileSync(
      join(userDir.dir, 'config.json'),
      JSON.stringify({
        sandbox: { network: true, maxPlanEntries: 300_000 },
        shellEnvironment: { inherit: 'all', include: ['GOPATH'] },
      }),
    );
    writeProjectConfig({
      sandbox: { network: false, maxPlanEntries: 1000 },
      shellEnvironment: { inherit: 'none', exclude: ['GOPATH'] },
    });
    const h = await projectHost({ userConfig: join(userDir.dir, 'config.json') });
    assert.deepEqual(h.configReport.ignored, []);
    assert.equal(h.config.sandbox.network, false);
    assert.equal(h.config.sandbox.maxPlanEntries, 1000);
    assert.equal(h.config.shellEnvironment.inherit, 'none');
    assert.deepEqual(h.config.shellEnvironment.include, ['GOPATH']);
    assert.deepEqual(h.config.shellEnvironment.exclude, ['GOPATH']);
  });

  it('applies the same settings once the user approved the file (toolhost trust)', async () => {
    const file = writeProjectConfig({
      sandbox: { network: true, writableRoots: [outside.dir] },
      shellEnvironment: { include: ['GOPATH'], set: { FROM_PROJECT: '1' } },
    });
    writeProjectTrust(userDir.dir, file, configDigest(readFileSync(file)));
    const h = await projectHost({ sandbox: 'workspace_write' });
    assert.deepEqual(h.configReport.ignored, []);
    assert.equal(h.config.sandbox.network, true);
    assert.deepEqual(h.config.sandbox.writableRoots, [outside.dir]);
    assert.deepEqual(h.config.shellEnvironment.set, { FROM_PROJECT: '1' });
    assert.equal(h.defaultSession().effectiveAnnotations('bash')?.openWorld, true);
  });
});

describe('shell sandbox settings that are refused (CONFIG_INVALID)', () => {
  async function refused(config: HostConfigInput | Record<string, unknown>, field: string, cause: RegExp) {
    await assert.rejects(
      host({ sandbox: 'workspace_write', config: config as HostConfigInput }),
      (error: unknown) => {
        const failure = error as { code?: string; message?: string; details?: { field?: string } };
        assert.equal(failure.code, 'CONFIG_INVALID', String(failure.message));
        assert.equal(failure.details?.field, field, failure.message);
        assert.match(String(failure.message), cause);
        return true;
      },
    );
  }

  it('refuses a writable root that is /, the project root or a directory above it, the home directory, a protected or secret path, or toolhost’s own directories', async () => {
    await refused({ sandbox: { writableRoots: ['/'] } }, 'sandbox.writableRoots[0]', /file system root/);
    await refused(
      { sandbox: { writableRoots: [outside.dir, root.dir] } },
      'sandbox.writableRoots[1]',
      /contains a root/,
    );
    await refused(
      { sandbox: { writableRoots: [join(root.dir, '..')] } },
      'sandbox.writableRoots[0]',
      /contains a root/,
    );
    await refused({ sandbox: { writableRoots: ['~'] } }, 'sandbox.writableRoots[0]', /home directory/);
    mkdirSync(join(root.dir, '.git'));
    await refused(
      { sandbox: { writableRoots: [join(root.dir, '.git')] } },
      'sandbox.writableRoots[0]',
      /protected or secret/,
    );
    mkdirSync(join(outside.dir, 'repo', '.git'), { recursive: true });
    await refused(
      { sandbox: { writableRoots: [join(outside.dir, 'repo', '.git')] } },
      'sandbox.writableRoots[0]',
      /protected or secret/,
    );
    mkdirSync(join(outside.dir, 'certs.pem'));
    await refused(
      { sandbox: { writableRoots: [join(outside.dir, 'certs.pem')] } },
      'sandbox.writableRoots[0]',
      /protected or secret/,
    );
    await refused(
      { sandbox: { writableRoots: [userDir.dir] } },
      'sandbox.writableRoots[0]',
      /configuration directory/,
    );
    const customState = join(outside.dir, 'state');
    mkdirSync(customState);
    await assert.rejects(
      host({ stateDir: customState, config: { sandbox: { writableRoots: [outside.dir] } } }),
      /sandbox\.writableRoots\[0\]: overlaps toolhost's state directory/,
    );
  });

  it('refuses a readable root that is / or shows toolhost’s own directories, and leaves out missing ones', async () => {
    await refused({ sandbox: { readableRoots: ['/'] } }, 'sandbox.readableRoots[0]', /file system root/);
    await refused(
      { sandbox: { readableRoots: [userDir.dir] } },
      'sandbox.readableRoots[0]',
      /configuration directory/,
    );
    const h = await host({ config: { sandbox: { readableRoots: [join(outside.dir, 'missing')] } } });
    assert.ok(h);
  });

  it('refuses malformed sandbox and shellEnvironment fields, naming the field and never the value', async () => {
    await refused({ sandbox: { network: 'yes' } }, 'sandbox.network', /true or false/);
    await refused({ sandbox: { networks: true } }, 'sandbox.networks', /unknown field/);
    await refused({ sandbox: { maxPlanEntries: 0 } }, 'sandbox.maxPlanEntries', /integer/);
    await refused({ sandbox: { writableRoots: 'cache' } }, 'sandbox.writableRoots', /array/);
    await refused({ sandbox: { readableRoots: [''] } }, 'sandbox.readableRoots[0]', /non-empty/);
    await refused({ shellEnvironment: { inherit: 'most' } }, 'shellEnvironment.inherit', /core, all or none/);
    await refused(
      { shellEnvironment: { include: ['GO PATH'] } },
      'shellEnvironment.include[0]',
      /variable name/,
    );
    await refused({ shellEnvironment: { exclude: 'PATH' } }, 'shellEnvironment.exclude', /array/);
    await refused(
      { shellEnvironment: { set: { 'BAD NAME': 'v' } } },
      'shellEnvironment.set',
      /variable name/,
    );
    await assert.rejects(
      host({ config: { shellEnvironment: { set: { SECRET_KEY: 123456789 } } } as never }),
      (error: unknown) => {
        const message = String((error as Error).message);
        assert.match(message, /shellEnvironment\.set\.SECRET_KEY/);
        assert.ok(!message.includes('123456789'), 'the value is never echoed');
        return true;
      },
    );
    await refused({ shellEnvironment: { unknown: 1 } }, 'shellEnvironment.unknown', /unknown field/);
  });
});
