import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcpPermissionName, parseCapabilityId } from '../src/capability-ids.js';

describe('parseCapabilityId', () => {
  it('takes every spelling apart', () => {
    assert.deepEqual(parseCapabilityId(' tool:glob '), { kind: 'tool', name: 'glob' });
    assert.deepEqual(parseCapabilityId('mcp-server:github'), { kind: 'mcp-server', server: 'github' });
    assert.deepEqual(parseCapabilityId('mcp-tool:github/create_issue'), {
      kind: 'mcp-tool',
      rest: 'github/create_issue',
    });
    assert.deepEqual(parseCapabilityId('mcp/github/create_issue'), {
      kind: 'mcp-tool',
      rest: 'github/create_issue',
    });
    assert.deepEqual(parseCapabilityId('mcp__github__create_issue'), {
      kind: 'mcp-permission-name',
      rest: 'github__create_issue',
    });
    for (const id of [
      'session:tool_result',
      'session:tool-result',
      'session_tool_result',
      'Session:Tool_Result',
    ]) {
      assert.deepEqual(parseCapabilityId(id), { kind: 'session' }, id);
    }
    assert.deepEqual(parseCapabilityId('glob'), { kind: 'bare', text: 'glob' });
  });
});

describe('mcpPermissionName', () => {
  it('builds exact rule names and keeps sanitised parts apart with a hash', () => {
    assert.equal(mcpPermissionName('github'), 'mcp_connect__github');
    assert.equal(mcpPermissionName('github', 'create_issue'), 'mcp__github__create_issue');
    const dotted = mcpPermissionName('my.server', 'tool.v2');
    assert.match(dotted, /^mcp__my_server_[0-9a-f]{6}__tool_v2_[0-9a-f]{6}$/);
    assert.notEqual(mcpPermissionName('a.b'), mcpPermissionName('a_b'));
  });
});
