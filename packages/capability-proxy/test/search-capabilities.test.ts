import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CapabilitySummary, closeCandidates, searchCapabilities } from '../src/search-capabilities.js';

const entries: CapabilitySummary[] = [
  {
    id: 'tool:grep',
    kind: 'tool',
    name: 'grep',
    description: 'Search file contents with a regular expression.',
  },
  { id: 'tool:glob', kind: 'tool', name: 'glob', description: 'Find files by path pattern.' },
  {
    id: 'mcp-tool:github/search_issues',
    kind: 'mcp-tool',
    name: 'search_issues',
    server: 'github',
    description: 'Search issues and pull requests.',
  },
  {
    id: 'mcp-tool:github/create_issue',
    kind: 'mcp-tool',
    name: 'create_issue',
    server: 'github',
    description: 'Open a new issue.',
  },
];

describe('searchCapabilities', () => {
  it('ranks name hits above description hits and entries matching every word first', () => {
    const ids = searchCapabilities(entries, 'search issues').map((hit) => hit.entry.id);
    assert.deepEqual(ids.slice(0, 2), ['mcp-tool:github/search_issues', 'mcp-tool:github/create_issue']);
    assert.equal(searchCapabilities(entries, 'files')[0]?.entry.id, 'tool:glob');
    assert.deepEqual(searchCapabilities(entries, '   '), []);
    assert.deepEqual(searchCapabilities(entries, 'zebra'), []);
  });
});

describe('closeCandidates', () => {
  it('finds the same name in another namespace first, then loose and near names', () => {
    assert.deepEqual(
      closeCandidates(entries, 'grep').map((hit) => [hit.entry.id, hit.score]),
      [['tool:grep', 100]],
    );
    assert.equal(closeCandidates(entries, 'create-issue')[0]?.score, 90);
    assert.equal(closeCandidates(entries, 'creat_isue')[0]?.entry.id, 'mcp-tool:github/create_issue');
    assert.deepEqual(closeCandidates(entries, 'nothing'), []);
  });
});
