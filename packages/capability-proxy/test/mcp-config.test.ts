// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration values reference host variables as ${VAR}.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMcpServers, type ResolvedMcpServer } from '../src/index.js';
import { expandVariables, slugOf } from '../src/mcp-config.js';

function parsed(raw: unknown): ResolvedMcpServer[] {
  const result = parseMcpServers(raw);
  assert.ok(result.ok, result.ok ? '' : result.error.toModelText());
  return result.value;
}

describe('parseMcpServers', () => {
  it('reads the Claude Desktop and Cursor format, sorted by name, with transport hints and our fields', () => {
    const servers = parsed({
      zeta: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: 'x' } },
      alpha: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer y' } },
      legacy: { url: 'http://127.0.0.1:9/sse', type: 'sse', trusted: true },
      strict: { url: 'http://127.0.0.1:9/mcp', transport: 'streamable-http' },
      off: { command: 'node', enabled: false },
      cursorOff: { command: 'node', disabled: true, autoApprove: [] },
    });
    assert.deepEqual(
      servers.map((server) => [server.name, server.transport, server.enabled, server.trusted]),
      [
        ['alpha', 'http-auto', true, false],
        ['cursorOff', 'stdio', false, false],
        ['legacy', 'sse', true, true],
        ['off', 'stdio', false, false],
        ['strict', 'http', true, false],
        ['zeta', 'stdio', true, false],
      ],
    );
    assert.deepEqual(parsed(undefined), []);
  });

  it('rejects bad entries with CONFIG_INVALID naming the field and never quoting a value', () => {
    const cases: [unknown, RegExp][] = [
      [[], /mcpServers must be an object/],
      [{ 'a/b': { command: 'x' } }, /server name/],
      [{ s: 'node' }, /mcpServers\."s" must be an object/],
      [{ s: {} }, /mcpServers\."s"\.command is required/],
      [{ s: { command: 'x', url: 'http://h' } }, /command cannot be combined with url/],
      [{ s: { command: 'x', args: 'secret-arg' } }, /args must be an array of strings/],
      [{ s: { command: 'x', env: { K: 42 } } }, /env must be an object of string values/],
      [{ s: { url: 'ftp://secret-host' } }, /url must be an http:\/\/ or https:\/\/ URL/],
      [{ s: { command: 'x', type: 'websocket' } }, /type must be one of/],
      [{ s: { command: 'x', enabled: 'yes' } }, /enabled must be true or false/],
      [{ s: { command: 'x', colour: 'crimson' } }, /colour is not a known server field/],
    ];
    for (const [raw, pattern] of cases) {
      const result = parseMcpServers(raw);
      assert.ok(!result.ok, JSON.stringify(raw));
      assert.equal(result.error.code, 'CONFIG_INVALID');
      assert.match(result.error.message, pattern);
      assert.ok(!/secret|42|crimson/.test(result.error.message), 'values are never quoted');
    }
  });

  it('keys the schema cache on names of env variables and headers, never their values (CP-CACHE-1)', () => {
    const key = (entry: Record<string, unknown>) => parsed({ s: entry })[0]!.cacheKey;
    const base = { command: 'node', args: ['server.js'], env: { API_KEY: 'one' } };
    assert.match(key(base), /^[0-9a-f]{64}$/);
    assert.equal(key({ ...base, env: { API_KEY: 'two' } }), key(base), 'a new secret value keeps the cache');
    assert.notEqual(key({ ...base, env: { OTHER_KEY: 'one' } }), key(base));
    assert.notEqual(key({ ...base, args: ['other.js'] }), key(base));
    assert.notEqual(key({ ...base, cwd: '/srv' }), key(base));
    const remote = { url: 'https://h/mcp', headers: { Authorization: 'a' } };
    assert.equal(key({ ...remote, headers: { Authorization: 'b' } }), key(remote));
    assert.notEqual(key({ ...remote, headers: { 'X-Other': 'a' } }), key(remote));
    assert.notEqual(key({ ...remote, url: 'https://h/other' }), key(remote));
    assert.notEqual(
      parsed({ a: base })[0]!.cacheKey,
      parsed({ b: base })[0]!.cacheKey,
      'the name is part of it',
    );
  });
});

describe('slugOf', () => {
  it('makes file-safe names that never collide', () => {
    assert.match(slugOf('github'), /^github-[0-9a-f]{8}$/);
    assert.match(slugOf('my.server'), /^my_server-[0-9a-f]{8}$/);
    assert.notEqual(slugOf('a.b'), slugOf('a_b'));
  });
});

describe('expandVariables', () => {
  it('expands ${VAR}, ${env:VAR} and ${VAR:-default} and names a missing variable', () => {
    const source = { TOKEN: 't0k', EMPTY: '' };
    assert.deepEqual(expandVariables('Bearer ${TOKEN}', source), { ok: true, value: 'Bearer t0k' });
    assert.deepEqual(expandVariables('${env:TOKEN}/${EMPTY:-fallback}', source), {
      ok: true,
      value: 't0k/fallback',
    });
    assert.deepEqual(expandVariables('plain $TOKEN text', source), { ok: true, value: 'plain $TOKEN text' });
    assert.deepEqual(expandVariables('${MISSING}', source), { ok: false, error: { missing: 'MISSING' } });
  });
});
