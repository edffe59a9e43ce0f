import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import {
  type AnyToolDefinition,
  outputText,
  type ToolCallContext,
  type ToolResult,
  type TurnOrigin,
  validateArguments,
} from '@toolhost/contracts';
import { createPathPolicy } from '@toolhost/path-policy';
import {
  beginGoalRound,
  type ConversationCompressRequest,
  type ConversationPort,
  createSessionTools,
  type Deliverable,
  type GoalState,
  type SessionStateAccess,
  type TodoItem,
} from '../../src/index.js';
import { tempProject } from '../files/file-helpers.js';

/** One session's state, as a host keeps it (the boot package's is tested through the host). */
function sessionState(options: { plan?: boolean; conversation?: ConversationPort } = {}) {
  let todos: readonly TodoItem[] = [];
  let goal: GoalState | null = null;
  let deliverables: readonly Deliverable[] = [];
  const state: SessionStateAccess = {
    todos: () => todos,
    replaceTodos: (next) => {
      todos = next;
    },
    goal: () => goal,
    replaceGoal: (next) => {
      goal = next;
    },
    deliverables: () => deliverables,
    replaceDeliverables: (next) => {
      deliverables = next;
    },
    inPlanPhase: () => options.plan === true,
    conversation: options.conversation,
  };
  return state;
}

async function fixture(t: TestContext, options: { plan?: boolean; conversation?: ConversationPort } = {}) {
  const root = await tempProject(t);
  const state = sessionState(options);
  const pathPolicy = createPathPolicy({ mode: 'current_project', root });
  const tools = new Map<string, AnyToolDefinition>(
    createSessionTools({ state: () => state, pathPolicy, conversationTools: true }).map((tool) => [
      tool.name,
      tool,
    ]),
  );
  let calls = 0;
  /** Validates like the host, then runs the tool with the turn origin on its context. */
  const call = async (name: string, args: unknown, turn?: TurnOrigin): Promise<ToolResult> => {
    const tool = tools.get(name);
    assert.ok(tool, name);
    const checked = validateArguments({
      toolName: name,
      source: tool.source,
      schema: tool.modelTool.inputSchema,
      arguments: args,
    });
    if (!checked.ok) return { ok: false, error: checked.error };
    const context: ToolCallContext = {
      callId: `call-${++calls}`,
      toolName: name,
      signal: new AbortController().signal,
      invocation: { kind: 'direct' },
      sessionId: 'ses_test',
      ...(turn ? { turn } : {}),
    };
    return tool.execute(checked.value.arguments, context);
  };
  return { root, state, tools, call };
}

function codeOf(result: ToolResult): string {
  return result.ok ? 'ok' : result.error.code;
}

function textOf(result: ToolResult): string {
  return result.ok ? outputText(result.output) : result.error.toModelText();
}

function goalOf(result: ToolResult): Record<string, unknown> {
  assert.ok(result.ok, textOf(result));
  return (
    JSON.parse(outputText(result.output).split('\n(ignored')[0] as string) as {
      goal: Record<string, unknown>;
    }
  ).goal;
}

describe('createSessionTools', () => {
  it('creates the six session tools in the utility group, session-scoped, with the seed read-only flags', (t) => {
    const state = sessionState();
    const pathPolicy = createPathPolicy({ mode: 'current_project', root: process.cwd() });
    const all = createSessionTools({ state: () => state, pathPolicy, conversationTools: true });
    assert.deepEqual(
      all.map((tool) => [tool.name, tool.annotations.readOnly, tool.group, tool.sessionScoped]),
      [
        ['todo_write', true, 'utility_builtins', true],
        ['create_goal', false, 'utility_builtins', true],
        ['get_goal', true, 'utility_builtins', true],
        ['update_goal', false, 'utility_builtins', true],
        ['present', true, 'utility_builtins', true],
        ['compress', true, 'utility_builtins', true],
      ],
    );
    // todo_write is read-only in the contract but never scheduled in parallel.
    assert.equal(all[0]?.execution.mode, 'sequential');
    const without = createSessionTools({ state: () => state, pathPolicy });
    assert.ok(!without.some((tool) => tool.name === 'compress'), 'compress needs conversationTools');
    t.diagnostic(`${all.length} tools`);
  });
});

describe('todo_write', () => {
  it('replaces the whole list each time: a list replaced twice holds only the second', async (t) => {
    const { state, call } = await fixture(t);
    const first = await call('todo_write', {
      todos: [
        { content: 'first list task A', status: 'pending' },
        { content: 'first list task B', status: 'in_progress' },
      ],
    });
    assert.equal(codeOf(first), 'ok');
    const second = await call('todo_write', {
      todos: [
        { content: 'Write the parser', status: 'completed', id: 'parser' },
        { content: 'Test it', status: 'in_progress' },
        { content: 'Document it', status: 'pending' },
      ],
    });
    assert.equal(
      textOf(second),
      [
        'Todo list (3 items: 1 completed, 1 in progress, 1 pending):',
        '[x] parser: Write the parser',
        '[~] t1: Test it',
        '[ ] t2: Document it',
      ].join('\n'),
    );
    assert.ok(!textOf(second).includes('first list'), 'nothing of the first list remains');
    assert.deepEqual(
      state.todos().map((todo) => todo.id),
      ['parser', 't1', 't2'],
    );
    assert.equal(textOf(await call('todo_write', { todos: [] })), 'Todo list cleared (0 items).');
    assert.deepEqual(state.todos(), []);
  });

  it('assigns only ids no given task uses, and refuses two tasks with one id without changing the list', async (t) => {
    const { state, call } = await fixture(t);
    await call('todo_write', {
      todos: [
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'pending', id: 't1' },
      ],
    });
    assert.deepEqual(
      state.todos().map((todo) => todo.id),
      ['t2', 't1'],
    );
    const repeated = await call('todo_write', {
      todos: [
        { content: 'x', status: 'pending', id: 'same' },
        { content: 'y', status: 'pending', id: 'same' },
      ],
    });
    assert.equal(codeOf(repeated), 'ARGUMENT_VALIDATION');
    assert.match(textOf(repeated), /todos\[1\]\.id repeats the id of todos\[0\]/);
    assert.deepEqual(
      state.todos().map((todo) => todo.id),
      ['t2', 't1'],
      'the list was not changed',
    );
  });
});

describe('create_goal, get_goal, update_goal', () => {
  it('creates an active goal at revision 1 (null or omitted rounds: unlimited) and get_goal reads it back', async (t) => {
    const { call } = await fixture(t);
    assert.deepEqual(JSON.parse(textOf(await call('get_goal', {}))), { goal: null });
    const created = goalOf(
      await call('create_goal', { objective: 'Ship the parser', max_goal_rounds: null }),
    );
    assert.match(String(created.id), /^goal_[0-9a-f]{16}$/);
    assert.equal(created.revision, 1);
    assert.equal(created.status, 'active');
    assert.equal(created.max_goal_rounds, null);
    assert.deepEqual(
      (created.activation as Record<string, unknown>).rounds_remaining,
      null,
      'unlimited rounds remain',
    );
    const read = goalOf(await call('get_goal', {}));
    assert.equal(read.id, created.id);
    assert.equal(read.stop_reason, null);
  });

  it('create_goal twice is GOAL_CONFLICT naming the open goal, and an automatic round may not create one', async (t) => {
    const { state, call } = await fixture(t);
    const created = goalOf(await call('create_goal', { objective: 'one', max_goal_rounds: 3 }));
    const again = await call('create_goal', { objective: 'two' });
    assert.equal(codeOf(again), 'GOAL_CONFLICT');
    assert.ok(textOf(again).includes(String(created.id)), 'the open goal is named');
    assert.equal(state.goal()?.goal.objective, 'one');
    const fromRound = await call(
      'create_goal',
      { objective: 'three' },
      {
        origin: 'goal_round',
        goalId: String(created.id),
      },
    );
    assert.equal(codeOf(fromRound), 'PERMISSION_DENIED');
    assert.match(textOf(fromRound), /only in a direct human turn/);
  });

  it('update_goal needs the exact id and revision: a stale revision is GOAL_REVISION_MISMATCH, an unknown id GOAL_NOT_FOUND, nothing changes', async (t) => {
    const { state, call } = await fixture(t);
    const goal = goalOf(await call('create_goal', { objective: 'Write docs' }));
    const edited = goalOf(
      await call('update_goal', {
        goal_id: goal.id,
        revision: 1,
        action: 'edit',
        objective: 'Write the docs',
      }),
    );
    assert.equal(edited.revision, 2);
    const stale = await call('update_goal', { goal_id: goal.id, revision: 1, action: 'pause' });
    assert.equal(codeOf(stale), 'GOAL_REVISION_MISMATCH');
    assert.match(textOf(stale), /at revision 2/);
    const unknown = await call('update_goal', {
      goal_id: 'goal_0000000000000000',
      revision: 2,
      action: 'pause',
    });
    assert.equal(codeOf(unknown), 'GOAL_NOT_FOUND');
    assert.ok(!textOf(unknown).includes('goal_0000000000000000'), 'the given id is not echoed');
    assert.equal(state.goal()?.goal.revision, 2);
    assert.equal(state.goal()?.goal.status, 'active');
  });

  it('refuses the retired continue action explicitly, with guidance, and changes nothing', async (t) => {
    const { state, call } = await fixture(t);
    const goal = goalOf(await call('create_goal', { objective: 'Refactor' }));
    const refused = await call('update_goal', { goal_id: goal.id, revision: 1, action: 'continue' });
    assert.equal(codeOf(refused), 'ARGUMENT_VALIDATION');
    assert.match(textOf(refused), /"continue" is retired/);
    assert.match(textOf(refused), /"complete"/);
    assert.equal(state.goal()?.goal.revision, 1);
  });

  it('an automatic goal round may complete or block its own goal, and may not edit, pause or touch another', async (t) => {
    const { state, call } = await fixture(t);
    const goal = goalOf(await call('create_goal', { objective: 'Migrate' }));
    const round: TurnOrigin = { origin: 'goal_round', goalId: String(goal.id) };
    for (const action of ['edit', 'pause', 'resume'] as const) {
      const refused = await call(
        'update_goal',
        { goal_id: goal.id, revision: 1, action, objective: 'other' },
        round,
      );
      assert.equal(codeOf(refused), 'PERMISSION_DENIED', action);
    }
    const foreign = await call(
      'update_goal',
      { goal_id: goal.id, revision: 1, action: 'complete' },
      { origin: 'goal_round', goalId: 'goal_1111111111111111' },
    );
    assert.equal(codeOf(foreign), 'PERMISSION_DENIED');
    assert.equal(state.goal()?.goal.revision, 1, 'no refusal changed the goal');
    const completed = goalOf(
      await call('update_goal', { goal_id: goal.id, revision: 1, action: 'complete' }, round),
    );
    assert.equal(completed.status, 'completed');
    assert.equal(completed.revision, 2);
    assert.equal(completed.stop_reason, 'completed');
    const read = goalOf(await call('get_goal', {}));
    assert.equal(read.status, 'completed');
    // A finished goal may be followed by a new one.
    assert.equal(codeOf(await call('create_goal', { objective: 'Next' })), 'ok');
  });

  it('consumes objective and max_goal_rounds only for edit and blocked_reason only for blocked, reporting the rest as ignored', async (t) => {
    const { state, call } = await fixture(t);
    const goal = goalOf(await call('create_goal', { objective: 'Port it' }));
    const paused = await call('update_goal', {
      goal_id: goal.id,
      revision: 1,
      action: 'pause',
      objective: 'not used',
      blocked_reason: 'not used either',
    });
    assert.ok(paused.ok);
    assert.deepEqual(paused.output.details?.ignored, ['objective', 'blocked_reason']);
    assert.match(textOf(paused), /ignored: objective, blocked_reason/);
    assert.equal(state.goal()?.goal.objective, 'Port it');
    assert.equal(state.goal()?.goal.status, 'paused');
    const noReason = await call('update_goal', { goal_id: goal.id, revision: 2, action: 'blocked' });
    assert.equal(codeOf(noReason), 'ARGUMENT_VALIDATION');
    const blocked = goalOf(
      await call('update_goal', {
        goal_id: goal.id,
        revision: 2,
        action: 'blocked',
        blocked_reason: 'needs credentials',
        max_goal_rounds: 9,
      }),
    );
    assert.equal(blocked.blocked_reason, 'needs credentials');
    assert.equal(blocked.max_goal_rounds, null, 'max_goal_rounds was ignored');
    const resumed = goalOf(await call('update_goal', { goal_id: goal.id, revision: 3, action: 'resume' }));
    assert.equal(resumed.status, 'active');
    assert.equal(resumed.blocked_reason, null);
    const emptyEdit = await call('update_goal', { goal_id: goal.id, revision: 4, action: 'edit' });
    assert.equal(codeOf(emptyEdit), 'ARGUMENT_VALIDATION');
    const pauseTwice = await call('update_goal', { goal_id: goal.id, revision: 4, action: 'resume' });
    assert.equal(codeOf(pauseTwice), 'GOAL_CONFLICT', 'resume of an active goal');
  });

  it('beginGoalRound counts the rounds of an activation and stops at max_goal_rounds with round_limit', async (t) => {
    const { state, call } = await fixture(t);
    const goal = goalOf(await call('create_goal', { objective: 'Loop', max_goal_rounds: 2 }));
    const rounds: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const next = beginGoalRound(state.goal());
      if (next.state) state.replaceGoal(next.state);
      if (!next.round) break;
      rounds.push(next.round.round);
    }
    assert.deepEqual(rounds, [1, 2]);
    const read = goalOf(await call('get_goal', {}));
    assert.equal(read.stop_reason, 'round_limit');
    assert.equal(read.status, 'active');
    assert.deepEqual(read.activation, {
      rounds_run: 2,
      rounds_remaining: 0,
      started_at: (read.activation as Record<string, unknown>).started_at,
    });
    // A person may start a new activation of a goal whose rounds ran out.
    const resumed = goalOf(await call('update_goal', { goal_id: goal.id, revision: 1, action: 'resume' }));
    assert.equal((resumed.activation as Record<string, unknown>).rounds_run, 0);
    assert.equal(beginGoalRound(state.goal()).round?.round, 1);
  });
});

describe('present', () => {
  const SECRET_LINE = 'deliverable-content-marker-7c1f';

  async function project(t: TestContext, options: { plan?: boolean } = {}) {
    const made = await fixture(t, options);
    await writeFile(join(made.root, 'report.md'), `# Report\n${SECRET_LINE}\n`);
    await writeFile(join(made.root, 'data.csv'), 'a,b\n1,2\n');
    await mkdir(join(made.root, 'out'));
    await symlink(join(made.root, 'report.md'), join(made.root, 'link.md'));
    await writeFile(join(made.root, '.env'), 'TOKEN=x\n');
    return made;
  }

  it('records only paths, descriptions and sizes, and its output holds no file content', async (t) => {
    const { state, call } = await project(t);
    const result = await call('present', {
      files: [{ path: 'report.md', description: 'The report' }, { path: './data.csv' }],
    });
    assert.equal(codeOf(result), 'ok', textOf(result));
    assert.ok(!textOf(result).includes(SECRET_LINE), 'no byte of a file is returned');
    assert.ok(!JSON.stringify(result).includes(SECRET_LINE));
    assert.deepEqual(state.deliverables(), [
      { path: 'report.md', description: 'The report', bytes: 9 + SECRET_LINE.length + 1 },
      { path: 'data.csv', bytes: 8 },
    ]);
    assert.match(textOf(result), /^Recorded 2 deliverables/);
  });

  it('records nothing when any file fails: nine files, a missing file, a symbolic link, a directory, a secret, a repeat', async (t) => {
    const { state, call } = await project(t);
    assert.equal(codeOf(await call('present', { files: [{ path: 'data.csv' }] })), 'ok');
    const before = state.deliverables();
    const nine = Array.from({ length: 9 }, () => ({ path: 'report.md' }));
    const cases: [string, unknown, string][] = [
      ['nine files', { files: nine }, 'ARGUMENT_VALIDATION'],
      ['a missing file', { files: [{ path: 'report.md' }, { path: 'missing.md' }] }, 'FS_NOT_FOUND'],
      ['a symbolic link', { files: [{ path: 'report.md' }, { path: 'link.md' }] }, 'PATH_INVALID'],
      ['a directory', { files: [{ path: 'out' }] }, 'NOT_A_FILE'],
      ['a secret file', { files: [{ path: '.env' }] }, 'PATH_PROTECTED'],
      [
        'one file twice',
        { files: [{ path: 'report.md' }, { path: 'out/../report.md' }] },
        'ARGUMENT_VALIDATION',
      ],
    ];
    for (const [what, args, code] of cases) {
      const result = await call('present', args);
      assert.equal(codeOf(result), code, what);
      assert.equal(state.deliverables(), before, `${what}: nothing was recorded`);
      assert.ok(!textOf(result).includes(SECRET_LINE), `${what}: no content`);
      if (code !== 'ARGUMENT_VALIDATION' && code !== 'PATH_PROTECTED')
        assert.match(textOf(result), /nothing was recorded/, what);
    }
    const link = await call('present', { files: [{ path: 'link.md' }] });
    assert.match(textOf(link), /files\[0\]: the path given as "files\[0\]\.path" is a symbolic link/);
  });

  it('is refused in the plan phase with PLAN_NOT_APPROVED', async (t) => {
    const { state, call } = await project(t, { plan: true });
    const result = await call('present', { files: [{ path: 'report.md' }] });
    assert.equal(codeOf(result), 'PLAN_NOT_APPROVED');
    assert.deepEqual(state.deliverables(), []);
  });
});

describe('compress', () => {
  function conversation(texts: readonly string[]) {
    const requests: ConversationCompressRequest[] = [];
    const port: ConversationPort = {
      userMessages: () => texts.map((text, index) => ({ id: `m${index}`, text })),
      async compress(request) {
        requests.push(request);
        return { ok: true, replacedMessages: 4, summaryChars: 120 };
      },
    };
    return { port, requests };
  }

  it('asks the loop to compress only for an anchor that occurs exactly once across the user messages', async (t) => {
    const { port, requests } = conversation([
      'Task: build the lantern module and its tests',
      'Now also add the dimmer; keep the lantern API',
    ]);
    const { call } = await fixture(t, { conversation: port });
    const none = await call('compress', { anchor: 'a phrase nobody wrote', direction: 'after' });
    assert.equal(codeOf(none), 'COMPRESS_RANGE_INVALID');
    assert.match(textOf(none), /occurs in none of the 2 real user messages; nothing was compressed/);
    assert.ok(!textOf(none).includes('a phrase nobody wrote'), 'the anchor is not echoed');
    const twice = await call('compress', { anchor: 'lantern', direction: 'after' });
    assert.equal(codeOf(twice), 'COMPRESS_RANGE_INVALID');
    assert.match(textOf(twice), /occurs 2 times/);
    assert.equal(requests.length, 0, 'the loop was never asked');
    const once = await call('compress', {
      anchor: 'add the dimmer',
      direction: 'before',
      instructions: 'keep the API names',
    });
    assert.equal(codeOf(once), 'ok', textOf(once));
    assert.deepEqual(
      requests.map(({ messageId, direction, instructions }) => ({ messageId, direction, instructions })),
      [{ messageId: 'm1', direction: 'before', instructions: 'keep the API names' }],
    );
    assert.match(textOf(once), /Compressed 4 messages before the anchored user message/);
  });

  it('is unavailable in a session without a conversation port', async (t) => {
    const { call } = await fixture(t);
    const result = await call('compress', { anchor: 'x', direction: 'after' });
    assert.equal(codeOf(result), 'CAPABILITY_UNAVAILABLE');
  });
});
