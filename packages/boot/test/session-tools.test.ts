import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, textResult } from '@toolhost/contracts';
import {
  type ConversationPort,
  createHost,
  type DispatchResult,
  type Host,
  type HostOptions,
} from '../src/index.js';
import { auditSink, tempRoot } from './helpers.js';

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
async function host(options: HostOptions = {}): Promise<Host> {
  const created = await createHost({ root: root.dir, config: false, ...options });
  hosts.push(created);
  return created;
}
beforeEach(() => {
  root = tempRoot();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
});

function goalOf(result: DispatchResult): { id: string; revision: number; status: string } {
  assert.equal(result.status, 'ok', result.output);
  return JSON.parse(result.output.split('\n(ignored')[0] as string).goal;
}

/** A conversation port over a list of user texts (the loop's own is tested through `toolhost run`). */
function conversation(texts: readonly string[]): ConversationPort & { asked: number } {
  const port = {
    asked: 0,
    userMessages: () => texts.map((text, index) => ({ id: `u${index}`, text })),
    async compress() {
      port.asked += 1;
      return { ok: true as const, replacedMessages: 2, summaryChars: 10 };
    },
  };
  return port;
}

describe('session tools through a host', () => {
  it('carries DispatchOptions.turn to the tools: a goal round may complete its own goal and may not edit it', async () => {
    const h = await host();
    const session = await h.openSession();
    const goal = goalOf(await session.dispatch({ name: 'create_goal', arguments: { objective: 'Ship it' } }));
    const turn = { origin: 'goal_round' as const, goalId: goal.id };
    const edit = await session.dispatch(
      { name: 'update_goal', arguments: { goal_id: goal.id, revision: 1, action: 'edit', objective: 'x' } },
      { turn },
    );
    assert.equal(edit.error?.code, 'PERMISSION_DENIED');
    const create = await session.dispatchBatch([{ name: 'create_goal', arguments: { objective: 'y' } }], {
      turn,
    });
    assert.equal(create.results[0]?.error?.code, 'PERMISSION_DENIED', 'a batch carries the turn too');
    const done = goalOf(
      await session.dispatch(
        { name: 'tool:update_goal', arguments: { goal_id: goal.id, revision: 1, action: 'complete' } },
        { turn },
      ),
    );
    assert.equal(done.status, 'completed');
    assert.equal(session.goal()?.goal.status, 'completed');
    assert.equal(session.goal()?.stopReason, 'completed');
  });

  it('runs the session tools in a read_only, strict session without asking, while a deny rule still refuses them', async () => {
    const h = await host({
      sandbox: 'read_only',
      approval: 'strict',
      config: { permissions: { deny: ['todo_write'] } },
    });
    const session = h.defaultSession();
    const created = await session.dispatch({
      name: 'create_goal',
      arguments: { objective: 'Read only work' },
    });
    assert.equal(created.status, 'ok', created.output);
    assert.equal(created.permission?.type, 'allow');
    const via = await session.dispatch({
      name: 'use_capability',
      arguments: { action: 'call', capability_id: 'tool:get_goal', arguments: {} },
    });
    assert.equal(via.toolName, 'get_goal');
    assert.equal(via.status, 'ok');
    const denied = await session.dispatch({ name: 'todo_write', arguments: { todos: [] } });
    assert.equal(denied.error?.code, 'APPROVAL_DENIED');
    // The claim is believed only from a built-in: an extra tool saying the same is still a writer.
    const claimant = await host({
      sandbox: 'read_only',
      tools: [
        defineTool({
          name: 'claims_session_scope',
          source: 'dynamic',
          group: 'utility_builtins',
          category: 'utility',
          annotations: { readOnly: false },
          execution: { mode: 'sequential', timeoutMs: 1000, abortable: false },
          pathAccess: 'none',
          visibility: 'listed',
          sessionScoped: true,
          modelTool: {
            name: 'claims_session_scope',
            description: 'x',
            inputSchema: { type: 'object', properties: {} },
          },
          execute: async () => textResult('ran'),
        }),
      ],
    });
    const refused = await claimant.dispatch({ name: 'claims_session_scope', arguments: {} });
    assert.equal(refused.error?.code, 'PERMISSION_DENIED');
  });

  it('keeps the todo list, the goal (id, revision, status) and the deliverables across a resume', async () => {
    writeFileSync(join(root.dir, 'report.md'), '# Report\n');
    const audit = auditSink();
    const first = await host({ onAudit: audit.onAudit });
    const session = await first.openSession();
    const id = session.id;
    await session.dispatch({
      name: 'todo_write',
      arguments: {
        todos: [
          { content: 'Read', status: 'completed' },
          { content: 'Write', status: 'in_progress', id: 'w' },
        ],
      },
    });
    const goal = goalOf(
      await session.dispatch({ name: 'create_goal', arguments: { objective: 'Report', max_goal_rounds: 3 } }),
    );
    const round = session.startGoalRound();
    assert.deepEqual(round, {
      goalId: goal.id,
      revision: 1,
      objective: 'Report',
      round: 1,
      maxGoalRounds: 3,
    });
    assert.ok(audit.events.some((event) => event.type === 'goal-round-started' && event.goalId === goal.id));
    const paused = goalOf(
      await session.dispatch({
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: 1, action: 'pause' },
      }),
    );
    const presented = await session.dispatch({
      name: 'present',
      arguments: { files: [{ path: 'report.md', description: 'The report' }] },
    });
    assert.equal(presented.status, 'ok', presented.output);
    assert.deepEqual(presented.details?.deliverables, [
      { path: 'report.md', description: 'The report', bytes: 9 },
    ]);
    const before = {
      todos: session.todos(),
      goal: session.goal()?.goal,
      deliverables: session.deliverables(),
    };
    await first.close();
    const onDisk = JSON.parse(readFileSync(join(session.dir, 'snapshot.json'), 'utf8'));
    assert.deepEqual(onDisk.goal, before.goal);

    const second = await host();
    const resumed = await second.resumeSession(id);
    assert.deepEqual(resumed.todos(), before.todos);
    assert.deepEqual(resumed.deliverables(), before.deliverables);
    assert.deepEqual(resumed.goal()?.goal, before.goal);
    assert.equal(resumed.goal()?.goal.revision, paused.revision);
    assert.equal(resumed.goal()?.goal.status, 'paused');
    assert.equal(resumed.goal()?.activation, null);
    // The revision protocol goes on from where it was.
    const resumedGoal = goalOf(
      await resumed.dispatch({
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: paused.revision, action: 'resume' },
      }),
    );
    assert.equal(resumedGoal.revision, paused.revision + 1);
    assert.equal(resumed.goal()?.activation?.roundsRun, 0, 'activations live in one process');
  });

  it('never runs todo_write in parallel: a batch of two keeps their order, each a sequential call', async () => {
    const audit = auditSink();
    const h = await host({ onAudit: audit.onAudit });
    const batch = await h.dispatchBatch([
      { id: 'a', name: 'todo_write', arguments: { todos: [{ content: 'first', status: 'pending' }] } },
      { id: 'b', name: 'get_goal', arguments: {} },
      { id: 'c', name: 'todo_write', arguments: { todos: [{ content: 'second', status: 'pending' }] } },
    ]);
    assert.deepEqual(
      batch.results.map((result) => result.status),
      ['ok', 'ok', 'ok'],
    );
    assert.deepEqual(
      h
        .defaultSession()
        .todos()
        .map((todo) => todo.content),
      ['second'],
    );
    const started = audit.events.filter((event) => event.type === 'call-started');
    assert.deepEqual(
      started.map((event) => [event.callId, event.mode]),
      [
        ['a', 'sequential'],
        ['b', 'parallel'],
        ['c', 'sequential'],
      ],
    );
  });

  it('keeps the session tools state in a host snapshot, for restore', async () => {
    const first = await host();
    await first.dispatch({
      name: 'todo_write',
      arguments: { todos: [{ content: 'carry me over', status: 'in_progress' }] },
    });
    const goal = goalOf(
      await first.dispatch({ name: 'create_goal', arguments: { objective: 'Keep going' } }),
    );
    const snapshot = first.snapshot();
    await first.close();
    const second = await host({ restore: snapshot });
    assert.deepEqual(
      second
        .defaultSession()
        .todos()
        .map((todo) => todo.content),
      ['carry me over'],
    );
    assert.equal(second.defaultSession().goal()?.goal.id, goal.id);
    assert.equal(second.defaultSession().goal()?.goal.status, 'active');
  });

  it('reads a tampered snapshot safely: malformed state is dropped, never trusted', async () => {
    const first = await host();
    const session = await first.openSession();
    const id = session.id;
    await first.close();
    const file = join(session.dir, 'snapshot.json');
    const snapshot = JSON.parse(readFileSync(file, 'utf8'));
    snapshot.todos = [{ id: 'ok', content: 'kept', status: 'pending' }, { id: '../x', content: 1 }, 'junk'];
    snapshot.goal = { id: 'not-a-goal', revision: -1 };
    snapshot.deliverables = [{ path: 'a.md', bytes: 'many' }];
    writeFileSync(file, JSON.stringify(snapshot));
    const second = await host();
    const resumed = await second.resumeSession(id);
    assert.deepEqual(resumed.todos(), [{ id: 'ok', content: 'kept', status: 'pending' }]);
    assert.equal(resumed.goal(), null);
    assert.deepEqual(resumed.deliverables(), []);
  });

  it('startGoalRound runs at most max_goal_rounds automatic rounds, then reports round_limit', async () => {
    const h = await host();
    const session = h.defaultSession();
    goalOf(
      await session.dispatch({ name: 'create_goal', arguments: { objective: 'Two', max_goal_rounds: 2 } }),
    );
    const rounds: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const round = session.startGoalRound();
      if (!round) break;
      rounds.push(round.round);
    }
    assert.deepEqual(rounds, [1, 2]);
    assert.equal(session.goal()?.stopReason, 'round_limit');
    assert.equal(session.goal()?.activation?.roundsRun, 2);
  });

  it('refuses a present of a final symbolic link through the host, recording nothing', async () => {
    writeFileSync(join(root.dir, 'real.md'), 'x');
    symlinkSync(join(root.dir, 'real.md'), join(root.dir, 'alias.md'));
    const h = await host();
    const session = h.defaultSession();
    const result = await session.dispatch({ name: 'present', arguments: { files: [{ path: 'alias.md' }] } });
    assert.equal(result.error?.code, 'PATH_INVALID');
    assert.deepEqual(session.deliverables(), []);
  });
});

describe('compress and the conversation port', () => {
  it('is not registered without conversationTools, and sessions without a port keep the very same surface bytes', async () => {
    const plain = await host({ surface: 'full', sandbox: 'workspace_write' });
    assert.equal(plain.registry.has('compress'), false);
    const withTools = await host({ surface: 'full', sandbox: 'workspace_write', conversationTools: true });
    assert.equal(withTools.registry.has('compress'), true);
    for (const surface of ['lean', 'full'] as const) {
      const a = await plain.openSession({ surface, persist: false });
      const b = await withTools.openSession({ surface, persist: false });
      assert.deepEqual(b.surfaceNames(), a.surfaceNames(), surface);
      assert.equal(b.surfaceFingerprint(), a.surfaceFingerprint(), surface);
      assert.equal(
        JSON.stringify(b.providerTools('anthropic').tools),
        JSON.stringify(a.providerTools('anthropic').tools),
      );
      const listed = await b.dispatch({ name: 'use_capability', arguments: { action: 'list' } });
      assert.doesNotMatch(listed.output, /tool:compress/, 'not offered without a conversation');
      if (surface === 'lean') assert.match(listed.output, /tool:todo_write/);
      else assert.ok(b.surfaceNames().includes('todo_write'), 'the full surface lists the session tools');
      const called = await b.dispatch({ name: 'compress', arguments: { anchor: 'x', direction: 'after' } });
      assert.equal(called.error?.code, 'CAPABILITY_UNAVAILABLE');
      const viaCatalog = await b.dispatch({
        name: 'tool:compress',
        arguments: { anchor: 'x', direction: 'after' },
      });
      assert.equal(viaCatalog.status, 'error');
      assert.notEqual(viaCatalog.toolName, 'compress', 'not reachable as tool:compress without a port');
    }
  });

  it('puts compress on the lean surface of a session with a conversation port, byte-stable per session', async () => {
    const h = await host({ sandbox: 'workspace_write', conversationTools: true });
    const port = conversation(['Task: tidy the docs folder']);
    const session = await h.openSession({ conversation: port });
    assert.ok(session.surfaceNames().includes('compress'));
    const tools = session.providerTools('openai-chat');
    assert.equal(session.providerTools('openai-chat'), tools, 'the same frozen object');
    const other = await h.openSession({ conversation: conversation(['another']) });
    assert.equal(other.surfaceFingerprint(), session.surfaceFingerprint());
    const missing = await session.dispatch({
      name: 'compress',
      arguments: { anchor: 'nope', direction: 'after' },
    });
    assert.equal(missing.error?.code, 'COMPRESS_RANGE_INVALID');
    assert.equal(port.asked, 0);
    const ok = await session.dispatch({
      name: 'compress',
      arguments: { anchor: 'tidy the docs', direction: 'after' },
    });
    assert.equal(ok.status, 'ok', ok.output);
    assert.equal(port.asked, 1);
    // A port given to a host without conversationTools lists nothing.
    const plain = await host({ sandbox: 'workspace_write' });
    const ignored = await plain.openSession({ conversation: conversation(['x']), persist: false });
    assert.ok(!ignored.surfaceNames().includes('compress'));
  });
});
