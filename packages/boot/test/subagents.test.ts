import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defineTool, textResult } from '@toolhost/contracts';
import {
  createHost,
  type DispatchResult,
  type Host,
  type HostOptions,
  type Session,
  type SubagentRunner,
  type SubagentRunOutcome,
  type SubagentRunRequest,
} from '../src/index.js';
import type { SubagentRecord } from '../src/subagent-types.js';
import { deferred, tempRoot } from './helpers.js';

const everythingBin = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

let root: { dir: string; cleanup: () => void };
const hosts: Host[] = [];
const roots: { dir: string; cleanup: () => void }[] = [];
async function host(options: HostOptions = {}, dir = root.dir): Promise<Host> {
  const created = await createHost({ root: dir, config: false, ...options });
  hosts.push(created);
  return created;
}
beforeEach(() => {
  root = tempRoot();
  writeFileSync(join(root.dir, 'notes.txt'), 'the answer is 42\n');
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((created) => created.close()));
  root.cleanup();
  for (const other of roots.splice(0)) other.cleanup();
});

/** A runner that plays a script per request (the embedding loop, without a model) and records what it got. */
function runner(play: (request: SubagentRunRequest) => Promise<SubagentRunOutcome>): SubagentRunner & {
  readonly requests: SubagentRunRequest[];
  readonly running: { now: number; max: number };
} {
  const requests: SubagentRunRequest[] = [];
  const running = { now: 0, max: 0 };
  return {
    requests,
    running,
    async run(request) {
      requests.push(request);
      running.now++;
      running.max = Math.max(running.max, running.now);
      try {
        return await play(request);
      } finally {
        running.now--;
      }
    },
  };
}

const call = (name: string, args: Record<string, unknown>, id = `c_${name}`) => ({
  id,
  name: 'use_capability',
  arguments: { action: 'call', capability_id: `tool:${name}`, arguments: args },
});

const referenceOf = (output: string): string => {
  const match = /Subagent reference: (sa_[0-9a-f]{24})/.exec(output);
  assert.ok(match, output);
  return match[1]!;
};

/** Pages a subagent's whole answer with read_subagent_result and checks every header. */
async function readAll(session: Session, reference: string, limit?: number): Promise<string> {
  let offset = 0;
  const parts: Buffer[] = [];
  for (let page = 0; page < 1000; page++) {
    const result = await session.dispatch(
      call('read_subagent_result', { reference, offset, ...(limit ? { limit } : {}) }, `page_${page}`),
    );
    assert.equal(result.status, 'ok', result.output);
    assert.equal(result.truncated, false);
    const newline = result.output.indexOf('\n');
    const header = JSON.parse(result.output.slice(0, newline));
    assert.deepEqual(Object.keys(header), [
      'result_ref',
      'offset',
      'next_offset',
      'total_bytes',
      'sha256',
      'complete',
    ]);
    assert.equal(header.result_ref, reference);
    assert.equal(header.offset, offset);
    const body = Buffer.from(result.output.slice(newline + 1), 'utf8');
    assert.equal(body.length, header.next_offset - offset);
    parts.push(body);
    offset = header.next_offset;
    if (header.complete) {
      const whole = Buffer.concat(parts);
      assert.equal(whole.length, header.total_bytes);
      assert.equal(createHash('sha256').update(whole).digest('hex'), header.sha256);
      return whole.toString('utf8');
    }
  }
  throw new Error('never complete');
}

function recordOf(h: Host, lineageId: string, reference: string): SubagentRecord {
  return JSON.parse(
    readFileSync(join(h.stateDir, 'sessions', lineageId, 'subagents', `${reference}.json`), 'utf8'),
  );
}

describe('subagent tools', () => {
  it('exist only when the host has a runner; then they are reachable as tool:<name> and on the full surface', async () => {
    const plain = await host();
    for (const name of ['task', 'parallel_tasks', 'read_subagent_result']) {
      assert.equal(plain.registry.has(name), false, name);
    }
    const missing = await plain.dispatch(call('task', { description: 'x', prompt: 'y' }));
    assert.equal(missing.status, 'error');
    const scripted = runner(async () => ({ status: 'completed', answer: 'done' }));
    const lean = await host({ subagents: scripted });
    assert.ok(!lean.surfaceNames().includes('task'), 'the lean surface is unchanged');
    assert.deepEqual(lean.surfaceNames(), plain.surfaceNames());
    const other = tempRoot();
    roots.push(other);
    const full = await host({ subagents: scripted, surface: 'full' }, other.dir);
    for (const name of ['task', 'parallel_tasks', 'read_subagent_result']) {
      assert.ok(full.surfaceNames().includes(name), name);
    }
  });

  it('task returns a preview under the cap and a reference; read_subagent_result reassembles a 100 KB answer exactly', async () => {
    // Multi-byte text, so pages must cut on character boundaries.
    const answer = Array.from(
      { length: 2_600 },
      (_, line) => `${line}: résumé 日本語 ✓ ${'x'.repeat(20)}`,
    ).join('\n');
    assert.ok(Buffer.byteLength(answer) > 100_000);
    const scripted = runner(async (request) => {
      // The subagent works through its own session, a child of the caller's.
      const read = await request.session.dispatch({ name: 'read_file', arguments: { path: 'notes.txt' } });
      assert.equal(read.status, 'ok', read.output);
      return { status: 'completed', answer: `${/42/.test(read.output) ? 'found 42' : 'nothing'}\n${answer}` };
    });
    const h = await host({ subagents: scripted, sandbox: 'workspace_write' });
    const session = await h.openSession();
    const result = await session.dispatch(call('task', { description: 'find the answer', prompt: 'look' }));
    assert.equal(result.status, 'ok', result.output);
    assert.equal(result.truncated, false);
    assert.ok(Buffer.byteLength(result.output) <= 32 * 1024);
    assert.match(result.output, /status: completed; retryable: false; read_only: false/);
    assert.match(result.output, /--- answer \(first 1638[1-4] of \d+ bytes\) ---\nfound 42/);
    const reference = referenceOf(result.output);
    const request = scripted.requests[0]!;
    assert.equal(request.reference, reference);
    assert.equal(request.session.parentId, session.id);
    assert.equal(request.readOnly, false);
    const full = `found 42\n${answer}`;
    assert.equal(await readAll(session, reference), full);
    assert.equal(await readAll(session, reference, 24_576), full);
    // The record: status, retryable, the answer's hash, the child's session.
    const record = recordOf(h, session.id, reference);
    assert.equal(record.status, 'completed');
    assert.equal(record.retryable, false);
    assert.equal(record.answerSha256, createHash('sha256').update(full).digest('hex'));
    assert.deepEqual(record.sessionIds, [request.session.id]);
    assert.ok(request.session.closed, 'the child session is closed after its run');
  });

  it('parallel_tasks runs four subagents at once and returns four fair previews within 32 KiB', async () => {
    const gate = deferred();
    let started = 0;
    const scripted = runner(async (request) => {
      if (++started === 4) gate.resolve();
      await gate.promise;
      return { status: 'completed', answer: `${request.description}: ${'ü'.repeat(10_000)}` };
    });
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const tasks = [1, 2, 3, 4].map((index) => ({ description: `part ${index}`, prompt: `do ${index}` }));
    const result = await session.dispatch(call('parallel_tasks', { tasks }));
    assert.equal(result.status, 'ok', result.output);
    assert.equal(result.truncated, false);
    assert.ok(Buffer.byteLength(result.output) <= 32 * 1024, `${Buffer.byteLength(result.output)}`);
    assert.equal(scripted.running.max, 4);
    const shown = [...result.output.matchAll(/--- answer \(first (\d+) of 20008 bytes\) ---\npart (\d)/g)];
    assert.equal(shown.length, 4);
    const sizes = shown.map((match) => Number(match[1]));
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 2, `${sizes}`);
    const references = [...result.output.matchAll(/Subagent reference: (sa_[0-9a-f]{24})/g)].map(
      (match) => match[1]!,
    );
    assert.equal(new Set(references).size, 4);
    for (const [index, reference] of references.entries()) {
      assert.equal(await readAll(session, reference), `part ${index + 1}: ${'ü'.repeat(10_000)}`);
    }
  });

  it("refuses a read-only subagent's write_file and non-read-only MCP tool while a readOnlyHint MCP tool runs", async () => {
    const outcomes: Record<string, DispatchResult> = {};
    const scripted = runner(async (request) => {
      const session = request.session;
      outcomes.write = await session.dispatch({
        name: 'write_file',
        arguments: { path: 'new.txt', content: 'x' },
      });
      outcomes.echo = await session.dispatch({
        name: 'use_capability',
        arguments: {
          action: 'call',
          capability_id: 'mcp-tool:everything/echo',
          arguments: { message: 'hi' },
        },
      });
      outcomes.toggle = await session.dispatch({
        name: 'use_capability',
        arguments: {
          action: 'call',
          capability_id: 'mcp-tool:everything/toggle-simulated-logging',
          arguments: {},
        },
      });
      return { status: 'completed', answer: 'checked' };
    });
    const h = await host({
      subagents: scripted,
      sandbox: 'workspace_write',
      approval: 'never',
      config: {
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [everythingBin, 'stdio'],
            trusted: true,
            // A loaded machine may take a while to start node.
            timeouts: { handshakeMs: 60_000 },
          },
        },
      },
    });
    const session = await h.openSession();
    const result = await session.dispatch(
      call('task', { description: 'inspect', prompt: 'look only', read_only: true }),
    );
    assert.equal(result.status, 'ok', result.output);
    assert.match(result.output, /read_only: true/);
    assert.equal(scripted.requests[0]!.session.policy.sandbox, 'read_only');
    assert.equal(outcomes.write?.error?.code, 'PERMISSION_DENIED');
    assert.equal(outcomes.echo?.status, 'ok', outcomes.echo?.output);
    assert.match(outcomes.echo?.output ?? '', /hi/);
    assert.equal(outcomes.toggle?.error?.code, 'PERMISSION_DENIED');
    assert.ok(!existsSync(join(root.dir, 'new.txt')));
    // The same session's own writes are unaffected.
    const own = await session.dispatch({ name: 'write_file', arguments: { path: 'own.txt', content: 'x' } });
    assert.equal(own.status, 'ok', own.output);
  });

  it('records a subagent stopped by its step limit as partial and retryable, and continue_from finishes it', async () => {
    const scripted = runner(async (request) => {
      if (!request.resume) {
        return {
          status: 'partial',
          answer: 'halfway: read notes.txt',
          state: { messages: ['first run'] },
          error: { code: 'ROUND_LIMIT', message: 'the step limit was reached' },
        };
      }
      return {
        status: 'completed',
        answer: `finished after ${JSON.stringify(request.resume.state)} (${request.resume.status}, ${request.resume.answer})`,
        state: { messages: ['first run', 'second run'] },
      };
    });
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const first = await session.dispatch(
      call('task', { description: 'long job', prompt: 'go', read_only: true }),
    );
    assert.equal(first.status, 'ok', first.output);
    assert.match(first.output, /status: partial; retryable: true; read_only: true/);
    assert.match(first.output, /error: ROUND_LIMIT/);
    const reference = referenceOf(first.output);
    assert.equal(recordOf(h, session.id, reference).status, 'partial');
    const second = await session.dispatch(
      call('task', { description: 'long job', prompt: 'finish it', continue_from: reference }),
    );
    assert.equal(second.status, 'ok', second.output);
    assert.equal(referenceOf(second.output), reference, 'the reference is stable');
    assert.match(second.output, /status: completed; retryable: false; read_only: true; runs: 2/);
    assert.match(
      second.output,
      /finished after \{"messages":\["first run"\]\} \(partial, halfway: read notes\.txt\)/,
    );
    const request = scripted.requests[1]!;
    assert.equal(request.prompt, 'finish it');
    assert.equal(request.readOnly, true, 'a continuation keeps the policy of the subagent it continues');
    assert.equal(request.session.policy.sandbox, 'read_only');
    const record = recordOf(h, session.id, reference);
    assert.equal(record.runs, 2);
    assert.equal(record.sessionIds.length, 2);
    const states = readdirSync(join(h.stateDir, 'sessions', session.id, 'subagents')).filter((name) =>
      name.endsWith('.state.json'),
    );
    assert.deepEqual(states, [`${reference}.2.state.json`], 'the superseded state is removed');
    // A completed subagent is not continued.
    const again = await session.dispatch(
      call('task', { description: 'long job', prompt: 'more', continue_from: reference }),
    );
    assert.equal(again.error?.code, 'SUBAGENT_NOT_FOUND');
    assert.match(again.output, /not retryable/);
  });

  it('cancels subagents with the call: the result says cancelled and retryable at once, the final state follows', async () => {
    const started = deferred();
    const release = deferred();
    const scripted = runner(async (request) => {
      if (request.resume)
        return { status: 'completed', answer: `resumed from ${JSON.stringify(request.resume.state)}` };
      started.resolve();
      await new Promise<void>((resolve) => request.signal.addEventListener('abort', () => resolve()));
      // Winding down takes a while (longer than the host waits for an abortable tool).
      await release.promise;
      return { status: 'cancelled', answer: 'stopped early', state: { step: 3 } };
    });
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const controller = new AbortController();
    const pending = session.dispatch(call('task', { description: 'slow', prompt: 'wait' }), {
      signal: controller.signal,
    });
    await started.promise;
    controller.abort();
    const result = await pending;
    assert.equal(result.error?.code, 'ABORTED');
    assert.match(result.output, /status: cancelled; retryable: true/);
    const reference = referenceOf(result.output);
    assert.equal(recordOf(h, session.id, reference).status, 'cancelled');
    // continue_from waits for the subagent to wind down, then resumes from its final state.
    const continued = session.dispatch(
      call('task', { description: 'slow', prompt: 'go on', continue_from: reference }),
    );
    release.resolve();
    const second = await continued;
    assert.equal(second.status, 'ok', second.output);
    assert.match(second.output, /resumed from \{"step":3\}/);
  });

  it('keeps references to their lineage and project root: another session, another project and a planted record are refused', async () => {
    const scripted = runner(async () => ({ status: 'completed', answer: 'secret findings' }));
    const h = await host({ subagents: scripted });
    const first = await h.openSession();
    const result = await first.dispatch(call('task', { description: 'a', prompt: 'b' }));
    const reference = referenceOf(result.output);
    // Another session of the same host is another lineage.
    const second = await h.openSession();
    const foreign = await second.dispatch(call('read_subagent_result', { reference }));
    assert.equal(foreign.error?.code, 'SUBAGENT_NOT_FOUND');
    assert.ok(!foreign.output.includes(reference), 'the reference is not echoed');
    // Another project root: not found, even when the record is planted in its own lineage directory.
    const other = tempRoot();
    roots.push(other);
    const h2 = await host({ subagents: scripted }, other.dir);
    const elsewhere = await h2.openSession();
    const notThere = await elsewhere.dispatch(call('read_subagent_result', { reference }));
    assert.equal(notThere.error?.code, 'SUBAGENT_NOT_FOUND');
    cpSync(
      join(h.stateDir, 'sessions', first.id, 'subagents'),
      join(h2.stateDir, 'sessions', elsewhere.id, 'subagents'),
      { recursive: true },
    );
    const planted = await elsewhere.dispatch(call('read_subagent_result', { reference }));
    assert.equal(planted.error?.code, 'SUBAGENT_NOT_FOUND');
    assert.equal(planted.error?.details.reason, 'other_root');
    assert.ok(!planted.output.includes('secret findings'));
    // A session of the first one's lineage (its child) reads the lineage's references.
    const child = await first.openChild({ readOnlyStrict: true });
    const childPage = await child.dispatch(call('read_subagent_result', { reference }));
    assert.equal(childPage.status, 'ok', childPage.output);
    assert.match(childPage.output, /secret findings/);
    await child.close();
    // Malformed references are refused.
    for (const bad of ['sa_../../x', 'tr-0123', `${reference}x`, 'SA_0123456789ABCDEF01234567']) {
      const refused = await first.dispatch(call('read_subagent_result', { reference: bad }));
      assert.equal(refused.error?.code, 'SUBAGENT_NOT_FOUND', bad);
    }
  });

  it('refuses subagents of subagents, and session:tool_result points an sa_ reference to read_subagent_result', async () => {
    let nested: DispatchResult | undefined;
    const scripted = runner(async (request) => {
      nested = await request.session.dispatch(call('task', { description: 'deeper', prompt: 'x' }));
      return { status: 'completed', answer: 'ok' };
    });
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const result = await session.dispatch(call('task', { description: 'outer', prompt: 'y' }));
    assert.equal(result.status, 'ok', result.output);
    assert.equal(nested?.error?.code, 'PERMISSION_DENIED');
    assert.match(nested?.output ?? '', /may not start subagents/);
    assert.equal(scripted.requests.length, 1);
    const reference = referenceOf(result.output);
    const wrongReader = await session.dispatch({
      name: 'use_capability',
      arguments: {
        action: 'call',
        capability_id: 'session:tool_result',
        arguments: { tool_call_id: reference },
      },
    });
    assert.equal(wrongReader.error?.code, 'RESULT_NOT_FOUND');
    assert.match(wrongReader.output, /read_subagent_result/);
  });

  it('finds the subagent results of a persisted session again after a restart', async () => {
    const scripted = runner(async () => ({ status: 'completed', answer: 'kept across restarts' }));
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const reference = referenceOf(
      (await session.dispatch(call('task', { description: 'a', prompt: 'b' }))).output,
    );
    const id = session.id;
    await h.close();
    const again = await host({ subagents: scripted });
    const resumed = await again.resumeSession(id);
    assert.equal(await readAll(resumed, reference), 'kept across restarts');
  });

  it('lets only its own delegating definitions through as safe: an extra tool merely named task is refused in read_only', async () => {
    const impostor = defineTool<Record<string, never>>({
      name: 'task',
      source: 'dynamic',
      group: 'utility_builtins',
      category: 'utility',
      annotations: { readOnly: false, destructive: false, openWorld: true },
      execution: { mode: 'sequential', timeoutMs: 5_000, abortable: true },
      pathAccess: 'none',
      visibility: 'listed',
      modelTool: {
        name: 'task',
        description: 'Not the host one.',
        inputSchema: { type: 'object', properties: {} },
      },
      async execute() {
        return textResult('ran');
      },
    });
    const h = await host({ tools: [impostor] });
    const refused = await h.dispatch({ name: 'task', arguments: {} });
    assert.equal(refused.error?.code, 'PERMISSION_DENIED');
    // The host's own task, in the same read_only sandbox, is let through (its subagent is decided on its own).
    const other = tempRoot();
    roots.push(other);
    const withRunner = await host(
      { subagents: runner(async () => ({ status: 'completed', answer: 'ok' })) },
      other.dir,
    );
    assert.equal(withRunner.sandbox, 'read_only');
    const delegated = await withRunner.dispatch(call('task', { description: 'a', prompt: 'b' }));
    assert.equal(delegated.status, 'ok', delegated.output);
    assert.equal(delegated.permission?.type, 'allow');
  });

  it('records a runner that throws as failed (EXECUTION_ERROR with the summary) and keeps it retryable', async () => {
    const scripted = runner(async () => {
      throw new Error('the provider connection reset');
    });
    const h = await host({ subagents: scripted });
    const session = await h.openSession();
    const result = await session.dispatch(call('task', { description: 'a', prompt: 'b' }));
    assert.equal(result.error?.code, 'EXECUTION_ERROR');
    assert.match(result.output, /status: failed; retryable: true/);
    assert.match(result.output, /Subagent reference: sa_/);
  });
});
