import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  createHost,
  type Host,
  type HostOptions,
} from '../src/index.js';
import { sessionPrefixRule } from '../src/permission-rules.js';
import { auditSink, type ToolLog, tempRoot, toolLog, unannotated } from './helpers.js';

let root: { dir: string; cleanup: () => void };
let log: ToolLog;
const hosts: Host[] = [];

async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, tools: [unannotated(log)], ...options });
  hosts.push(created);
  return created;
}

beforeEach(() => {
  root = tempRoot();
  log = toolLog();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

/** An approve callback that answers from a script and records what it was asked. */
function person(answer: (request: ApprovalRequest) => ApprovalAnswer) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: (request: ApprovalRequest) => {
      asked.push(request);
      return answer(request);
    },
  };
}

const unknown = (command = 'x') => ({ name: 'test_unknown', arguments: { command } });

describe('session approval memory', () => {
  it('does not ask again after "allow for this session" for the same tool in that session, and asks again in a new one', async () => {
    const who = person(() => 'allow_session');
    const sink = auditSink();
    const h = await host({ approve: who.approve, onAudit: sink.onAudit });
    const first = await h.openSession({ persist: false });
    assert.equal((await first.dispatch(unknown('a'))).status, 'ok');
    assert.equal(who.asked.length, 1);
    assert.deepEqual(who.asked[0]?.choices, ['allow_once', 'allow_session', 'deny']);
    assert.equal(who.asked[0]?.remember, 'test_unknown');
    const again = await first.dispatch(unknown('b'));
    assert.equal(again.status, 'ok', again.output);
    assert.equal(again.permission?.type, 'allow');
    assert.equal(who.asked.length, 1, 'remembered for the session');
    assert.deepEqual(log.entries, ['unknown:a', 'unknown:b']);
    assert.ok(sink.events.some((event) => event.type === 'approval-resolved' && event.by === 'session'));
    const second = await h.openSession({ persist: false });
    assert.equal((await second.dispatch(unknown('c'))).status, 'ok');
    assert.equal(who.asked.length, 2, 'a new session asks again');
    // A child is a session of its own.
    const child = await first.openChild();
    await child.dispatch(unknown('d'));
    assert.equal(who.asked.length, 3);
  });

  it("asks a child session's questions of the person its parent session asks", async () => {
    const hostPerson = person(() => 'deny');
    const sessionPerson = person(() => 'allow_once');
    const h = await host({ approve: hostPerson.approve });
    const parent = await h.openSession({ persist: false, approve: sessionPerson.approve });
    const child = await parent.openChild();
    assert.equal((await child.dispatch(unknown('child'))).status, 'ok');
    assert.equal(sessionPerson.asked.length, 1);
    assert.equal(hostPerson.asked.length, 0);
  });

  it('asks again after "allow once", and never remembers what a configured ask rule asks', async () => {
    const once = person(() => 'allow_once');
    const h = await host({ approve: once.approve });
    await h.dispatch(unknown());
    await h.dispatch(unknown());
    assert.equal(once.asked.length, 2);
    const ruled = person(() => 'allow_session');
    const withRule = await host({
      approve: ruled.approve,
      config: { permissions: { ask: ['test_unknown'] } },
    });
    await withRule.dispatch(unknown());
    await withRule.dispatch(unknown());
    assert.equal(ruled.asked.length, 2, 'an ask rule asks every time');
    assert.deepEqual(ruled.asked[0]?.choices, ['allow_once', 'deny']);
    assert.equal(ruled.asked[0]?.remember, undefined);
  });

  it('remembers a shell command by its prefix rule, and a compound command only exactly', async () => {
    const who = person(() => 'allow_session');
    const sink = auditSink();
    const h = await host({
      approve: who.approve,
      approval: 'strict',
      sandbox: 'workspace_write',
      onAudit: sink.onAudit,
    });
    const bash = (command: string) => h.dispatch({ name: 'bash', arguments: { command } });
    assert.equal((await bash('ls -a')).status, 'ok');
    assert.equal(who.asked[0]?.remember, 'bash(ls:*)');
    assert.equal((await bash('ls -la .')).status, 'ok');
    assert.equal(who.asked.length, 1, 'the prefix rule covers it');
    await bash('ls -a && echo more');
    assert.equal(who.asked.length, 2, 'a prefix rule never covers a compound command');
    assert.equal(who.asked[1]?.remember, 'bash(ls -a && echo more)');
    await bash('ls -a && echo more');
    assert.equal(who.asked.length, 2, 'the same compound command is remembered exactly');
    await bash('ls -a && echo other');
    assert.equal(who.asked.length, 3);
    await bash('pwd');
    assert.equal(who.asked.length, 4);
    assert.ok(!JSON.stringify(sink.events).includes('echo more'), 'the audit log names no command');
    assert.equal(sessionPrefixRule('bash', 'git push origin main'), 'bash(git push:*)');
    assert.equal(sessionPrefixRule('bash', 'FOO=1 git push'), undefined);
    assert.equal(sessionPrefixRule('bash', 'echo $(id)'), undefined);
    assert.equal(sessionPrefixRule('bash', '"rm" -rf x'), undefined);
  });

  it('fails closed naming the rule that would allow the call when no one can be asked', async () => {
    const h = await host();
    const result = await h.dispatch(unknown());
    assert.equal(result.error?.code, 'APPROVAL_REQUIRED');
    assert.match(result.output, /"test_unknown" in permissions\.allow of toolhost\.config\.json/);
    const strict = await host({ approval: 'strict', sandbox: 'workspace_write' });
    const shell = await strict.dispatch({ name: 'bash', arguments: { command: 'echo hi' } });
    assert.match(shell.output, /--approval on_request/);
    const unavailable = person(() => ({
      decision: 'unavailable',
      reason: 'the client cannot show questions',
    }));
    const viaClient = await host({ approve: unavailable.approve });
    const answered = await viaClient.dispatch(unknown());
    assert.equal(answered.error?.code, 'APPROVAL_REQUIRED', answered.output);
    assert.match(answered.output, /the client cannot show questions/);
    assert.deepEqual(log.entries, []);
  });
});
