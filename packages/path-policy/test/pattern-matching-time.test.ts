import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPathPatternMatcher } from '../src/index.js';

// Patterns are configured (by the user, or narrowed by a project), but the paths they meet come
// from the model: a name is matched in linear time whatever the pattern (PP-PROT-4).

/** Runs `match` in a child process: a blocked match would also block this runner's timers. */
function matchInChild(
  patterns: readonly string[],
  subject: string,
): Promise<{ blocked: boolean; output: string }> {
  const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = `
    import { createPathPatternMatcher } from ${JSON.stringify(index)};
    const matcher = createPathPatternMatcher(${JSON.stringify(patterns)}, { caseSensitive: true });
    process.stdout.write(JSON.stringify({ match: matcher.match(${JSON.stringify(subject)}, true) ?? null }));
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    let blocked = false;
    // Generous: it only tells a blocked process from a slow one; nothing is asserted about time.
    const timer = setTimeout(() => {
      blocked = true;
      child.kill('SIGKILL');
    }, 90_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ blocked, output });
    });
  });
}

describe('createPathPatternMatcher (time)', () => {
  it('a configured secret pattern of 12 wildcards against a 100-character model path name does not block the host (issue 15: hangs)', async () => {
    const pattern = `${'*a'.repeat(11)}*b`;
    const run = await matchInChild([pattern], `src/${'a'.repeat(100)}`);
    assert.equal(run.blocked, false, 'matching blocked its process');
    assert.deepEqual(JSON.parse(run.output), { match: null });
    const hit = await matchInChild([pattern], `src/${'a'.repeat(99)}b`);
    assert.deepEqual(JSON.parse(hit.output), { match: pattern });
  });

  it('refuses a pattern the linear matcher cannot read as a configuration error (PP-PROT-4)', () => {
    assert.throws(
      () => createPathPatternMatcher(['keys/!(x).key'], { caseSensitive: true }),
      /negated extglob/,
    );
    assert.throws(() => createPathPatternMatcher(['a\\'], { caseSensitive: true }), /lone backslash/);
  });

  it('keeps picomatch syntax per name: classes, braces, extglobs, case (PP-PROT-4)', () => {
    const matcher = createPathPatternMatcher(['*.{pem,key}', '[Ii]d_*', '@(secret|token).txt'], {
      caseSensitive: false,
    });
    assert.equal(matcher.match('deep/dir/server.KEY', true), '*.{pem,key}');
    assert.equal(matcher.match('id_ed25519', true), '[Ii]d_*');
    assert.equal(matcher.match('x/Token.txt', true), '@(secret|token).txt');
    assert.equal(matcher.match('x/tokens.txt', true), undefined);
  });
});
