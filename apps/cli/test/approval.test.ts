import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startFakeProvider } from './fake-provider.js';
import { CLI, cliEnv, makeProject, PROCESS_TIMEOUT_MS, runToolhost, waitFor } from './helpers.js';

/**
 * Approval prompts need a terminal. util-linux `script` gives the CLI a pseudo-terminal on stdin,
 * stdout and stderr while the test types into it; where `script` is missing the terminal cases are
 * skipped (the fail-closed case never needs one).
 */
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

interface Terminal {
  output(): string;
  type(text: string): void;
  exited: Promise<number | null>;
  kill(): void;
}

async function inTerminal(root: string, args: readonly string[]): Promise<Terminal> {
  const quoted = [process.execPath, CLI, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const wrapper = join(root, '.run.sh');
  await writeFile(wrapper, `#!/bin/sh\nexec ${quoted}\n`, { mode: 0o755 });
  const child = spawn('script', ['-qfec', wrapper, '/dev/null'], {
    cwd: root,
    env: cliEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return {
    output: () => output,
    type: (text) => child.stdin.write(text),
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
}

const SIX_BY_SEVEN = JSON.stringify({ command: 'echo $((6*7))' });

describe('approval prompts', () => {
  it('fail closed without a terminal (APPROVAL_REQUIRED), exit 1', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    try {
      const result = await runToolhost(['call', 'bash', SIX_BY_SEVEN, '--approval', 'strict'], {
        cwd: project.root,
      });
      assert.equal(result.code, 1);
      assert.match(result.stdout, /^APPROVAL_REQUIRED: /);
      assert.doesNotMatch(result.stdout, /42/);
    } finally {
      await project.cleanup();
    }
  });

  it('asks on a terminal: y runs the call once, n denies it (APPROVAL_DENIED)', {
    skip: !hasScript && 'util-linux script is not installed',
  }, async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    for (const [answer, expected, code] of [
      ['y', /\b42\b/, 0],
      ['n', /APPROVAL_DENIED: /, 1],
    ] as const) {
      const terminal = await inTerminal(project.root, ['call', 'bash', SIX_BY_SEVEN, '--approval', 'strict']);
      try {
        await waitFor(() => terminal.output().includes('Allow?'), PROCESS_TIMEOUT_MS);
        assert.match(terminal.output(), /approval needed/);
        terminal.type(`${answer}\r`);
        assert.equal(await terminal.exited, code, terminal.output());
        const afterPrompt = terminal.output().slice(terminal.output().indexOf('Allow?'));
        assert.match(afterPrompt, expected);
        if (answer === 'n') assert.doesNotMatch(afterPrompt, /\b42\b/);
      } finally {
        terminal.kill();
      }
    }
    await project.cleanup();
  });

  it('remembers "always for this run" for the same command in `run`', {
    skip: !hasScript && 'util-linux script is not installed',
  }, async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    const fake = await startFakeProvider({
      dialect: 'openai-chat',
      script: (request) =>
        request.turn < 2
          ? { calls: [{ name: 'bash', arguments: { command: 'echo $((6*7))' } }] }
          : { text: `results: ${request.results.map((result) => result.text.trim()).join(' ')}` },
    });
    const terminal = await inTerminal(project.root, [
      'run',
      '--provider',
      'openai-compatible',
      '--base-url',
      fake.baseUrl,
      '--model',
      'fake-model',
      '--approval',
      'strict',
    ]);
    try {
      await waitFor(() => terminal.output().includes('Allow?'), PROCESS_TIMEOUT_MS);
      terminal.type('a\r');
      assert.equal(await terminal.exited, 0, terminal.output());
      assert.equal(terminal.output().split('Allow?').length - 1, 1, 'asked once, then remembered');
      assert.equal(fake.requests.length, 3);
      assert.match(fake.requests[1]!.results[0]!.text, /42/);
      assert.match(fake.requests[2]!.results[0]!.text, /42/);
    } finally {
      terminal.kill();
      await fake.close();
      await project.cleanup();
    }
  });
});
