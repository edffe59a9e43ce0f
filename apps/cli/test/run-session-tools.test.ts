import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type FakeRequest, type FakeTurn, startFakeProvider } from './fake-provider.js';
import { type Json, makeProject, runToolhost } from './helpers.js';

const PROJECT = {
  'README.md': '# Lantern\n\nLantern is a tiny demo project that lights up logs. readme-marker-91c4\n',
  'src/index.ts': 'export function shine(level: number): string {\n  return "*".repeat(level);\n}\n',
};
const ARGS = ['--provider', 'openai-compatible', '--model', 'fake-model'];
const ENV = { OPENAI_API_KEY: 'test-openai-key' };

function messagesOf(request: FakeRequest): Json[] {
  return request.body.messages as Json[];
}

function goalRoundPrompts(request: FakeRequest): Json[] {
  return messagesOf(request).filter(
    (message) => message.role === 'user' && /Automatic goal round/.test(String(message.content)),
  );
}

async function transcriptOf(root: string): Promise<Json[]> {
  return (await readFile(join(root, 'run.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

async function run(root: string, task: string, baseUrl: string) {
  return runToolhost(['run', task, ...ARGS, '--base-url', baseUrl, '--transcript', 'run.jsonl'], {
    cwd: root,
    env: ENV,
  });
}

describe('toolhost run: goals', () => {
  it('runs at most max_goal_rounds automatic rounds of a goal with max_goal_rounds 2, as goal-round turns, and prints how it ended', async () => {
    const project = await makeProject(PROJECT);
    let goalId = '';
    const script = (request: FakeRequest): FakeTurn => {
      const rounds = goalRoundPrompts(request).length;
      if (request.turn === 0) {
        return {
          calls: [{ name: 'create_goal', arguments: { objective: 'Polish the docs', max_goal_rounds: 2 } }],
        };
      }
      if (request.turn === 1) {
        goalId = JSON.parse(request.results[0]?.text ?? '{}').goal?.id ?? '';
        return {
          text: 'The goal is set.',
          calls: [
            { name: 'present', arguments: { files: [{ path: 'README.md', description: 'The readme' }] } },
          ],
        };
      }
      if (request.results.length === 0 && rounds === 0)
        return { text: 'I set the goal and presented the readme.' };
      // An automatic round: its calls carry the goal round's authority.
      if (request.results.length === 0) {
        return { calls: [{ name: 'tool:create_goal', arguments: { objective: 'A goal of my own' } }] };
      }
      return { text: `Round ${rounds} done; the goal is not finished yet.` };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const result = await run(project.root, 'Polish the docs over a few rounds.', fake.baseUrl);
      assert.equal(result.code, 0, result.stderr);
      const last = fake.requests[fake.requests.length - 1] as FakeRequest;
      assert.equal(goalRoundPrompts(last).length, 2, 'two automatic rounds, no third');
      assert.match(
        String(goalRoundPrompts(last)[0].content),
        new RegExp(`goal round 1 of at most 2 for goal ${goalId}`),
      );
      // Each round's create_goal was refused: the calls of a goal round are not a person's.
      const refusals = fake.requests.flatMap((request) =>
        request.results.filter((entry) =>
          /PERMISSION_DENIED: create_goal runs only in a direct human turn/.test(entry.text),
        ),
      );
      assert.equal(refusals.length, 2);
      assert.match(result.stderr, /goal round 1 of 2/);
      assert.match(result.stderr, /goal round 2 of 2/);
      assert.match(
        result.stderr,
        new RegExp(`goal ${goalId} \\(revision 1\\): still active; stopped after 2 automatic rounds`),
      );
      assert.match(result.stderr, /deliverables \(1\):\n {2}README\.md — The readme/);
      assert.ok(!result.stderr.includes('readme-marker-91c4'), 'run output shows paths, not contents');
      const rows = await transcriptOf(project.root);
      const finished = rows[rows.length - 1];
      assert.equal(finished.type, 'run-finished');
      assert.equal(finished.goal.id, goalId);
      assert.equal(finished.goal.stopReason, 'round_limit');
      assert.equal(finished.goal.roundsRun, 2);
      assert.deepEqual(finished.deliverables, [
        { path: 'README.md', description: 'The readme', bytes: PROJECT['README.md'].length },
      ]);
      const roundBatches = rows.filter(
        (row) => row.type === 'tool-batch' && row.turn?.origin === 'goal_round',
      );
      assert.equal(roundBatches.length, 2);
      assert.equal(roundBatches[0].turn.goalId, goalId);
      assert.equal(rows.filter((row) => row.type === 'goal-round').length, 2);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('ends the automatic rounds when the model completes its goal in a round', async () => {
    const project = await makeProject(PROJECT);
    const script = (request: FakeRequest): FakeTurn => {
      if (request.turn === 0)
        return { calls: [{ name: 'create_goal', arguments: { objective: 'Count the files' } }] };
      const prompts = goalRoundPrompts(request);
      if (prompts.length === 0) return { text: 'Goal created.' };
      if (request.results.length === 0) {
        const text = String(prompts[prompts.length - 1].content);
        const [, id, revision] = /for goal (goal_[0-9a-f]+) \(revision (\d+)\)/.exec(text) ?? [];
        return {
          calls: [
            {
              name: 'update_goal',
              arguments: { goal_id: id, revision: Number(revision), action: 'complete' },
            },
          ],
        };
      }
      return { text: 'There are two files; the goal is complete.' };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const result = await run(project.root, 'Count the files as a goal.', fake.baseUrl);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(goalRoundPrompts(fake.requests[fake.requests.length - 1] as FakeRequest).length, 1);
      assert.match(result.stderr, /goal goal_[0-9a-f]+ \(revision 2\): completed after 1 automatic round\n/);
      assert.match(result.stdout, /There are two files/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });
});

describe('toolhost run: compress', () => {
  it('compress with an anchor from a user message shrinks the next request while the transcript keeps every message', async () => {
    const project = await makeProject(PROJECT);
    let step = 0;
    const summaries: FakeRequest[] = [];
    const script = (request: FakeRequest): FakeTurn => {
      if (request.toolNames.length === 0) {
        // The summary request: no tools, the range as text.
        summaries.push(request);
        return { text: 'SUMMARY: the README names the project Lantern; src/index.ts exports shine.' };
      }
      step += 1;
      if (step === 1) return { calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
      if (step === 2) return { calls: [{ name: 'read_file', arguments: { path: 'src/index.ts' } }] };
      if (step === 3) {
        return {
          calls: [
            { name: 'compress', arguments: { anchor: 'then compress the context', direction: 'after' } },
          ],
        };
      }
      return { text: 'Lantern exports shine.' };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const result = await run(
        project.root,
        'Read the README and the sources, then compress the context.',
        fake.baseUrl,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(summaries.length, 1, 'one summary request');
      assert.ok(
        JSON.stringify(summaries[0]?.body).includes('readme-marker-91c4'),
        'the range was summarised',
      );
      const withTools = fake.requests.filter((request) => request.toolNames.length > 0);
      assert.ok(withTools[0]?.toolNames.includes('compress'), 'compress is on the lean surface of run');
      const beforeCompress = withTools[2] as FakeRequest;
      const afterCompress = withTools[3] as FakeRequest;
      assert.ok(
        messagesOf(afterCompress).length < messagesOf(beforeCompress).length + 2,
        'the next request carries fewer messages than it would have',
      );
      assert.equal(messagesOf(beforeCompress).length, 6);
      assert.equal(messagesOf(afterCompress).length, 5);
      assert.ok(
        !JSON.stringify(afterCompress.body).includes('readme-marker-91c4'),
        'the original range is gone',
      );
      assert.ok(
        JSON.stringify(afterCompress.body).includes('SUMMARY: the README names'),
        'the summary replaces it',
      );
      assert.match(
        afterCompress.results[0]?.text ?? '',
        /Compressed 4 messages after the anchored user message/,
      );
      // The transcript still holds every original message, and the compression itself.
      const rows = await transcriptOf(project.root);
      const messages = rows.filter((row) => row.type === 'message');
      assert.ok(JSON.stringify(messages).includes('readme-marker-91c4'));
      assert.equal(messages.filter((row) => row.message.role === 'tool').length, 3);
      const compressed = rows.find((row) => row.type === 'conversation-compressed');
      assert.equal(compressed.replacedMessages, 4);
      assert.equal(compressed.direction, 'after');
      assert.match(result.stderr, /conversation compressed: 4 messages after the anchor/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('refuses a compress anchor found in no user message, and compresses nothing', async () => {
    const project = await makeProject(PROJECT);
    let step = 0;
    let summaryRequests = 0;
    const script = (request: FakeRequest): FakeTurn => {
      if (request.toolNames.length === 0) {
        summaryRequests += 1;
        return { text: 'should not be asked' };
      }
      step += 1;
      if (step === 1) return { calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] };
      if (step === 2) {
        return {
          calls: [{ name: 'compress', arguments: { anchor: 'Lantern is a tiny demo', direction: 'before' } }],
        };
      }
      return { text: `compress said: ${request.results[0]?.text.split(':')[0]}` };
    };
    const fake = await startFakeProvider({ dialect: 'openai-chat', script });
    try {
      const result = await run(project.root, 'Look around and compress when asked.', fake.baseUrl);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(summaryRequests, 0);
      const last = fake.requests[fake.requests.length - 1] as FakeRequest;
      // The anchor is in a tool result, not in a user message: refused.
      assert.match(
        last.results[0]?.text ?? '',
        /^COMPRESS_RANGE_INVALID: the anchor occurs in none of the 1 real user message/,
      );
      assert.equal(messagesOf(last).length, 6, 'nothing was replaced');
      assert.match(result.stdout, /compress said: COMPRESS_RANGE_INVALID/);
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });
});
