import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { compileHookMatcher } from '../src/hook-config.js';
import {
  type AuditEvent,
  configDigest,
  createHost,
  type HooksConfig,
  type Host,
  type HostOptions,
  writeProjectTrust,
} from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

const require = createRequire(import.meta.url);
const everythingBin = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let root: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
const hosts: Host[] = [];

beforeEach(() => {
  root = tempRoot();
  outside = tempRoot('toolhost-hooks-outside-');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
  outside.cleanup();
});

/**
 * Writes a hook script (an ES module run by this node) under the project and returns its command.
 * The script gets `input` (the parsed stdin), `log(name, value)` to append a JSON line to
 * `<root>/hook-log/<name>.jsonl`, and `reply(object)` / `block(text)`.
 */
function hookScript(name: string, body: string): string {
  const dir = join(root.dir, 'hooks');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { appendFileSync, mkdirSync } from 'node:fs';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const log = (logName, value) => {
  mkdirSync(${JSON.stringify(join(root.dir, 'hook-log'))}, { recursive: true });
  appendFileSync(${JSON.stringify(join(root.dir, 'hook-log'))} + '/' + logName + '.jsonl', JSON.stringify(value) + '\\n');
};
const reply = (object) => { process.stdout.write(JSON.stringify(object)); process.exit(0); };
const block = (text) => { process.stderr.write(text); process.exit(2); };
${body}
`,
  );
  return `"${process.execPath}" "${file}"`;
}

function hookLog(name: string): Record<string, unknown>[] {
  const file = join(root.dir, 'hook-log', `${name}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function host(hooks: HooksConfig, options: HostOptions = {}): Promise<Host> {
  const config = typeof options.config === 'object' && options.config ? options.config : {};
  const created = await createHost({
    root: root.dir,
    sandbox: 'workspace_write',
    ...options,
    config: { ...config, hooks },
  });
  hosts.push(created);
  return created;
}

/** Whether a process is alive and not a zombie (Linux /proc; elsewhere by signal 0). */
function isRunning(pid: number): boolean {
  try {
    if (process.platform === 'linux') {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    }
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

function hookEvents(events: readonly AuditEvent[]): AuditEvent[] {
  return events.filter((event) => event.type === 'hook-decided');
}

const preBash = (command: string): HooksConfig => ({
  PreToolUse: [{ matcher: 'bash', hooks: [{ type: 'command', command }] }],
});

describe('PreToolUse hooks', () => {
  it('block a bash command containing rm -rf (exit 2) with the hook stderr in the result, and nothing runs', async () => {
    mkdirSync(join(root.dir, 'victim'));
    writeFileSync(join(root.dir, 'victim', 'keep.txt'), 'keep\n');
    const guard = hookScript(
      'no-rm-rf',
      `log('guard', input);
if (String(input.tool_input?.command ?? '').includes('rm -rf')) block('rm -rf is not allowed in this project; delete files one by one');
process.exit(0);`,
    );
    const sink = auditSink();
    const h = await host(preBash(guard), { onAudit: sink.onAudit });
    const refused = await h.dispatch({ id: 'rm', name: 'bash', arguments: { command: 'rm -rf victim' } });
    assert.equal(refused.status, 'error');
    assert.equal(refused.error?.code, 'HOOK_BLOCKED', refused.output);
    assert.match(
      refused.output,
      /^HOOK_BLOCKED: a PreToolUse hook refused "bash": rm -rf is not allowed in this project/,
    );
    assert.ok(existsSync(join(root.dir, 'victim', 'keep.txt')), 'the command did not run');
    assert.ok(!sink.types('rm').includes('call-started'));
    const allowed = await h.dispatch({ id: 'ok', name: 'bash', arguments: { command: 'echo fine' } });
    assert.equal(allowed.status, 'ok', allowed.output);
    assert.match(allowed.output, /fine/);
    const seen = hookLog('guard');
    assert.equal(seen.length, 2);
    assert.equal(seen[0]?.hook_event_name, 'PreToolUse');
    assert.equal(seen[0]?.tool_name, 'bash');
    assert.equal(seen[0]?.cwd, root.dir);
    assert.equal(seen[0]?.session_id, h.defaultSession().id);
    assert.equal(seen[0]?.tool_use_id, 'rm');
    assert.equal(seen[0]?.permission_mode, 'default');
    assert.deepEqual(
      hookEvents(sink.events).map((event) => [event.callId, event.verdict, event.exitCode]),
      [
        ['rm', 'block', 2],
        ['ok', 'continue', 0],
      ],
    );
    // The audit names the hook by its place, never by its output.
    const blockedEvent = hookEvents(sink.events)[0] as AuditEvent;
    assert.equal(blockedEvent.hook, 'hooks.PreToolUse[0].hooks[0]');
    assert.ok(!JSON.stringify(sink.events).includes('delete files one by one'));
  });

  it('run after the permission step: a hook allow never overrides a PATH_OUTSIDE_ROOT refusal', async () => {
    writeFileSync(join(outside.dir, 'secret.txt'), 'outside\n');
    const allowAll = hookScript(
      'allow-all',
      `log('allow', input); reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'all reads are fine' } });`,
    );
    const h = await host({
      PreToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: allowAll }] }],
    });
    const result = await h.dispatch({
      name: 'read_file',
      arguments: { path: join(outside.dir, 'secret.txt') },
    });
    assert.equal(result.error?.code, 'PATH_OUTSIDE_ROOT', result.output);
    assert.doesNotMatch(result.output, /^outside$/m);
    assert.equal(hookLog('allow').length, 0, 'a refused call never reaches its hooks');
    writeFileSync(join(root.dir, 'inside.txt'), 'inside\n');
    const inside = await h.dispatch({ name: 'read_file', arguments: { path: 'inside.txt' } });
    assert.equal(inside.status, 'ok', inside.output);
    assert.equal(hookLog('allow').length, 1);
  });

  it('send an updatedInput with an invalid argument back through validation: ARGUMENT_VALIDATION and nothing runs', async () => {
    const rewrite = hookScript(
      'bad-rewrite',
      `reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 42 } } });`,
    );
    const sink = auditSink();
    const h = await host(preBash(rewrite), { onAudit: sink.onAudit });
    const result = await h.dispatch({
      id: 'bad',
      name: 'bash',
      arguments: { command: 'touch ran.txt' },
    });
    assert.equal(result.error?.code, 'ARGUMENT_VALIDATION', result.output);
    assert.ok(!existsSync(join(root.dir, 'ran.txt')), 'neither the original nor the rewrite ran');
    assert.ok(!sink.types('bad').includes('call-started'));
    const validated = sink.events.filter(
      (event) => event.type === 'call-validated' && event.callId === 'bad',
    );
    assert.deepEqual(
      validated.map((event) => [event.ok, event.replacedBy ?? null]),
      [
        [true, null],
        [false, 'hook:PreToolUse'],
      ],
    );
  });

  it('run a valid updatedInput as the rewritten call, re-permitted (a rewrite outside the root is refused)', async () => {
    const rewrite = hookScript(
      'rewrite',
      `const command = String(input.tool_input.command);
const next = command === 'echo original' ? 'echo rewritten' : command === 'echo escape' ? 'cat ${join(outside.dir, 'x.txt')}' : command;
reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...input.tool_input, command: next } } });`,
    );
    const h = await host(preBash(rewrite));
    const result = await h.dispatch({ name: 'bash', arguments: { command: 'echo original' } });
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /rewritten/);
    assert.doesNotMatch(result.output, /original/);
    // A read_file rewritten to a path outside the root meets the path policy again.
    const readRewrite = hookScript(
      'read-rewrite',
      `reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { path: ${JSON.stringify(join(outside.dir, 'x.txt'))} } } });`,
    );
    writeFileSync(join(outside.dir, 'x.txt'), 'outside\n');
    writeFileSync(join(root.dir, 'in.txt'), 'inside\n');
    const h2 = await host({
      PreToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: readRewrite }] }],
    });
    const escaped = await h2.dispatch({ name: 'read_file', arguments: { path: 'in.txt' } });
    assert.equal(escaped.error?.code, 'PATH_OUTSIDE_ROOT', escaped.output);
  });

  it('ask a person for permissionDecision "ask", and fail closed when no one can be asked', async () => {
    const asker = hookScript(
      'asker',
      `reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'commands that touch git need a look' } });`,
    );
    const asked: string[] = [];
    const h = await host(preBash(asker), {
      approve: (request) => {
        asked.push(`${request.decisionSource}:${request.reason}:${request.choices.join('/')}`);
        return 'allow_once';
      },
    });
    const result = await h.dispatch({ name: 'bash', arguments: { command: 'echo asked' } });
    assert.equal(result.status, 'ok', result.output);
    assert.deepEqual(asked, ['hook:commands that touch git need a look:allow_once/deny']);
    const nobody = await host(preBash(asker));
    const refused = await nobody.dispatch({ name: 'bash', arguments: { command: 'echo asked' } });
    assert.equal(refused.error?.code, 'APPROVAL_REQUIRED', refused.output);
  });

  it('record a failing or timed-out hook as a non-blocking error and kill its process group on timeout', async () => {
    const failing = hookScript('failing', `process.stderr.write('oops'); process.exit(1);`);
    const slowDir = join(root.dir, 'slow');
    mkdirSync(slowDir);
    const slow = `sh -c 'sleep 987 & echo $! > ${slowDir}/child.pid; sleep 986'`;
    const sink = auditSink();
    const h = await host(
      {
        PreToolUse: [
          {
            matcher: '^b.sh$',
            hooks: [
              { type: 'command', command: failing },
              { type: 'command', command: slow, timeout: 2 },
            ],
          },
        ],
      },
      { onAudit: sink.onAudit },
    );
    const result = await h.dispatch({ name: 'bash', arguments: { command: 'echo still-runs' } });
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /still-runs/);
    const decided = hookEvents(sink.events).map((event) => [event.hook, event.verdict, event.ending]);
    assert.deepEqual(decided, [
      ['hooks.PreToolUse[0].hooks[0]', 'error', 'exited'],
      ['hooks.PreToolUse[0].hooks[1]', 'error', 'timeout'],
    ]);
    const pid = Number(readFileSync(join(slowDir, 'child.pid'), 'utf8'));
    assert.ok(pid > 0);
    // Killed with its group; it may stay a zombie for a moment until it is reaped.
    await waitFor(() => !isRunning(pid), 10_000);
    assert.equal(isRunning(pid), false, 'the hook group was killed, background child included');
  });

  it('see MCP tools as mcp__<server>__<tool>: a rewrite at the proxy seam runs the rewritten MCP call', async () => {
    const rewrite = hookScript(
      'mcp-rewrite',
      `log('mcp', { tool: input.tool_name, input: input.tool_input });
if (input.tool_name === 'mcp__everything__echo' && input.tool_input.message === 'secret') reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { message: 'redacted' } } });
process.exit(0);`,
    );
    const h = await host(
      {
        PreToolUse: [
          {
            matcher: 'mcp__everything__.*|mcp_connect__everything',
            hooks: [{ type: 'command', command: rewrite }],
          },
        ],
      },
      {
        config: {
          mcpServers: {
            // A generous handshake: the machine running the suite may be loaded.
            everything: {
              command: process.execPath,
              args: [everythingBin, 'stdio'],
              trusted: true,
              timeouts: { handshakeMs: 60_000 },
            },
          },
        },
      },
    );
    const result = await h.dispatch({
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'mcp-tool:everything/echo',
        arguments: { message: 'secret' },
      },
    });
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /Echo: redacted/);
    assert.doesNotMatch(result.output, /secret/);
    assert.deepEqual(
      hookLog('mcp').map((entry) => entry.tool),
      ['mcp_connect__everything', 'mcp__everything__echo'],
      'each target is hooked once per call; the rewritten call is not hooked again',
    );
  });

  it('start no server process when a hook blocks mcp_connect__<server> (mcp-server:<server> and an MCP tool of it)', async () => {
    const marker = join(root.dir, 'server-started');
    const server = {
      command: process.execPath,
      args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
    };
    const blocker = hookScript('no-connect', `block('this server is not allowed today');`);
    const blocked = await host(
      { PreToolUse: [{ matcher: 'mcp_connect__marker', hooks: [{ type: 'command', command: blocker }] }] },
      { config: { mcpServers: { marker: server } } },
    );
    const call = {
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'mcp-tool:marker/anything', arguments: {} },
    };
    const result = await blocked.dispatch(call);
    assert.equal(result.error?.code, 'HOOK_BLOCKED', result.output);
    assert.match(result.output, /this server is not allowed today/);
    assert.ok(!existsSync(marker), 'no process was started');
    // Connecting the server itself (mcp-server:<server>) is the same call at the same seam.
    const connect = await blocked.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'mcp-server:marker' },
    });
    assert.equal(connect.error?.code, 'HOOK_BLOCKED', connect.output);
    assert.match(connect.output, /this server is not allowed today/);
    assert.ok(!existsSync(marker), 'no process was started for mcp-server:marker');
    // The same server without the hook does start (the marker proves the test can see a start).
    const open = await host({}, { config: { mcpServers: { marker: server } } });
    await open.dispatch(call);
    assert.ok(existsSync(marker), 'without the hook the server process starts');
  });
});

describe('hook audit', () => {
  it('records every hook decision in the audit log: block, deny, ask, allow, rewrite, continue, error', async () => {
    const verdict = hookScript(
      'verdicts',
      `const command = String(input.tool_input?.command ?? '');
const say = (decision, extra = {}) => reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: 'because', ...extra } });
if (command === 'echo block') block('no');
if (command === 'echo deny') say('deny');
if (command === 'echo ask') say('ask');
if (command === 'echo allow') say('allow');
if (command === 'echo rewrite') reply({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'echo rewritten' } } });
if (command === 'echo fail') process.exit(3);
process.exit(0);`,
    );
    const sink = auditSink();
    const h = await host(preBash(verdict), { onAudit: sink.onAudit, approve: () => 'allow_once' });
    const expected: [string, string][] = [
      ['echo block', 'block'],
      ['echo deny', 'deny'],
      ['echo ask', 'ask'],
      ['echo allow', 'allow'],
      ['echo rewrite', 'continue'],
      ['echo plain', 'continue'],
      ['echo fail', 'error'],
    ];
    for (const [command] of expected) await h.dispatch({ id: command, name: 'bash', arguments: { command } });
    assert.deepEqual(
      expected.map(([command]) =>
        hookEvents(sink.events)
          .filter((event) => event.callId === command)
          .map((event) => event.verdict),
      ),
      expected.map(([, decided]) => [decided]),
    );
    const rewrite = hookEvents(sink.events).find((event) => event.callId === 'echo rewrite');
    assert.equal(rewrite?.updatedInput, true);
    for (const event of hookEvents(sink.events)) {
      assert.equal(event.event, 'PreToolUse');
      assert.equal(event.toolName, 'bash');
      assert.equal(event.hook, 'hooks.PreToolUse[0].hooks[0]');
      assert.equal(typeof event.durationMs, 'number');
      assert.equal(event.sessionId, h.defaultSession().id);
    }
  });
});

describe('PostToolUse hooks', () => {
  it('receive tool_response, and their context and feedback reach the model after the result', async () => {
    writeFileSync(join(root.dir, 'notes.txt'), 'alpha beta\n');
    const post = hookScript(
      'post',
      `log('post', input);
reply({ decision: 'block', reason: 'notes.txt is generated; edit notes.src instead', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'the notes are in English' } });`,
    );
    const sink = auditSink();
    const h = await host(
      { PostToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: post }] }] },
      { onAudit: sink.onAudit },
    );
    const result = await h.dispatch({ id: 'r1', name: 'read_file', arguments: { path: 'notes.txt' } });
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /alpha beta/);
    assert.match(
      result.output,
      /\[PostToolUse hook feedback\] notes\.txt is generated; edit notes\.src instead/,
    );
    assert.match(result.output, /\[PostToolUse hook\] the notes are in English/);
    const [seen] = hookLog('post');
    assert.equal(seen?.hook_event_name, 'PostToolUse');
    assert.equal(seen?.tool_name, 'read_file');
    assert.deepEqual(seen?.tool_input, { path: 'notes.txt' });
    const response = seen?.tool_response as { status: string; output: string; error: unknown };
    assert.equal(response.status, 'ok');
    assert.match(response.output, /alpha beta/);
    assert.equal(response.error, null);
    const types = sink.types('r1');
    assert.ok(types.indexOf('hook-decided') > types.indexOf('call-started'));
    assert.ok(types.indexOf('hook-decided') < types.indexOf('call-finished'));
  });
});

describe('session hooks', () => {
  it('run SessionStart (its stdout becomes context for the model) and SessionEnd', async () => {
    const startHook = hookScript(
      'start',
      `log('start', input); process.stdout.write('Remember: run pnpm test before you finish.');`,
    );
    const endHook = hookScript('end', `log('end', input);`);
    const h = await host({
      SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: startHook }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: endHook }] }],
    });
    const session = await h.openSession({ persist: false });
    assert.equal(hookLog('start').length, 1, 'openSession waits for SessionStart');
    assert.equal(hookLog('start')[0]?.source, 'startup');
    assert.equal(hookLog('start')[0]?.session_id, session.id);
    assert.match(session.drainNotes() ?? '', /Remember: run pnpm test before you finish\./);
    await session.close();
    assert.equal(hookLog('end').length, 1);
    assert.equal(hookLog('end')[0]?.hook_event_name, 'SessionEnd');
  });
});

describe('hook configuration', () => {
  it("does not run an untrusted project configuration's hooks, and reports them as ignored", async () => {
    const marker = join(root.dir, 'ran');
    writeFileSync(
      join(root.dir, 'toolhost.config.json'),
      JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] },
      }),
    );
    const h = await createHost({ root: root.dir, userConfigDir: join(outside.dir, 'user') });
    hosts.push(h);
    assert.deepEqual(
      h.configReport.ignored.map((entry) => entry.field),
      ['hooks.PreToolUse[0].hooks[0]'],
    );
    writeFileSync(join(root.dir, 'a.txt'), 'a\n');
    assert.equal((await h.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } })).status, 'ok');
    assert.ok(!existsSync(marker), 'the project hook did not run');
    // The same file passed explicitly (--config) is the user's choice: its hooks run.
    const explicit = await createHost({ root: root.dir, config: join(root.dir, 'toolhost.config.json') });
    hosts.push(explicit);
    assert.equal((await explicit.dispatch({ name: 'read_file', arguments: { path: 'a.txt' } })).status, 'ok');
    assert.ok(existsSync(marker), 'an explicit configuration runs its hooks');
  });

  it("runs the user's own hooks beside an untrusted project's (whose hooks are ignored), and a trusted project's hooks too", async () => {
    const userDir = join(outside.dir, 'user');
    mkdirSync(userDir, { recursive: true });
    const userHook = hookScript('user-hook', `log('user', input.tool_name); process.exit(0);`);
    const projectHook = hookScript('project-hook', `log('project', input.tool_name); process.exit(0);`);
    const userConfig = join(userDir, 'config.json');
    writeFileSync(userConfig, JSON.stringify({ hooks: preBash(userHook) }));
    const projectConfig = join(root.dir, 'toolhost.config.json');
    writeFileSync(projectConfig, JSON.stringify({ hooks: preBash(projectHook) }));
    const open = async () => {
      const created = await createHost({
        root: root.dir,
        sandbox: 'workspace_write',
        userConfig,
        userConfigDir: userDir,
      });
      hosts.push(created);
      return created;
    };
    const untrusted = await open();
    assert.deepEqual(
      untrusted.configReport.ignored.map((entry) => entry.field),
      ['hooks.PreToolUse[0].hooks[0]'],
    );
    assert.equal((await untrusted.dispatch({ name: 'bash', arguments: { command: 'true' } })).status, 'ok');
    assert.deepEqual(hookLog('user'), ['bash']);
    assert.deepEqual(hookLog('project'), [], 'the untrusted project hook did not run');
    // `toolhost trust` approves these exact bytes: the project's hooks run after the user's.
    writeProjectTrust(userDir, projectConfig, configDigest(readFileSync(projectConfig)));
    const trusted = await open();
    assert.deepEqual(trusted.configReport.ignored, []);
    assert.equal((await trusted.dispatch({ name: 'bash', arguments: { command: 'true' } })).status, 'ok');
    assert.deepEqual(hookLog('user'), ['bash', 'bash']);
    assert.deepEqual(hookLog('project'), ['bash']);
  });

  it("runs hooks under the shell sandbox's environment rules: a host API_TOKEN stays hidden, PATH passes, the project dir is set", async () => {
    const saved = { API_TOKEN: process.env.API_TOKEN, TOOLHOST_HOOK_PROBE: process.env.TOOLHOST_HOOK_PROBE };
    process.env.API_TOKEN = 'hook-env-secret-value';
    process.env.TOOLHOST_HOOK_PROBE = 'not-on-the-allowlist';
    try {
      const probe = hookScript(
        'env-probe',
        `log('env', {
  token: process.env.API_TOKEN ?? null,
  probe: process.env.TOOLHOST_HOOK_PROBE ?? null,
  path: typeof process.env.PATH === 'string' && process.env.PATH.length > 0,
  projectDir: process.env.TOOLHOST_PROJECT_DIR ?? null,
  claudeProjectDir: process.env.CLAUDE_PROJECT_DIR ?? null,
});
process.exit(0);`,
      );
      const h = await host({ PreToolUse: [{ matcher: 'ls', hooks: [{ type: 'command', command: probe }] }] });
      const listed = await h.dispatch({ name: 'ls', arguments: {} });
      assert.equal(listed.status, 'ok', listed.output);
      assert.deepEqual(hookLog('env'), [
        { token: null, probe: null, path: true, projectDir: root.dir, claudeProjectDir: root.dir },
      ]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('reads matchers as Claude Code does: a plain name or a|b list matches whole names, anything else is a regular expression searched in the name', () => {
    const names = [
      'bash',
      'bash_output',
      'write_file',
      'edit_file',
      'mcp__github__create_issue',
      'mcp_connect__github',
    ];
    const matching = (matcher: string | undefined) => {
      const compiled = compileHookMatcher(matcher);
      assert.ok(compiled.ok, String(matcher));
      return names.filter((name) => compiled.value.matches(name));
    };
    assert.deepEqual(matching('bash'), ['bash']);
    assert.deepEqual(matching('write_file|edit_file'), ['write_file', 'edit_file']);
    assert.deepEqual(matching('mcp__github__.*'), ['mcp__github__create_issue']);
    assert.deepEqual(matching('^mcp_connect__'), ['mcp_connect__github']);
    assert.deepEqual(matching('_file$'), ['write_file', 'edit_file']);
    assert.deepEqual(matching(undefined), names);
    assert.deepEqual(matching('*'), names);
    assert.deepEqual(matching(''), names);
  });

  it('refuses unknown events, other hook types and matchers that are not linear-time regular expressions', async () => {
    for (const [hooks, field] of [
      [{ Stop: [] }, 'hooks.Stop'],
      [{ PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] }, 'hooks.PreToolUse[0].hooks[0].type'],
      [
        { PreToolUse: [{ matcher: '(a)\\1', hooks: [{ type: 'command', command: 'x' }] }] },
        'hooks.PreToolUse[0].matcher',
      ],
      [
        { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] },
        'hooks.PreToolUse[0].hooks[0].timeout',
      ],
    ] as const) {
      await assert.rejects(
        createHost({ root: root.dir, config: { hooks: hooks as unknown as HooksConfig } }),
        (error: { code?: string; details?: { field?: string } }) =>
          error.code === 'CONFIG_INVALID' && error.details?.field === field,
        field,
      );
    }
  });
});
