import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { type Json, makeProject, runToolhost } from './helpers.js';

/** A loopback OTLP/HTTP receiver that keeps every request it gets. */
async function receiver(): Promise<{
  url: string;
  requests: { path: string; contentType: string; body: Buffer }[];
  close: () => Promise<void>;
}> {
  const requests: { path: string; contentType: string; body: Buffer }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        path: request.url ?? '',
        contentType: String(request.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const SECRET_ARGUMENT = 'zebra-unique-argument-7f3a91';

const CALLS = [
  { id: 'c1', name: 'read_file', arguments: { path: 'README.md' } },
  { id: 'c2', name: 'write_file', arguments: { path: 'x.txt', content: SECRET_ARGUMENT } },
  {
    id: 'c3',
    name: 'use_capability',
    arguments: { action: 'call', capability_id: 'tool:glob', arguments: { pattern: '*.md' } },
  },
  { id: 'c4', name: 'tool:grep', arguments: { pattern: SECRET_ARGUMENT } },
  { id: 'c5', name: 'tool:ls', arguments: {} },
];

function attributesOf(span: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of span.attributes ?? []) {
    out[key] = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
  }
  return out;
}

describe('toolhost (OpenTelemetry)', () => {
  it('sends one execute_tool span per call with the GenAI attributes and no argument value (OTLP http/json)', async () => {
    const otlp = await receiver();
    const project = await makeProject({ 'README.md': '# demo\n' });
    try {
      const run = await runToolhost(['session'], {
        cwd: project.root,
        input: `${CALLS.map((call) => JSON.stringify(call)).join('\n')}\n`,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: 'toolhost-test',
        },
      });
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Json);
      assert.equal(lines[1].error.code, 'PERMISSION_DENIED');
      const traceRequests = otlp.requests.filter((request) => request.path === '/v1/traces');
      assert.ok(traceRequests.length >= 1, 'the spans were sent when the session ended');
      const payload = traceRequests.map((request) => request.body.toString('utf8')).join('\n');
      assert.ok(!payload.includes(SECRET_ARGUMENT), 'no argument value reaches a span');
      const spans = traceRequests.flatMap((request) =>
        (JSON.parse(request.body.toString('utf8')) as Json).resourceSpans.flatMap((resource: Json) =>
          resource.scopeSpans.flatMap((scope: Json) => scope.spans),
        ),
      );
      assert.equal(spans.length, 5);
      const byCall = new Map(spans.map((span: Json) => [attributesOf(span)['gen_ai.tool.call.id'], span]));
      const expected: Record<string, string> = {
        c1: 'read_file',
        c2: 'write_file',
        c3: 'glob',
        c4: 'grep',
        c5: 'ls',
      };
      for (const [callId, tool] of Object.entries(expected)) {
        const span = byCall.get(callId);
        assert.ok(span, `a span for ${callId}`);
        assert.equal(span.name, `execute_tool ${tool}`);
        const attributes = attributesOf(span);
        assert.equal(attributes['gen_ai.operation.name'], 'execute_tool');
        assert.equal(attributes['gen_ai.tool.name'], tool);
        assert.match(String(attributes['toolhost.session.id']), /^ses_/);
        assert.ok(
          (span.events as Json[]).some((event: Json) => event.name === 'permission-decided'),
          `${callId} records its permission decision`,
        );
      }
      const refused = attributesOf(byCall.get('c2'));
      assert.equal(refused['error.type'], 'PERMISSION_DENIED');
      assert.equal(byCall.get('c2').status.code, 2, 'the refused call is an ERROR span');
      assert.equal(attributesOf(byCall.get('c3'))['toolhost.capability.id'], 'tool:glob');
    } finally {
      await project.cleanup();
      await otlp.close();
    }
  });

  it('sends protobuf by default, and sends nothing at all without the OTEL variables', async () => {
    const otlp = await receiver();
    const project = await makeProject({ 'README.md': '# demo\n' });
    try {
      const input = `${JSON.stringify(CALLS[0])}\n`;
      const quiet = await runToolhost(['session'], { cwd: project.root, input });
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(otlp.requests.length, 0, 'without the variables nothing is sent');
      const traced = await runToolhost(['session'], {
        cwd: project.root,
        input,
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/custom/traces` },
      });
      assert.equal(traced.code, 0, traced.stderr);
      assert.ok(otlp.requests.some((request) => request.path === '/custom/traces'));
      assert.match(otlp.requests[0]?.contentType ?? '', /application\/x-protobuf/);
      const disabled = await runToolhost(['session'], {
        cwd: project.root,
        input,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: 'true' },
      });
      assert.equal(disabled.code, 0);
      assert.equal(otlp.requests.length, 1, 'OTEL_SDK_DISABLED=true sends nothing');
    } finally {
      await project.cleanup();
      await otlp.close();
    }
  });
});

describe('toolhost serve (OpenTelemetry)', () => {
  it("continues an MCP client's traceparent: the execute_tool span is a child of the client's span", async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { CLI, cliEnv } = await import('./helpers.js');
    const otlp = await receiver();
    const project = await makeProject({ 'README.md': '# demo\n' });
    const client = new Client({ name: 'trace-test', version: '1.0.0' });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'serve'],
          cwd: project.root,
          env: cliEnv({
            OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          }) as Record<string, string>,
        }),
      );
      const result = await client.callTool({
        name: 'read_file',
        arguments: { path: 'README.md' },
        _meta: { traceparent: `00-${traceId}-${parentId}-01` },
      });
      assert.notEqual(result.isError, true);
      await client.close();
      const deadline = Date.now() + 60_000;
      while (!otlp.requests.some((request) => request.path === '/v1/traces') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const spans = otlp.requests
        .filter((request) => request.path === '/v1/traces')
        .flatMap((request) =>
          (JSON.parse(request.body.toString('utf8')) as Json).resourceSpans.flatMap((resource: Json) =>
            resource.scopeSpans.flatMap((scope: Json) => scope.spans),
          ),
        );
      const span = spans.find((candidate: Json) => candidate.name === 'execute_tool read_file');
      assert.ok(span, JSON.stringify(spans));
      assert.equal(span.traceId, traceId);
      assert.equal(span.parentSpanId, parentId);
    } finally {
      await client.close().catch(() => undefined);
      await project.cleanup();
      await otlp.close();
    }
  });
});
