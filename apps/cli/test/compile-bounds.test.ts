import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeProject, runToolhost } from './helpers.js';

/** A tool list whose second tool's schema nests `levels` properties (built as text: JSON.stringify overflows first). */
function deepToolList(levels: number): string {
  const schema = `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
  return `[{"name":"fine","description":"ok","inputSchema":{"type":"object","properties":{}}},{"name":"deep","description":"d","inputSchema":${schema}}]`;
}

describe('toolhost compile (schema depth limit)', () => {
  it('exits 2 naming the tool and the limit for a schema nested 20,000 levels, not "unexpected failure"', async () => {
    const project = await makeProject({});
    try {
      for (const dialect of ['openai-chat', 'anthropic', 'gemini']) {
        const result = await runToolhost(['compile', '--dialect', dialect], {
          cwd: project.root,
          input: deepToolList(20_000),
        });
        assert.equal(result.code, 2, result.stderr);
        assert.doesNotMatch(result.stderr, /unexpected failure|RangeError|Maximum call stack/);
        assert.match(
          result.stderr,
          /^toolhost: the input schema of tool "deep" nests deeper than 128 levels/,
        );
        assert.equal(result.stderr.trimEnd().split('\n').length, 1, 'a one-line reason');
        assert.equal(result.stdout, '');
      }
      const fine = await runToolhost(['compile', '--dialect', 'openai-chat'], {
        cwd: project.root,
        input: deepToolList(30),
      });
      assert.equal(fine.code, 0, fine.stderr);
    } finally {
      await project.cleanup();
    }
  });
});
