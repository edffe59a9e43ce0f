// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration values reference host variables as ${VAR}.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createServerEnvironment } from '../src/server-environment.js';

describe('createServerEnvironment', () => {
  it('keeps only the safe list, the chosen extra names and the configured variables', () => {
    const result = createServerEnvironment({
      source: {
        PATH: '/usr/bin',
        HOME: '/home/u',
        LANG: 'C.UTF-8',
        OPENAI_API_KEY: 'sk-1',
        GITHUB_TOKEN: 'ghp',
        HTTPS_PROXY: 'http://user:pass@proxy',
        BASH_FUNC_x: '() { :; }',
        TERM: '() { evil; }',
      },
      inherit: ['HTTPS_PROXY'],
      configured: { SERVER_MODE: 'fast', HOME: '/srv/home' },
      platform: 'linux',
    });
    assert.ok(result.ok);
    assert.deepEqual(result.value, {
      PATH: '/usr/bin',
      HOME: '/srv/home',
      LANG: 'C.UTF-8',
      HTTPS_PROXY: 'http://user:pass@proxy',
      SERVER_MODE: 'fast',
    });
  });

  it('matches Windows variable names case-insensitively', () => {
    const result = createServerEnvironment({
      source: { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', SECRET: 'x' },
      platform: 'win32',
    });
    assert.ok(result.ok);
    assert.deepEqual(result.value, { Path: 'C:\\Windows', SystemRoot: 'C:\\Windows' });
  });

  it('reports an unset variable reference by name with the variable that referenced it', () => {
    const result = createServerEnvironment({ source: {}, configured: { TOKEN: '${GH_TOKEN}' } });
    assert.deepEqual(result, { ok: false, error: { missing: 'GH_TOKEN', variable: 'TOKEN' } });
  });
});
