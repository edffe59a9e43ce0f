import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type Json,
  makeProject,
  pidsMatching,
  serverPidsMatching,
  runToolhost,
  SessionDriver,
  uniqueSleep,
  waitFor,
} from './helpers.js';

const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);
/** An SDK-built stdio server with a large text resource (capability-proxy's test fixture). */
const RESOURCE_FIXTURE = fileURLToPath(
  new URL('../../../packages/capability-proxy/test/fixtures/image-resource-server.mjs', import.meta.url),
);

async function call(session: SessionDriver, args: Record<string, unknown>): Promise<Json> {
  const line = await session.send({ name: 'use_capability', arguments: args });
  assert.equal(typeof line.output, 'string');
  return line;
}

function ok(line: Json): Json {
  assert.equal(line.status, 'ok', line.output);
  return line;
}

describe('toolhost session: MCP resources and prompts of server-everything', () => {
  it('lists them without a process starting, reads a text and a binary resource, gets a prompt with arguments, refuses a missing required argument before any call; the surface bytes are unchanged', async () => {
    // A unique argument (the server ignores what follows its transport) finds this test's server.
    const marker = `mcpres-${uniqueSleep()}`;
    const config = {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio', marker] } },
      // The server is not `trusted`, so its read-only hints are not believed: the rule engine decides
      // reads and prompts by their rule names.
      permissions: { allow: ['mcp__everything__read_resource', 'mcp__everything__prompt'] },
    };
    const project = await makeProject({
      'toolhost.config.json': JSON.stringify(config),
      'README.md': '# x\n',
    });
    try {
      const trusted = await runToolhost(['trust'], { cwd: project.root });
      assert.equal(trusted.code, 0, trusted.stderr);
      const surfaceBefore = await runToolhost(['tools', '--json'], { cwd: project.root });
      assert.equal(surfaceBefore.code, 0, surfaceBefore.stderr);

      // A first session connects the server once; its resources, templates and prompts are cached.
      const first = SessionDriver.start([], { cwd: project.root });
      try {
        const connected = ok(await call(first, { action: 'call', capability_id: 'mcp-server:everything' }));
        assert.match(connected.output, /It also offers 7 resources, 2 resource templates and 4 prompts/);
        const exit = await first.close();
        assert.equal(exit.code, 0, first.stderr);
      } finally {
        first.kill();
      }
      await waitFor(() => pidsMatching(marker).length === 0);

      const session = SessionDriver.start([], { cwd: project.root });
      try {
        const list = ok(await call(session, { action: 'list' }));
        assert.match(list.output, /7 resources, 2 resource templates, 4 prompts \(cached\)/);
        const search = ok(await call(session, { action: 'search', query: 'static document features' }));
        assert.match(
          search.output,
          /mcp-resource:everything\/demo:\/\/resource\/static\/document\/features\.md/,
        );
        const inspect = ok(
          await call(session, { action: 'inspect', capability_id: 'mcp-prompt:everything/args-prompt' }),
        );
        assert.match(inspect.output, /- city \(required\): Name of the city/);
        const missing = await call(session, {
          action: 'call',
          capability_id: 'mcp-prompt:everything/args-prompt',
          arguments: { state: 'SECRET-STATE' },
        });
        assert.equal(missing.status, 'error');
        assert.equal(missing.error.code, 'ARGUMENT_VALIDATION');
        assert.match(missing.output, /missing required argument "city"/);
        assert.doesNotMatch(missing.output, /SECRET-STATE/);
        assert.deepEqual(
          pidsMatching(marker),
          [],
          'nothing started for list, search, inspect or a refused call',
        );

        const text = ok(
          await call(session, {
            action: 'call',
            capability_id: 'mcp-resource:everything/demo://resource/static/document/features.md',
          }),
        );
        assert.match(
          text.output,
          /\[resource demo:\/\/resource\/static\/document\/features\.md \(text\/markdown\)\]/,
        );
        assert.match(text.output, /# Everything Server - Features/);
        const binary = ok(
          await call(session, {
            action: 'call',
            capability_id: 'mcp-resource:everything/demo://resource/dynamic/blob/{resourceId}',
            arguments: { resourceId: '5' },
          }),
        );
        assert.match(
          binary.output,
          /\[binary resource demo:\/\/resource\/dynamic\/blob\/5 \(text\/plain\), \d+ bytes, not shown/,
        );
        assert.doesNotMatch(binary.output, /This is a base64 blob/);
        const prompt = ok(
          await call(session, {
            action: 'call',
            capability_id: 'mcp-prompt:everything/args-prompt',
            arguments: { city: 'Bergen', state: 'Vestland' },
          }),
        );
        assert.match(prompt.output, /\[user\]\nWhat's weather in Bergen, Vestland\?/);
        assert.equal(serverPidsMatching(marker).length, 1, 'the server started once, for the reads');
        const exit = await session.close();
        assert.equal(exit.code, 0, session.stderr);
        await waitFor(() => pidsMatching(marker).length === 0);
      } finally {
        session.kill();
      }
      const surfaceAfter = await runToolhost(['tools', '--json'], { cwd: project.root });
      assert.equal(surfaceAfter.stdout, surfaceBefore.stdout, 'the provider surface bytes are unchanged');
    } finally {
      await project.cleanup();
    }
  });

  it('permission rules see reads as mcp__everything__read_resource and prompts as mcp__everything__prompt: a deny refuses before the server starts, no rule asks a person', async () => {
    const marker = `mcpres-${uniqueSleep()}`;
    const config = {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio', marker] } },
      permissions: { deny: ['mcp__everything__prompt'] },
    };
    const project = await makeProject({
      'toolhost.config.json': JSON.stringify(config),
      'README.md': '# x\n',
    });
    try {
      const trusted = await runToolhost(['trust'], { cwd: project.root });
      assert.equal(trusted.code, 0, trusted.stderr);
      const session = SessionDriver.start([], { cwd: project.root });
      try {
        const denied = await call(session, {
          action: 'call',
          capability_id: 'mcp-prompt:everything/simple-prompt',
        });
        assert.equal(denied.status, 'error', denied.output);
        assert.match(denied.output, /mcp__everything__prompt/);
        assert.deepEqual(pidsMatching(marker), [], 'a denied prompt starts no server');
        // No rule for reads: the server is not trusted, so its read is not believed read-only and
        // a person is asked (none in this session).
        const read = await call(session, {
          action: 'call',
          capability_id: 'mcp-resource:everything/demo://resource/static/document/features.md',
        });
        assert.equal(read.status, 'error', read.output);
        assert.equal(read.error.code, 'APPROVAL_REQUIRED', read.output);
        assert.match(read.output, /mcp__everything__read_resource/);
        const exit = await session.close();
        assert.equal(exit.code, 0, session.stderr);
        await waitFor(() => pidsMatching(marker).length === 0);
      } finally {
        session.kill();
      }
    } finally {
      await project.cleanup();
    }
  });

  it('a text resource over the result budget is cut like any result and paged whole through session:tool_result', async () => {
    const config = {
      mcpServers: { files: { command: process.execPath, args: [RESOURCE_FIXTURE] } },
      permissions: { allow: ['mcp__files__read_resource'] },
    };
    const project = await makeProject({
      'toolhost.config.json': JSON.stringify(config),
      'README.md': '# x\n',
    });
    try {
      const trusted = await runToolhost(['trust'], { cwd: project.root });
      assert.equal(trusted.code, 0, trusted.stderr);
      const session = SessionDriver.start([], { cwd: project.root });
      try {
        const read = await session.send({
          id: 'read-big',
          name: 'use_capability',
          arguments: { action: 'call', capability_id: 'mcp-resource:files/fixture://big.txt' },
        });
        ok(read);
        assert.equal(typeof read.resultRef, 'string', 'a result over the budget is kept and referenced');
        assert.match(read.output, /^\[resource fixture:\/\/big\.txt \(text\/plain\)\]\nline 0 /);
        assert.ok(Buffer.byteLength(read.output) <= 40 * 1024, 'the model sees a cut result');
        let offset = 0;
        let whole = '';
        for (let page = 0; page < 40; page++) {
          const next = ok(
            await call(session, {
              action: 'call',
              capability_id: 'session:tool_result',
              arguments: { tool_call_id: 'read-big', result_ref: read.resultRef, offset, limit: 24_576 },
            }),
          );
          const newline = next.output.indexOf('\n');
          const header = JSON.parse(next.output.slice(0, newline));
          whole += next.output.slice(newline + 1);
          if (header.complete) break;
          offset = header.next_offset;
        }
        assert.ok(whole.endsWith('line 5999 xxxxxxxxxxxxxxxxxxxx end'), whole.slice(-80));
        assert.match(whole, /\nline 3000 x{20}\n/);
        const exit = await session.close();
        assert.equal(exit.code, 0, session.stderr);
      } finally {
        session.kill();
      }
    } finally {
      await project.cleanup();
    }
  });
});
