import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startFakeProvider } from './fake-provider.js';
import { CLI, cliEnv, type Json, makeProject, runToolhost } from './helpers.js';

function textOf(result: Json): string {
  return (result.content as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

interface Asked {
  readonly message: string;
  readonly choices: readonly string[];
}

/**
 * An SDK client connected to `toolhost serve ARGS` over stdio. With `answer`, it declares the
 * elicitation capability and answers every `elicitation/create` with it; without, it declares none.
 */
async function serve(
  root: string,
  args: readonly string[],
  answer?: (asked: Asked) => ElicitResult,
): Promise<{ client: Client; asked: Asked[] }> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'toolhost-test', version: '1.0.0' },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as Json;
      const entry: Asked = {
        message: params.message,
        choices: params.requestedSchema.properties.decision.enum,
      };
      asked.push(entry);
      return answer(entry);
    });
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ...args],
    cwd: root,
    env: cliEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  await client.connect(transport);
  return { client, asked };
}

const SIX_BY_SEVEN = { command: 'echo $((6*7))' };
const STRICT = ['--approval', 'strict', '--sandbox', 'workspace_write'];

describe('serve approvals', () => {
  it('sends elicitation/create to a client that supports it: runs the call after an accept, refuses after a decline', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    let reply: ElicitResult = { action: 'accept', content: { decision: 'allow_once' } };
    const { client, asked } = await serve(project.root, STRICT, () => reply);
    try {
      const accepted = await client.callTool({ name: 'bash', arguments: SIX_BY_SEVEN });
      assert.notEqual(accepted.isError, true, textOf(accepted));
      assert.match(textOf(accepted), /\b42\b/);
      assert.equal(asked.length, 1);
      assert.match(asked[0]?.message ?? '', /the tool "bash" may run/);
      assert.doesNotMatch(asked[0]?.message ?? '', /6\*7/, 'the question is value-free');
      assert.deepEqual(asked[0]?.choices, ['allow_once', 'allow_session', 'deny']);
      reply = { action: 'decline' };
      const declined = await client.callTool({ name: 'bash', arguments: SIX_BY_SEVEN });
      assert.equal(declined.isError, true);
      assert.match(
        textOf(declined),
        /^APPROVAL_DENIED: "bash" was not approved \(a person declined it: the MCP client declined it\)/,
      );
      assert.doesNotMatch(textOf(declined), /\b42\b/);
      assert.equal(asked.length, 2);
    } finally {
      await client.close();
      await project.cleanup();
    }
  });

  it('remembers "allow for this session" within the MCP session, and asks again in a new one', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    const first = await serve(project.root, STRICT, () => ({
      action: 'accept',
      content: { decision: 'allow_session' },
    }));
    try {
      for (const _ of [1, 2]) {
        const result = await first.client.callTool({ name: 'bash', arguments: SIX_BY_SEVEN });
        assert.match(textOf(result), /\b42\b/);
      }
      assert.equal(first.asked.length, 1, 'not asked again in that session');
    } finally {
      await first.client.close();
    }
    const second = await serve(project.root, STRICT, () => ({
      action: 'accept',
      content: { decision: 'allow_once' },
    }));
    try {
      await second.client.callTool({ name: 'bash', arguments: SIX_BY_SEVEN });
      assert.equal(second.asked.length, 1, 'asked again in a new session');
    } finally {
      await second.client.close();
      await project.cleanup();
    }
  });

  it('fails closed without the elicitation capability, naming the flag that would allow the call', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    const { client } = await serve(project.root, STRICT);
    try {
      const result = await client.callTool({ name: 'bash', arguments: SIX_BY_SEVEN });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^APPROVAL_REQUIRED: "bash" needs approval/);
      assert.match(textOf(result), /does not support elicitation/);
      assert.match(textOf(result), /--approval on_request/);
      assert.doesNotMatch(textOf(result), /\b42\b/);
    } finally {
      await client.close();
      await project.cleanup();
    }
  });

  it('serves --plan: write_file is PLAN_NOT_APPROVED until exit_plan_mode is approved through elicitation, the tool list unchanged', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    const { client, asked } = await serve(project.root, ['--plan', '--sandbox', 'workspace_write'], () => ({
      action: 'accept',
      content: { decision: 'allow_once' },
    }));
    try {
      const before = JSON.stringify((await client.listTools()).tools);
      assert.ok(before.includes('"exit_plan_mode"'));
      const write = { name: 'write_file', arguments: { path: 'out.txt', content: 'done\n' } };
      const refused = await client.callTool(write);
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /^PLAN_NOT_APPROVED: /);
      assert.ok(!existsSync(join(project.root, 'out.txt')));
      const exit = await client.callTool({ name: 'exit_plan_mode', arguments: { plan: 'write out.txt' } });
      assert.notEqual(exit.isError, true, textOf(exit));
      assert.equal(asked.length, 1);
      assert.match(asked[0]?.message ?? '', /approve the plan/);
      assert.doesNotMatch(asked[0]?.message ?? '', /write out\.txt/);
      assert.deepEqual(asked[0]?.choices, ['allow_once', 'deny']);
      assert.equal(JSON.stringify((await client.listTools()).tools), before);
      const written = await client.callTool(write);
      assert.notEqual(written.isError, true, textOf(written));
      assert.equal(readFileSync(join(project.root, 'out.txt'), 'utf8'), 'done\n');
    } finally {
      await client.close();
      await project.cleanup();
    }
  });
});

describe('session --plan', () => {
  it('refuses writes and cannot leave the plan phase where no one can be asked', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    try {
      const lines = [
        { id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
        { id: 'e', name: 'exit_plan_mode', arguments: { plan: 'write a.txt' } },
        { id: 'r', name: 'read_file', arguments: { path: 'README.md' } },
      ];
      const result = await runToolhost(['session', '--plan', '--sandbox', 'workspace_write'], {
        cwd: project.root,
        input: `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
      });
      assert.equal(result.code, 0, result.stderr);
      const [write, exit, read] = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Json);
      assert.equal(write.error.code, 'PLAN_NOT_APPROVED');
      assert.equal(exit.error.code, 'APPROVAL_REQUIRED');
      assert.equal(read.status, 'ok');
      assert.ok(!existsSync(join(project.root, 'a.txt')));
      const tools = JSON.parse(
        (await runToolhost(['tools', '--json', '--sandbox', 'workspace_write'], { cwd: project.root }))
          .stdout,
      );
      assert.ok(
        !tools.tools.some((tool: { name: string }) => tool.name === 'exit_plan_mode'),
        'only plan mode lists exit_plan_mode',
      );
    } finally {
      await project.cleanup();
    }
  });
});

describe('run --plan', () => {
  it('offers exit_plan_mode to the model, refuses its writes (PLAN_NOT_APPROVED), and fails closed on exit_plan_mode without a terminal', async () => {
    const project = await makeProject({ 'README.md': '# x\n' });
    const fake = await startFakeProvider({
      dialect: 'openai-chat',
      script: (request) =>
        request.turn === 0
          ? {
              calls: [
                { name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
                { name: 'exit_plan_mode', arguments: { plan: 'write a.txt' } },
              ],
            }
          : { text: `results: ${request.results.map((result) => result.text.split(':')[0]).join(' ')}` },
    });
    try {
      const result = await runToolhost(
        [
          'run',
          '--plan',
          '--sandbox',
          'workspace_write',
          '--provider',
          'openai-compatible',
          '--base-url',
          fake.baseUrl,
          '--model',
          'fake-model',
        ],
        { cwd: project.root },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.ok(fake.requests[0]?.toolNames.includes('exit_plan_mode'));
      assert.deepEqual(
        fake.requests[0]?.toolNames,
        fake.requests[1]?.toolNames,
        'the same tools every round',
      );
      assert.match(result.stdout, /results: PLAN_NOT_APPROVED APPROVAL_REQUIRED/);
      assert.ok(!existsSync(join(project.root, 'a.txt')));
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });
});
