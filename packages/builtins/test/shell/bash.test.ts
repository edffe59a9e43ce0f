import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JobManager, StartJobOptions } from '@toolhost/jobs';
import { processesMatching, resultText, shellFixture, uniqueTag, waitUntil } from './shell-helpers.js';

describe('createBashTool', () => {
  it('returns the merged output of a successful command with its facts (SH-1)', async (t) => {
    const shell = shellFixture(t);
    const result = await shell.call('bash', {
      command: 'echo out; echo err >&2; echo done',
      description: 'Print things',
    });
    assert.ok(result.ok);
    assert.equal(resultText(result), 'out\nerr\ndone');
    const details = result.output.details!;
    assert.equal(details.jobId, 'bash-1');
    assert.equal(details.exitCode, 0);
    assert.equal(details.workdir, '.');
    assert.equal(details.truncated, false);
    const empty = await shell.call('bash', { command: 'true' });
    assert.ok(empty.ok);
    assert.equal(resultText(empty), '(no output)');
  });

  it('reports a non-zero exit as COMMAND_FAILED that still carries all the output (SH-2)', async (t) => {
    const shell = shellFixture(t);
    const result = await shell.call('bash', { command: 'echo first; echo problem >&2; exit 3' });
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'COMMAND_FAILED');
    assert.equal(result.error.details.exitCode, 3);
    assert.match(result.error.toModelText(), /^COMMAND_FAILED: the command exited with code 3; /);
    assert.equal(
      result.output?.content[0]?.type === 'text' && result.output.content[0].text,
      'first\nproblem',
    );
    assert.equal(result.output?.details?.exitCode, 3);
  });

  it('kills the whole tree on timeout and returns TIMEOUT with the output so far (SH-3)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    const result = await shell.call('bash', {
      command: `echo started; setsid sleep ${tag} & (trap '' TERM; sleep ${tag}) & sleep ${tag}`,
      timeout_ms: 700,
    });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'TIMEOUT');
    assert.match(result.error.message, /timed out \(> 700ms\) and its process tree was killed/);
    assert.match(resultText(result), /\nstarted(\n|$)/);
    assert.deepEqual(
      processesMatching(`sleep ${tag}`),
      [],
      'setsid and TERM-ignoring grandchildren are gone',
    );
  });

  it('applies a 120 s foreground timeout by default and never more than 600 s (SH-3)', async (t) => {
    const seen: StartJobOptions[] = [];
    const shell = shellFixture(t);
    const spy = new Proxy(shell.jobs, {
      get(target, property, receiver) {
        if (property === 'start') {
          return (options: StartJobOptions) => {
            seen.push(options);
            return target.start(options);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    }) as JobManager;
    const { createBashTool } = await import('../../src/index.js');
    const { createPathPolicy } = await import('@toolhost/path-policy');
    const tool = createBashTool({
      jobs: spy,
      pathPolicy: createPathPolicy({ mode: 'current_project', root: shell.root }),
      platform: 'posix',
    });
    const context = {
      callId: 'c',
      toolName: 'bash',
      signal: new AbortController().signal,
      invocation: { kind: 'direct' as const },
    };
    await tool.execute({ command: 'true' }, context);
    await tool.execute({ command: 'true', timeout_ms: 600_000 }, context);
    await tool.execute({ command: 'true', run_in_background: true, timeout_ms: 5 }, context);
    assert.equal(seen[0]?.timeoutMs, 120_000);
    assert.equal(seen[1]?.timeoutMs, 600_000);
    assert.equal(seen[2]?.timeoutMs, undefined, 'timeout_ms does not apply to background runs');
    assert.equal(seen[2]?.signal, undefined, 'a background job outlives the call');
    const { formatDuration } = await import('../../src/shell/shell-format.js');
    assert.equal(formatDuration(120_000), '2m0s');
    assert.equal(formatDuration(90_500), '1m30.5s');
    assert.equal(formatDuration(30_000), '30s');
  });

  it('stops the command when the call is cancelled (ABORTED)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    const controller = new AbortController();
    const pending = shell.call('bash', { command: `sleep ${tag}` }, controller.signal);
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    controller.abort();
    const result = await pending;
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'ABORTED');
    assert.deepEqual(processesMatching(`sleep ${tag}`), []);
  });

  it('starts a background job and returns its id at once (SH-4)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    const first = await shell.call('bash', { command: 'true' });
    assert.ok(first.ok);
    const result = await shell.call('bash', { command: `sleep ${tag}`, run_in_background: true });
    assert.ok(result.ok);
    assert.equal(
      resultText(result),
      'Started background job "bash-2". It keeps running across turns; read it with job_output(job_id="bash-2") or stop it with job_kill(job_id="bash-2").',
    );
    await waitUntil('the sleeper runs', () => processesMatching(`sleep ${tag}`).length === 1);
    assert.equal(shell.jobs.get('bash-2')?.state, 'running');
  });

  it('returns when the main process exits even if a grandchild keeps stdout open (SH-5)', async (t) => {
    const shell = shellFixture(t);
    const tag = uniqueTag(t);
    const result = await shell.call('bash', { command: `sleep ${tag} & echo main done` });
    assert.ok(result.ok);
    assert.equal(resultText(result), 'main done');
    assert.deepEqual(processesMatching(`sleep ${tag}`), [], 'the left-behind grandchild ends with the job');
  });

  it('resolves workdir through the path policy and refuses escapes before spawning (SH-6)', async (t) => {
    const shell = shellFixture(t);
    mkdirSync(path.join(shell.root, 'pkg', 'sub'), { recursive: true });
    writeFileSync(path.join(shell.root, 'file.txt'), '');
    const inside = await shell.call('bash', { command: 'pwd', workdir: 'pkg/sub' });
    assert.ok(inside.ok);
    assert.equal(resultText(inside), path.join(shell.root, 'pkg', 'sub'));
    assert.equal(inside.output.details?.workdir, 'pkg/sub');
    const cases: Array<[string, string]> = [
      ['..', 'PATH_OUTSIDE_ROOT'],
      ['/etc', 'PATH_OUTSIDE_ROOT'],
      ['missing', 'FS_NOT_FOUND'],
      ['file.txt', 'NOT_A_DIRECTORY'],
    ];
    for (const [workdir, code] of cases) {
      const result = await shell.call('bash', { command: 'touch spawned', workdir });
      assert.ok(!result.ok, workdir);
      assert.equal(result.error.code, code, workdir);
    }
    assert.equal(shell.jobs.list().length, 1, 'nothing was spawned for the refused calls');
    assert.equal(existsSync(path.join(shell.root, 'spawned')), false);
  });

  it('bounds large output to a head and a tail and says how to read the rest (SH-1)', async (t) => {
    // A small bound, so the test stays small: the default (8 MiB) is tested below.
    const shell = shellFixture(t, { tools: { outputBytes: 64 * 1024 } });
    const result = await shell.call('bash', { command: "seq -f '%07g' 1 500000" });
    assert.ok(result.ok);
    const text = resultText(result);
    assert.ok(Buffer.byteLength(text) < 64 * 1024 + 600, String(Buffer.byteLength(text)));
    assert.ok(text.startsWith('0000001\n0000002\n'));
    // The tail ends the output; the last line says the result is not all of it (issue 16).
    assert.match(
      text,
      /\n0499999\n0500000\n\[This result is not the whole output: the command printed 4000000 bytes, more than the 65536 bytes one result keeps, so bytes \d+-\d+ are left out \(see the marker above\); the whole output is in [^\n]+\.\]$/,
    );
    assert.equal(result.output.details?.truncated, true);
    const recipe = /read a range with: (tail -c \+\d+ '[^']+' \| head -c 65536)/.exec(text);
    assert.ok(recipe, 'the marker names a command that reads the omitted range');
    const omitted = await shell.call('bash', { command: recipe[1]! });
    assert.ok(omitted.ok);
    const firstOmitted = Number(resultText(omitted).split('\n')[0]);
    const lastShownHead = Number(text.split('\n[...')[0]!.trim().split('\n').at(-1));
    assert.equal(firstOmitted, lastShownHead + 1, 'the recipe continues exactly where the head stops');
  });

  it('returns the whole output of seq 1 30000 (168,894 bytes), where it used to keep 64 KiB of it, so the host stores it whole', async (t) => {
    const shell = shellFixture(t);
    const result = await shell.call('bash', { command: 'seq 1 30000' });
    assert.ok(result.ok);
    const expected = Array.from({ length: 30_000 }, (_, index) => String(index + 1)).join('\n');
    assert.equal(Buffer.byteLength(expected) + 1, 168_894);
    assert.equal(resultText(result), expected);
    assert.equal(result.output.details?.truncated, false);
  });

  it('says at its end that a result is not the whole output beyond the 8 MiB bound, and names the job log', async (t) => {
    const shell = shellFixture(t);
    const result = await shell.call('bash', { command: 'seq -w 1 1200000' });
    assert.ok(result.ok);
    const text = resultText(result);
    assert.equal(result.output.details?.truncated, true);
    assert.ok(Buffer.byteLength(text) < 8 * 1024 * 1024 + 1000);
    assert.ok(text.startsWith('0000001\n'));
    const logPath = String(result.output.details?.logPath);
    assert.ok(
      text.endsWith(
        `\n1200000\n[This result is not the whole output: the command printed 9600000 bytes, more than the 8388608 bytes one result keeps, so bytes ${text.indexOf('\n[... ')}-${text.indexOf('\n[... ') + (9_600_000 - 8_388_608) - 1} are left out (see the marker above); the whole output is in ${logPath}.]`,
      ),
      text.slice(-400),
    );
  });

  it('keeps secrets of the host environment out of env and printenv (JOB-ENV-2)', async (t) => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-do-not-leak-this-value';
    process.env.SHELL_TEST_API_KEY = 'do-not-leak-this-value-either';
    t.after(() => {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      delete process.env.SHELL_TEST_API_KEY;
    });
    for (const mode of ['danger_full_access', 'read_only'] as const) {
      const shell = shellFixture(t, { mode });
      const result = await shell.call('bash', { command: 'env; printenv OPENAI_API_KEY; echo end' });
      assert.ok(result.ok, mode);
      assert.ok(!resultText(result).includes('do-not-leak'), mode);
      assert.match(resultText(result), /^PATH=/m);
    }
  });

  it('runs inside the read_only sandbox, where writes fail and change nothing', async (t) => {
    const shell = shellFixture(t, { mode: 'read_only' });
    const result = await shell.call('bash', { command: 'echo x > created.txt' });
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'COMMAND_FAILED');
    assert.match(resultText(result), /Read-only file system/);
    assert.equal(existsSync(path.join(shell.root, 'created.txt')), false);
    assert.equal(result.error.details.exitCode, 1);
  });

  it('passes SANDBOX_UNAVAILABLE on and spawns nothing when the sandbox does not work (SH-7, SB-1)', async (t) => {
    const shell = shellFixture(t);
    const bin = path.join(shell.root, 'fake-bwrap');
    writeFileSync(bin, '#!/bin/sh\nexit 1\n');
    chmodSync(bin, 0o755);
    const { createJobManager } = await import('@toolhost/jobs');
    const { createPathPolicy } = await import('@toolhost/path-policy');
    const { createBashTool } = await import('../../src/index.js');
    const jobs = createJobManager({
      sandbox: { mode: 'workspace_write', roots: [shell.root], bubblewrapPath: bin },
    });
    t.after(() => jobs.close());
    const tool = createBashTool({
      jobs,
      pathPolicy: createPathPolicy({ mode: 'current_project', root: shell.root }),
      platform: 'posix',
    });
    const result = await tool.execute(
      { command: 'touch spawned' },
      { callId: 'c', toolName: 'bash', signal: new AbortController().signal, invocation: { kind: 'direct' } },
    );
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'SANDBOX_UNAVAILABLE');
    assert.equal(existsSync(path.join(shell.root, 'spawned')), false);
  });

  it('names toolhost doctor in the recovery of SANDBOX_UNAVAILABLE (issue 23: without bubblewrap every shell call failed with no next step)', async (t) => {
    const shell = shellFixture(t);
    const { createJobManager } = await import('@toolhost/jobs');
    const { createPathPolicy } = await import('@toolhost/path-policy');
    const { createBashTool } = await import('../../src/index.js');
    const jobs = createJobManager({
      sandbox: {
        mode: 'read_only',
        roots: [shell.root],
        bubblewrapPath: path.join(shell.root, 'no-bwrap-here'),
      },
    });
    t.after(() => jobs.close());
    const tool = createBashTool({
      jobs,
      pathPolicy: createPathPolicy({ mode: 'current_project', root: shell.root }),
      platform: 'posix',
    });
    const result = await tool.execute(
      { command: 'echo hi' },
      { callId: 'c', toolName: 'bash', signal: new AbortController().signal, invocation: { kind: 'direct' } },
    );
    assert.ok(!result.ok);
    assert.equal(result.error.code, 'SANDBOX_UNAVAILABLE');
    assert.match(
      resultText(result),
      /^SANDBOX_UNAVAILABLE: .+; ask the user to run `toolhost doctor`, which names what is missing here and the command that installs it/,
    );
  });

  it('declares the command as the permission subject and the workdir as its path', (t) => {
    const shell = shellFixture(t);
    const bash = shell.tools.get('bash')!;
    const args = { command: 'git status --short', workdir: 'pkg', description: 'Show changes' };
    assert.equal(bash.permission?.subject?.(args), 'git status --short');
    assert.deepEqual(bash.permission?.paths?.(args), [{ argument: 'workdir', path: 'pkg', access: 'list' }]);
    assert.equal(bash.permission?.preview?.(args), 'bash$ git status --short  # Show changes');
  });
});
