import assert from 'node:assert/strict';
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cliEnv, type Json, makeProject, runToolhost, SessionDriver } from './helpers.js';

const CONTENT_MARKER = 'only-in-the-file-body-5b2e';
const FILES = {
  'report.md': `# Report\n${CONTENT_MARKER}\n`,
  'notes.txt': 'notes\n',
};

function goalOf(line: Json): { id: string; revision: number; status: string; stop_reason: string | null } {
  assert.equal(line.status, 'ok', line.output);
  return JSON.parse(String(line.output).split('\n(ignored')[0] as string).goal;
}

async function snapshotOf(root: string, id: string): Promise<Json> {
  return JSON.parse(await readFile(join(root, '.toolhost', 'sessions', id, 'snapshot.json'), 'utf8'));
}

describe('toolhost session: the session tools', () => {
  it('runs the todo, goal and present protocol line by line, and --resume keeps the list, the goal and the deliverables', async () => {
    const project = await makeProject(FILES);
    await symlink(join(project.root, 'report.md'), join(project.root, 'alias.md'));
    const session = SessionDriver.start(['--session-id', 'tools-run'], { cwd: project.root });
    try {
      // A todo list replaced twice shows only the second.
      const first = await session.send({
        id: 1,
        name: 'todo_write',
        arguments: { todos: [{ content: 'first draft of the plan', status: 'pending' }] },
      });
      assert.equal(first.status, 'ok', first.output);
      const second = await session.send({
        id: 2,
        name: 'todo_write',
        arguments: {
          todos: [
            { content: 'Read the report', status: 'completed' },
            { content: 'Summarise it', status: 'in_progress', id: 'sum' },
          ],
        },
      });
      assert.equal(
        second.output,
        'Todo list (2 items: 1 completed, 1 in progress, 0 pending):\n[x] t1: Read the report\n[~] sum: Summarise it',
      );
      assert.doesNotMatch(second.output, /first draft/);

      // create_goal twice → GOAL_CONFLICT, naming the open goal.
      const goal = goalOf(
        await session.send({
          id: 3,
          name: 'create_goal',
          arguments: { objective: 'Summarise the report', max_goal_rounds: 4 },
        }),
      );
      assert.equal(goal.revision, 1);
      assert.equal(goal.status, 'active');
      const conflict = await session.send({
        id: 4,
        name: 'create_goal',
        arguments: { objective: 'Another' },
      });
      assert.equal(conflict.error?.code, 'GOAL_CONFLICT');
      assert.ok(conflict.output.includes(goal.id));

      // A human edit bumps the revision; the stale revision is then refused.
      const edited = goalOf(
        await session.send({
          id: 5,
          name: 'update_goal',
          arguments: { goal_id: goal.id, revision: 1, action: 'edit', max_goal_rounds: null },
        }),
      );
      assert.equal(edited.revision, 2);
      const stale = await session.send({
        id: 6,
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: 1, action: 'pause' },
      });
      assert.equal(stale.error?.code, 'GOAL_REVISION_MISMATCH');

      // The retired continue is refused explicitly.
      const retired = await session.send({
        id: 7,
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: 2, action: 'continue' },
      });
      assert.equal(retired.error?.code, 'ARGUMENT_VALIDATION');
      assert.match(retired.output, /"continue" is retired/);

      // A goal-round turn may not edit its goal, and may complete it.
      const roundTurn = { origin: 'goal_round', goalId: goal.id };
      const roundEdit = await session.send({
        id: 8,
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: 2, action: 'edit', objective: 'Something else' },
        turn: roundTurn,
      });
      assert.equal(roundEdit.error?.code, 'PERMISSION_DENIED');
      const roundComplete = await session.send({
        id: 9,
        name: 'update_goal',
        arguments: { goal_id: goal.id, revision: 2, action: 'complete' },
        turn: roundTurn,
      });
      assert.equal(goalOf(roundComplete).status, 'completed');
      // get_goal after complete reflects it.
      const read = goalOf(await session.send({ id: 10, name: 'get_goal', arguments: {} }));
      assert.equal(read.status, 'completed');
      assert.equal(read.revision, 3);
      assert.equal(read.stop_reason, 'completed');

      // present: recorded paths only, shown on the result line, never a byte of the file.
      const presented = await session.send({
        id: 11,
        name: 'present',
        arguments: { files: [{ path: 'report.md', description: 'The summary report' }] },
      });
      assert.equal(presented.status, 'ok', presented.output);
      assert.deepEqual(presented.deliverables, [
        { path: 'report.md', description: 'The summary report', bytes: FILES['report.md'].length },
      ]);
      assert.ok(!JSON.stringify(presented).includes(CONTENT_MARKER), 'present output holds no file content');
      // Nine files, a missing file, a symbolic link: refused, and nothing is recorded.
      const refusals = [
        [{ files: Array.from({ length: 9 }, () => ({ path: 'notes.txt' })) }, 'ARGUMENT_VALIDATION'],
        [{ files: [{ path: 'notes.txt' }, { path: 'missing.txt' }] }, 'FS_NOT_FOUND'],
        [{ files: [{ path: 'notes.txt' }, { path: 'alias.md' }] }, 'PATH_INVALID'],
      ] as const;
      let next = 12;
      for (const [args, code] of refusals) {
        const refused = await session.send({ id: next++, name: 'present', arguments: args });
        assert.equal(refused.error?.code, code, refused.output);
        assert.equal(refused.deliverables, undefined);
        assert.ok(!JSON.stringify(refused).includes(CONTENT_MARKER));
      }
      assert.equal((await session.close()).code, 0);
    } finally {
      session.kill();
    }
    const before = await snapshotOf(project.root, 'tools-run');
    assert.deepEqual(
      before.deliverables,
      [{ path: 'report.md', description: 'The summary report', bytes: FILES['report.md'].length }],
      'the refused presents recorded nothing',
    );
    assert.deepEqual(
      before.todos.map((todo: Json) => todo.id),
      ['t1', 'sum'],
    );

    // --resume: the same todo list, goal (id, revision, status) and deliverables.
    const resumed = SessionDriver.start(['--resume', 'tools-run'], { cwd: project.root });
    try {
      const read = goalOf(await resumed.send({ id: 1, name: 'get_goal', arguments: {} }));
      assert.deepEqual(
        { id: read.id, revision: read.revision, status: read.status },
        { id: before.goal.id, revision: 3, status: 'completed' },
      );
      assert.equal((await resumed.close()).code, 0);
    } finally {
      resumed.kill();
    }
    const after = await snapshotOf(project.root, 'tools-run');
    assert.deepEqual(after.todos, before.todos);
    assert.deepEqual(after.goal, before.goal);
    assert.deepEqual(after.deliverables, before.deliverables);
    await project.cleanup();
  });

  it('never lists compress: not in session catalogs, not on the tools surface, not in serve', async () => {
    const project = await makeProject(FILES);
    try {
      const session = SessionDriver.start([], { cwd: project.root });
      try {
        const listed = await session.send({ id: 1, name: 'use_capability', arguments: { action: 'list' } });
        assert.match(listed.output, /tool:todo_write/);
        assert.doesNotMatch(listed.output, /compress/);
        const called = await session.send({
          id: 2,
          name: 'compress',
          arguments: { anchor: 'x', direction: 'after' },
        });
        assert.equal(called.error?.code, 'TOOL_NOT_FOUND', 'not registered without a conversation');
        assert.equal((await session.close()).code, 0);
      } finally {
        session.kill();
      }
      const full = JSON.parse(
        (await runToolhost(['tools', '--surface', 'full', '--json'], { cwd: project.root })).stdout,
      );
      const names = full.tools.map((tool: Json) => tool.name);
      assert.ok(names.includes('todo_write') && names.includes('present'));
      assert.ok(!names.includes('compress'));
      const client = new Client({ name: 'toolhost-test', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--surface', 'full'],
        cwd: project.root,
        env: cliEnv() as Record<string, string>,
        stderr: 'pipe',
      });
      try {
        await client.connect(transport);
        const served = (await client.listTools()).tools.map((tool) => tool.name);
        assert.ok(served.includes('get_goal'));
        assert.ok(!served.includes('compress'));
      } finally {
        await client.close();
      }
    } finally {
      await project.cleanup();
    }
  });
});
