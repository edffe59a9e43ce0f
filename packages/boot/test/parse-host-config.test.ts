import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { EMPTY_HOST_CONFIG, loadHostConfig, parseHostConfig } from '../src/parse-host-config.js';

describe('parseHostConfig', () => {
  it('accepts a full configuration in the Claude Desktop / Cursor mcpServers format', () => {
    const parsed = parseHostConfig({
      $schema: 'https://example.invalid/schema.json',
      mcpServers: {
        everything: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything'],
          env: { A: '1' },
        },
        remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer secret-token' } },
      },
      permissions: {
        allow: ['bash(git status:*)'],
        ask: ['mcp__remote__write'],
        deny: ['mcp_connect__remote'],
      },
      protectedPaths: ['secrets/**'],
      secretPaths: ['*.p12'],
      allowedRoots: ['../shared'],
      defaults: { sandbox: 'workspace_write', approval: 'strict', surface: 'full', approvalTimeoutMs: 5000 },
      audit: true,
    });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value.permissions.deny, ['mcp_connect__remote']);
    assert.deepEqual(parsed.value.defaults, {
      sandbox: 'workspace_write',
      approval: 'strict',
      surface: 'full',
      approvalTimeoutMs: 5000,
    });
    assert.equal(Object.keys(parsed.value.mcpServers).length, 2);
  });

  const invalid: [string, unknown, RegExp][] = [
    ['a non-object root', [], /\(root\): expected a JSON object/],
    ['a misspelt top-level field', { permisions: {} }, /permisions: unknown field/],
    [
      'a wildcard rule',
      { permissions: { allow: ['mcp__github__*'] } },
      /permissions\.allow\[0\]: .*wildcards/,
    ],
    ['a non-string rule', { permissions: { deny: ['ok', 3] } }, /permissions\.deny\[1\]/],
    ['an unknown rule list', { permissions: { allwo: [] } }, /permissions\.allwo: unknown field/],
    [
      'a bad sandbox default',
      { defaults: { sandbox: 'yolo' } },
      /defaults\.sandbox: expected one of read_only/,
    ],
    ['a bad approval default', { defaults: { approval: 'sometimes' } }, /defaults\.approval/],
    ['a bad surface default', { defaults: { surface: 'huge' } }, /defaults\.surface/],
    ['an unknown default', { defaults: { colour: 'red' } }, /defaults\.colour: unknown field/],
    ['a server with neither command nor url', { mcpServers: { a: {} } }, /mcpServers\."a"/],
    ['a server with both', { mcpServers: { a: { command: 'x', url: 'http://h' } } }, /mcpServers\."a"/],
    [
      'a server with non-string args',
      { mcpServers: { a: { command: 'x', args: [1] } } },
      /mcpServers\."a"\.args/,
    ],
    ['a server with a bad url', { mcpServers: { a: { url: 'ftp://h' } } }, /mcpServers\."a"\.url/],
    ['a server with bad env', { mcpServers: { a: { command: 'x', env: { A: 1 } } } }, /mcpServers\."a"\.env/],
    ['an empty protected path', { protectedPaths: [''] }, /protectedPaths\[0\]/],
    ['a bad audit value', { audit: 3 }, /audit: expected true, false or a file path/],
  ];
  for (const [label, value, pattern] of invalid) {
    it(`refuses ${label} with CONFIG_INVALID naming the field`, () => {
      const parsed = parseHostConfig(value, 'cfg.json');
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.error.code, 'CONFIG_INVALID');
      assert.match(parsed.error.message, /^cfg\.json: /);
      assert.match(parsed.error.message, pattern);
    });
  }
});

describe('loadHostConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolhost-boot-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('treats a missing optional file as an empty configuration', () => {
    const loaded = loadHostConfig(join(dir, 'toolhost.config.json'), { optional: true });
    assert.deepEqual(loaded, { ok: true, value: EMPTY_HOST_CONFIG });
  });

  it('refuses a missing explicit file and invalid JSON with CONFIG_INVALID', () => {
    const missing = loadHostConfig(join(dir, 'nope.json'));
    assert.ok(
      !missing.ok && missing.error.code === 'CONFIG_INVALID' && /cannot read/.test(missing.error.message),
    );
    writeFileSync(join(dir, 'bad.json'), '{"permissions": ');
    const bad = loadHostConfig(join(dir, 'bad.json'));
    assert.ok(!bad.ok && /not valid JSON/.test(bad.error.message));
  });

  it('reads a file with a byte order mark', () => {
    writeFileSync(join(dir, 'c.json'), '\ufeff{"permissions":{"deny":["bash"]}}');
    const loaded = loadHostConfig(join(dir, 'c.json'));
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.value.permissions.deny, ['bash']);
  });
});
