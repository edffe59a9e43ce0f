import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createHost, type Host, type HostOptions } from '../src/index.js';
import { tempRoot } from './helpers.js';

// The rest of the built-in table (notebook_edit, web_fetch, code_index, delete_symbol) as a host
// composes it: registered off the lean surface, reachable as tool:<name>, under the run policy.

describe('the rest of the built-in table in a host', () => {
  let root: ReturnType<typeof tempRoot>;
  let http: Server;
  let origin = '';
  const hosts: Host[] = [];
  const host = async (options: HostOptions = {}): Promise<Host> => {
    const created = await createHost({ root: root.dir, config: false, rgPath: null, ...options });
    hosts.push(created);
    return created;
  };

  before(async () => {
    root = tempRoot();
    http = createServer((request, response) => {
      if (request.url === '/away')
        response
          .writeHead(302, { location: `http://localhost:${(http.address() as AddressInfo).port}/` })
          .end();
      else
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<h1>Local docs</h1><p><a href="/x">more</a></p>');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const created of hosts) await created.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    root.cleanup();
  });

  it('keeps the lean surface as it was and reaches the new tools as tool:<name>', async () => {
    const h = await host({ sandbox: 'workspace_write' });
    for (const name of ['notebook_edit', 'web_fetch', 'code_index', 'delete_symbol']) {
      assert.ok(h.registry.get(name), `${name} is registered`);
      assert.ok(!h.surfaceNames().includes(name), `${name} is off the lean surface`);
    }
    writeFileSync(join(root.dir, 'lib.py'), 'def alpha():\n    pass\n\n\ndef beta():\n    pass\n');
    const found = await h.dispatch({
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'tool:code_index',
        arguments: { action: 'definition', query: 'beta' },
      },
    });
    assert.equal(found.status, 'ok', found.output);
    assert.match(found.output, /^lib\.py:5-6 function beta$/m);
    assert.ok(
      existsSync(join(h.stateDir, 'code-index', 'index-v1.json')),
      'the index is kept in the state directory',
    );
    const read = await h.dispatch({ name: 'read_file', arguments: { path: 'lib.py', limit: 1 } });
    assert.equal(read.status, 'ok');
    const deleted = await h.dispatch({
      name: 'tool:delete_symbol',
      arguments: { path: 'lib.py', symbol: 'alpha' },
    });
    assert.equal(deleted.status, 'ok', deleted.output);
    assert.equal(readFileSync(join(root.dir, 'lib.py'), 'utf8'), 'def beta():\n    pass\n');
  });

  it('never indexes the host state directory, even one whose name is not hidden', async () => {
    const h = await host({ sandbox: 'workspace_write', stateDir: 'hoststate' });
    mkdirSync(join(h.stateDir, 'leak'), { recursive: true });
    writeFileSync(join(h.stateDir, 'leak', 'state.py'), 'def state_secret():\n    pass\n');
    const all = await h.dispatch({
      name: 'tool:code_index',
      arguments: { action: 'symbols', query: 'state_secret' },
    });
    assert.equal(all.status, 'ok');
    assert.match(all.output, /^0 definitions matching "state_secret"/);
    assert.doesNotMatch(all.output, /hoststate/);
  });

  it('refuses the editing tools in read_only and keeps the read-only ones', async () => {
    const h = await host({ sandbox: 'read_only' });
    const edit = await h.dispatch({
      name: 'tool:notebook_edit',
      arguments: { path: 'x.ipynb', cell_number: 0, new_source: 'x' },
    });
    assert.equal(edit.error?.code, 'PERMISSION_DENIED');
    const remove = await h.dispatch({
      name: 'tool:delete_symbol',
      arguments: { path: 'lib.py', symbol: 'beta' },
    });
    assert.equal(remove.error?.code, 'PERMISSION_DENIED');
    const index = await h.dispatch({ name: 'tool:code_index', arguments: { action: 'symbols' } });
    assert.equal(index.status, 'ok', index.output);
  });

  it('asks before web_fetch under on_request (open world) and fails closed when no one can be asked', async () => {
    const h = await host({ config: { webFetch: { allowHosts: ['127.0.0.1'] } } });
    const result = await h.dispatch({ name: 'tool:web_fetch', arguments: { url: `${origin}/` } });
    assert.equal(result.error?.code, 'APPROVAL_REQUIRED', result.output);
    let asked = 0;
    const approving = await host({
      config: { webFetch: { allowHosts: ['127.0.0.1'] } },
      approve: (request) => {
        asked++;
        assert.equal(request.subject, '127.0.0.1', 'the subject is the host name');
        return true;
      },
    });
    const fetched = await approving.dispatch({ name: 'tool:web_fetch', arguments: { url: `${origin}/` } });
    assert.equal(fetched.status, 'ok', fetched.output);
    assert.equal(asked, 1);
    assert.equal(fetched.untrusted, true);
    assert.match(fetched.output, /^# Local docs$/m);
  });

  it('applies web_fetch(domain:...) rules and the webFetch config keys', async () => {
    const h = await host({
      config: {
        webFetch: { allowHosts: ['127.0.0.1', 'localhost'] },
        permissions: { allow: ['web_fetch(domain:127.0.0.1)'], deny: ['web_fetch(domain:localhost)'] },
      },
    });
    const allowed = await h.dispatch({ name: 'tool:web_fetch', arguments: { url: `${origin}/` } });
    assert.equal(allowed.status, 'ok', allowed.output);
    assert.equal(allowed.permission?.type, 'allow');
    const denied = await h.dispatch({
      name: 'tool:web_fetch',
      arguments: { url: `http://localhost:${(http.address() as AddressInfo).port}/` },
    });
    assert.equal(denied.error?.code, 'APPROVAL_DENIED');
    // A redirect to the denied host is not followed: the rules decide that host differently.
    const redirected = await h.dispatch({ name: 'tool:web_fetch', arguments: { url: `${origin}/away` } });
    assert.equal(redirected.status, 'ok', redirected.output);
    assert.match(
      redirected.output,
      /redirects \(HTTP 302\) to another host: http:\/\/localhost:\d+\/\nIt was not followed/,
    );
    // Without allowHosts the address guard refuses the loopback server whatever the rules say.
    const guarded = await host({ config: { permissions: { allow: ['web_fetch(domain:127.0.0.1)'] } } });
    const refused = await guarded.dispatch({ name: 'tool:web_fetch', arguments: { url: `${origin}/` } });
    assert.equal(refused.error?.code, 'FETCH_BLOCKED');
  });

  it('refuses malformed webFetch settings and web_fetch rules that name no domain with CONFIG_INVALID', async () => {
    for (const config of [
      { webFetch: { allowHosts: ['http://127.0.0.1/'] } },
      { webFetch: { allowPrivateNetwork: 'yes' } },
      { webFetch: { allowHost: [] } },
      { permissions: { allow: ['web_fetch(https://example.com)'] } },
      { permissions: { allow: ['web_fetch(domain:*.example.com)'] } },
    ])
      await assert.rejects(host({ config: config as HostOptions['config'] & object }), {
        code: 'CONFIG_INVALID',
      });
  });
});
