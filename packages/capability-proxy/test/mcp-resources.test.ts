import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolhostError, toModelTools } from '@toolhost/contracts';
import {
  type CapabilityAuthorizationRequest,
  type CapabilityProxy,
  type CapabilityProxyOptions,
  createCapabilityProxy,
  type RefuseCapability,
  schemaCachePath,
} from '../src/index.js';
import { parseMcpServers } from '../src/mcp-config.js';
import { toResourceOutput } from '../src/mcp-content.js';
import { checkContentArguments, templateVariables } from '../src/mcp-resources.js';
import {
  childPids,
  fixtureServer,
  GENEROUS_TIMEOUTS,
  npmServer,
  recordingAuthorize,
  run,
  seen,
  tempDir,
  waitFor,
} from './helpers.js';

const IMAGE_SERVER = fileURLToPath(new URL('./fixtures/image-resource-server.mjs', import.meta.url));
const STATIC_DOC = 'mcp-resource:everything/demo://resource/static/document/features.md';
const TEXT_TEMPLATE = 'mcp-resource:everything/demo://resource/dynamic/text/{resourceId}';
const BLOB_TEMPLATE = 'mcp-resource:everything/demo://resource/dynamic/blob/{resourceId}';
const ARGS_PROMPT = 'mcp-prompt:everything/args-prompt';

function everythingProxy(
  stateDir: string,
  extra: Partial<CapabilityProxyOptions> = {},
): { proxy: CapabilityProxy; requests: CapabilityAuthorizationRequest[] } {
  const { requests, authorize } = recordingAuthorize();
  const proxy = createCapabilityProxy({
    stateDir,
    mcpServers: { everything: npmServer('everything', 'stdio') },
    authorize,
    timeouts: GENEROUS_TIMEOUTS,
    ...extra,
  });
  return { proxy, requests };
}

/** Connects server-everything once, so its schema cache holds its resources, templates and prompts. */
async function warmCache(stateDir: string): Promise<void> {
  const { proxy } = everythingProxy(stateDir);
  try {
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:everything' });
    assert.ok(connected.ok, seen(connected));
    assert.match(seen(connected), /It also offers 7 resources, 2 resource templates and 4 prompts/);
  } finally {
    await proxy.close();
  }
}

describe('MCP resources and prompts through use_capability (server-everything)', () => {
  it('lists, searches and inspects resources, templates and prompts from the cache without starting a process, and the surface bytes never change', async (t) => {
    const stateDir = tempDir(t);
    const cold = everythingProxy(stateDir);
    const surface = JSON.stringify(toModelTools([cold.proxy.tool]));
    assert.match(seen(await run(cold.proxy, { action: 'list' })), /tools unknown until it connects/);
    await cold.proxy.close();
    await warmCache(stateDir);
    const cache = JSON.parse(readFileSync(schemaCachePath(stateDir, serverOf(stateDir)), 'utf8'));
    assert.equal(cache.resources.length, 7);
    assert.equal(cache.resourceTemplates.length, 2);
    assert.equal(cache.prompts.length, 4);

    const { proxy, requests } = everythingProxy(stateDir);
    t.after(() => proxy.close());
    const list = seen(await run(proxy, { action: 'list' }));
    assert.match(list, /7 resources, 2 resource templates, 4 prompts \(cached\)/);
    const search = await run(proxy, { action: 'search', query: 'dynamic text resource' });
    assert.match(
      seen(search),
      new RegExp(`${escapeRegExp(TEXT_TEMPLATE)}: Resource template "Dynamic Text Resource"`),
    );
    assert.match(seen(search), /\(cached list; server not started\)/);
    const prompt = seen(await run(proxy, { action: 'inspect', capability_id: ARGS_PROMPT }));
    assert.match(prompt, /from the cached list/);
    assert.match(prompt, /- city \(required\): Name of the city/);
    assert.match(prompt, /- state \(optional\)/);
    assert.match(prompt, /Permission: asked as mcp__everything__prompt \(read-only\)/);
    const resource = seen(await run(proxy, { action: 'inspect', capability_id: STATIC_DOC }));
    assert.match(resource, /Resource "features\.md", MIME type text\/markdown/);
    assert.match(resource, /Static document file exposed from \/docs: features\.md/);
    const template = seen(await run(proxy, { action: 'inspect', capability_id: BLOB_TEMPLATE }));
    assert.match(template, /Variables \(strings, inside `arguments`\): resourceId \(required\)/);
    assert.match(template, /arguments=\{"resourceId":"<string>"\}/);
    const server = seen(await run(proxy, { action: 'inspect', capability_id: 'mcp-server:everything' }));
    assert.match(server, /Prompts \(4\):\n- mcp-prompt:everything\/simple-prompt\(\)/);
    assert.match(server, /- mcp-prompt:everything\/args-prompt\(city, state\?\)/);
    assert.deepEqual(proxy.serverProcesses(), [], 'nothing started');
    assert.deepEqual(requests, [], 'nothing asked');
    assert.equal(proxy.inventory().servers[0]?.promptCount, 4);

    // Reading and getting: the surface stays byte-identical.
    assert.ok((await run(proxy, { action: 'call', capability_id: STATIC_DOC })).ok);
    assert.equal(JSON.stringify(toModelTools([proxy.tool])), surface);
  });

  it('reads a text resource, a binary resource as a value-free summary, and expands resource templates', async (t) => {
    const stateDir = tempDir(t);
    const { proxy, requests } = everythingProxy(stateDir);
    t.after(() => proxy.close());
    // Starting the server is not read-only; once connected, an untrusted server's read is scheduled
    // as if nothing were known (its hints are claims), like its tools.
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: STATIC_DOC }), {
      readOnly: false,
      destructive: false,
    });
    const doc = await run(proxy, { action: 'call', capability_id: STATIC_DOC });
    assert.deepEqual(proxy.callAnnotations({ action: 'call', capability_id: STATIC_DOC }), {});
    assert.ok(doc.ok, seen(doc));
    assert.match(
      seen(doc),
      /^\[resource demo:\/\/resource\/static\/document\/features\.md \(text\/markdown\)\]\n# Everything Server - Features/,
    );
    assert.equal(doc.output.untrusted, true);
    const text = await run(proxy, {
      action: 'call',
      capability_id: TEXT_TEMPLATE,
      arguments: { resourceId: '4' },
    });
    assert.ok(text.ok, seen(text));
    assert.match(
      seen(text),
      /\[resource demo:\/\/resource\/dynamic\/text\/4 \(text\/plain\)\]\nResource 4: This is a plaintext resource/,
    );
    const blob = await run(proxy, {
      action: 'call',
      capability_id: BLOB_TEMPLATE,
      arguments: { resourceId: 7 },
    });
    assert.ok(blob.ok, seen(blob));
    // The blob is base64 of "Resource 7: This is a base64 blob created at <time>": neither is shown.
    assert.match(
      seen(blob),
      /^\[binary resource demo:\/\/resource\/dynamic\/blob\/7 \(text\/plain\), \d+ bytes, not shown/,
    );
    assert.doesNotMatch(seen(blob), /This is a base64 blob|UmVzb3VyY2Ug/);
    assert.ok(Number(blob.output.details?.blobBytes) > 40);
    assert.deepEqual(
      requests.map((request) => request.toolName),
      [
        'mcp_connect__everything',
        'mcp__everything__read_resource',
        'mcp__everything__read_resource',
        'mcp__everything__read_resource',
      ],
    );
    const read = requests[1];
    assert.equal(read?.kind, 'mcp-tool');
    if (read?.kind === 'mcp-tool') {
      assert.equal(read.method, 'resources/read');
      assert.equal(read.tool, 'read_resource');
      assert.deepEqual(read.annotations, { readOnly: true, destructive: false, idempotent: true });
      assert.deepEqual(read.arguments, { uri: 'demo://resource/static/document/features.md' });
    }
    // A plain resource takes no arguments; a template needs its variables. Neither is sent.
    const before = requests.length;
    const extra = await run(proxy, {
      action: 'call',
      capability_id: STATIC_DOC,
      arguments: { page: 'SECRET-1' },
    });
    assert.equal(extra.ok ? undefined : extra.error.code, 'ARGUMENT_VALIDATION');
    assert.doesNotMatch(seen(extra), /SECRET-1/);
    const missing = await run(proxy, { action: 'call', capability_id: TEXT_TEMPLATE, arguments: {} });
    assert.equal(missing.ok ? undefined : missing.error.code, 'ARGUMENT_VALIDATION');
    assert.match(seen(missing), /missing required variable "resourceId"/);
    assert.equal(requests.length, before, 'nothing asked for refused calls');
  });

  it('gets a prompt with arguments; a missing required or an unknown argument is refused before any connection, never echoing values', async (t) => {
    const stateDir = tempDir(t);
    await warmCache(stateDir);
    const { proxy, requests } = everythingProxy(stateDir);
    t.after(() => proxy.close());
    const missing = await run(proxy, {
      action: 'call',
      capability_id: ARGS_PROMPT,
      arguments: { state: 'SECRET-STATE-VALUE' },
    });
    assert.equal(missing.ok ? undefined : missing.error.code, 'ARGUMENT_VALIDATION');
    assert.match(
      seen(missing),
      /missing required argument "city"; its arguments: city \(required\), state \(optional\); nothing was sent/,
    );
    assert.doesNotMatch(seen(missing), /SECRET-STATE-VALUE/);
    const unknown = await run(proxy, {
      action: 'call',
      capability_id: ARGS_PROMPT,
      arguments: { city: 'Oslo', zip: 'SECRET-ZIP-VALUE' },
    });
    assert.equal(unknown.ok ? undefined : unknown.error.code, 'ARGUMENT_VALIDATION');
    assert.match(seen(unknown), /unknown argument "zip"/);
    assert.doesNotMatch(seen(unknown), /SECRET-ZIP-VALUE|Oslo/);
    const notString = await run(proxy, {
      action: 'call',
      capability_id: ARGS_PROMPT,
      arguments: { city: { x: 1 } },
    });
    assert.match(seen(notString), /argument "city" must be a string/);
    assert.deepEqual(proxy.serverProcesses(), [], 'no server started for refused calls');
    assert.deepEqual(requests, [], 'nothing asked for refused calls');

    const got = await run(proxy, {
      action: 'call',
      capability_id: ARGS_PROMPT,
      arguments: { city: 'Oslo', state: 'Viken' },
    });
    assert.ok(got.ok, seen(got));
    assert.equal(
      seen(got),
      '[prompt args-prompt of MCP server "everything", 1 message]\n[user]\nWhat\'s weather in Oslo, Viken?',
    );
    const embedded = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-prompt:everything/resource-prompt',
      arguments: { resourceType: 'Text', resourceId: '2' },
    });
    assert.ok(embedded.ok, seen(embedded));
    assert.match(
      seen(embedded),
      /\[user\]\n\[resource demo:\/\/resource\/dynamic\/text\/2 \(text\/plain\)\]\nResource 2: /,
    );
    const asked = (requests as CapabilityAuthorizationRequest[]).find(
      (request) => request.toolName === 'mcp__everything__prompt',
    );
    assert.equal(asked?.kind === 'mcp-tool' ? asked.method : undefined, 'prompts/get');
    assert.deepEqual(asked?.annotations, { readOnly: true, destructive: false, idempotent: true });
  });

  it('a deny rule on mcp__<server>__read_resource refuses a read before the server starts, and list and search leave resources out', async (t) => {
    const stateDir = tempDir(t);
    await warmCache(stateDir);
    const denied: string[] = [];
    const refusal: RefuseCapability = (target) => {
      if (target.kind === 'mcp-tool' && target.toolName === 'mcp__everything__read_resource') {
        denied.push(target.toolName);
        return new ToolhostError({
          code: 'PERMISSION_DENIED',
          message: 'denied by rule mcp__everything__read_resource',
        });
      }
      return undefined;
    };
    const { proxy, requests } = everythingProxy(stateDir, { refusal });
    t.after(() => proxy.close());
    const read = await run(proxy, { action: 'call', capability_id: STATIC_DOC });
    assert.equal(read.ok ? undefined : read.error.code, 'PERMISSION_DENIED');
    assert.deepEqual(proxy.serverProcesses(), []);
    assert.deepEqual(requests, []);
    const search = seen(await run(proxy, { action: 'search', query: 'static document file' }));
    assert.doesNotMatch(search, /- mcp-resource:/);
    assert.match(search, /Left out: \d+ matches that this session refuses/);
    // Prompts are a different rule: still offered.
    assert.match(
      seen(await run(proxy, { action: 'search', query: 'arguments prompt' })),
      /- mcp-prompt:everything\/args-prompt/,
    );
  });

  it('notifications/resources/list_changed refreshes the live resource list and the cache', async (t) => {
    const stateDir = tempDir(t);
    const { proxy } = everythingProxy(stateDir);
    t.after(() => proxy.close());
    assert.ok((await run(proxy, { action: 'call', capability_id: 'mcp-server:everything' })).ok);
    assert.equal(proxy.inventory().servers[0]?.resourceCount, 7);
    const gzip = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:everything/gzip-file-as-resource',
      arguments: { name: 'note.txt.gz', data: 'data:text/plain;base64,aGVsbG8gcmVzb3VyY2VzCg==' },
    });
    assert.ok(gzip.ok, seen(gzip));
    // The server registers a session resource and announces it with notifications/resources/list_changed.
    await waitFor(
      () => proxy.inventory().servers[0]?.resourceCount === 8,
      30_000,
      'the refreshed resource list',
    );
    const cache = JSON.parse(readFileSync(schemaCachePath(stateDir, serverOf(stateDir)), 'utf8'));
    assert.ok(
      cache.resources.some(
        (resource: { uri: string }) => resource.uri === 'demo://resource/session/note.txt.gz',
      ),
    );
    const read = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-resource:everything/demo://resource/session/note.txt.gz',
    });
    assert.ok(read.ok, seen(read));
    assert.match(
      seen(read),
      /^\[binary resource demo:\/\/resource\/session\/note\.txt\.gz \(application\/gzip\), \d+ bytes, not shown/,
    );
  });

  it('answers a resource or prompt id naming an unconfigured server with a resolution failure naming the id shape, starting nothing and never echoing the id', async (t) => {
    const stateDir = tempDir(t);
    await warmCache(stateDir);
    const { proxy, requests } = everythingProxy(stateDir);
    t.after(() => proxy.close());
    const children = childPids().length;
    for (const [capability, kind] of [
      ['mcp-resource:nowhere/demo://secret-uri-7731', 'mcp-resource'],
      ['mcp-prompt:nowhere/secret-prompt-7731', 'mcp-prompt'],
    ] as const) {
      const answer = await run(proxy, { action: 'call', capability_id: capability });
      assert.ok(!answer.ok);
      assert.equal(answer.error.code, 'CAPABILITY_RESOLUTION_FAILED', seen(answer));
      assert.match(
        answer.error.toModelText(),
        new RegExp(`no configured MCP server matches this id \\(expected ${kind}:<server>/`),
      );
      assert.ok(!seen(answer).includes('7731'), 'the id the model sent is not echoed');
    }
    assert.equal(requests.length, 0, 'nothing was asked');
    assert.equal(childPids().length, children, 'nothing was started');
  });

  it('an image resource is image content; an SVG blob is a value-free summary', async (t) => {
    const { authorize } = recordingAuthorize();
    const proxy = createCapabilityProxy({
      mcpServers: { images: { command: process.execPath, args: [IMAGE_SERVER] } },
      authorize,
      timeouts: GENEROUS_TIMEOUTS,
    });
    t.after(() => proxy.close());
    const pixel = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-resource:images/fixture://pixel.png',
    });
    assert.ok(pixel.ok, seen(pixel));
    const image = pixel.output.content.find((block) => block.type === 'image');
    assert.equal(image?.type === 'image' ? image.mimeType : undefined, 'image/png');
    assert.equal(
      image?.type === 'image' ? Buffer.from(image.data, 'base64').subarray(1, 4).toString() : '',
      'PNG',
    );
    const svg = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-resource:images/fixture://drawing.svg',
    });
    assert.ok(svg.ok, seen(svg));
    assert.match(
      seen(svg),
      /\[binary resource fixture:\/\/drawing\.svg \(image\/svg\+xml\), \d+ bytes, not shown/,
    );
    assert.doesNotMatch(seen(svg), /SVG-SECRET-TEXT/);
    assert.equal(
      svg.output.content.some((block) => block.type === 'image'),
      false,
    );
  });
});

describe('resource templates and content arguments', () => {
  it('reads RFC 6570 variables (operators, prefixes, explode; query variables optional) and rejects broken templates', () => {
    assert.deepEqual(templateVariables('demo://x/{id}'), [{ name: 'id', required: true }]);
    assert.deepEqual(templateVariables('file:///{+path}{?page,limit:3}{&q*}'), [
      { name: 'path', required: true },
      { name: 'page', required: false },
      { name: 'limit', required: false },
      { name: 'q', required: false },
    ]);
    assert.deepEqual(templateVariables('plain://no/vars'), []);
    for (const broken of ['x://{id', 'x://id}', 'x://{}', 'x://{a b}', 'x://{=id}', 'x://{{id}}']) {
      assert.equal(templateVariables(broken), undefined, broken);
    }
  });

  it('checks arguments by name and never puts a value in the problem', () => {
    const declared = [
      { name: 'city', required: true },
      { name: 'state', required: false },
    ];
    assert.deepEqual(checkContentArguments({ city: 'A', state: 3 }, declared, 'argument'), {
      ok: true,
      values: { city: 'A', state: '3' },
    });
    const problems = [
      checkContentArguments({ state: 'VALUE-1' }, declared, 'argument'),
      checkContentArguments({ city: 'VALUE-2', other: 'VALUE-3' }, declared, 'argument'),
      checkContentArguments({ city: ['VALUE-4'] }, declared, 'argument'),
      checkContentArguments('VALUE-5', declared, 'argument'),
    ];
    assert.deepEqual(
      problems.map((problem) => (problem.ok ? 'ok' : problem.reason)),
      ['missing', 'unknown', 'not_a_string', 'not_an_object'],
    );
    assert.doesNotMatch(JSON.stringify(problems), /VALUE-/);
  });

  it('passes only the common image types on as image content, within the size bound', () => {
    const origin = { server: 's', capabilityId: 'mcp-resource:s/x' };
    const png = toResourceOutput(
      { contents: [{ uri: 'x://a.png', mimeType: 'image/png', blob: 'iVBORw0KGgo=' }] },
      origin,
    );
    assert.deepEqual(
      png.content.map((block) => block.type),
      ['text', 'image'],
    );
    const hugeBlob = 'A'.repeat(Math.ceil(((5 * 1024 * 1024 + 1) * 4) / 3) + 4);
    const huge = toResourceOutput(
      { contents: [{ uri: 'x://b.png', mimeType: 'image/png', blob: hugeBlob }] },
      origin,
    );
    assert.deepEqual(
      huge.content.map((block) => block.type),
      ['text', 'resource_link'],
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function serverOf(_stateDir: string) {
  const parsed = parseMcpServers({ everything: npmServer('everything', 'stdio') });
  assert.ok(parsed.ok);
  const server = parsed.value[0];
  assert.ok(server);
  return server;
}

describe('a server that never answers its resource and prompt lists', () => {
  it('keeps its tools usable: the lists stay unknown after requestMs, and a read is still sent (the server answers for itself)', async (t) => {
    const { authorize } = recordingAuthorize();
    const proxy = createCapabilityProxy({
      mcpServers: { stuck: fixtureServer('--hang-resources') },
      authorize,
      timeouts: { handshakeMs: 30_000, requestMs: 1_500, totalMs: 60_000 },
    });
    t.after(() => proxy.close());
    const echo = await run(proxy, {
      action: 'call',
      capability_id: 'mcp-tool:stuck/echo',
      arguments: { message: 'still here' },
    });
    assert.ok(echo.ok, seen(echo));
    assert.match(seen(echo), /still here/);
    const connected = await run(proxy, { action: 'call', capability_id: 'mcp-server:stuck' });
    assert.ok(connected.ok, seen(connected));
    assert.match(seen(connected), /its resource or prompt list could not be read/);
    assert.match(
      seen(await run(proxy, { action: 'list' })),
      /resources unknown, resource templates unknown, prompts unknown \(live\)/,
    );
    const read = await run(proxy, { action: 'call', capability_id: 'mcp-resource:stuck/x://a' });
    assert.equal(read.ok ? undefined : read.error.code, 'MCP_CALL_FAILED');
    assert.match(seen(read), /answered with JSON-RPC error -32601 \(resource read\)/);
  });
});
