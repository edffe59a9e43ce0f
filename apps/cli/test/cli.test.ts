import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Json, makeProject, runToolhost } from './helpers.js';

const COMMANDS = ['tools', 'compile', 'call', 'session', 'serve', 'run', 'replay', 'mcp'];
const DIALECTS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini'];

function oneLineReason(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `expected a one-line reason, got: ${stderr}`);
  assert.match(lines[0]!, /^toolhost: /);
  return lines[0]!;
}

describe('toolhost (command line)', () => {
  let project: Awaited<ReturnType<typeof makeProject>>;
  before(async () => {
    project = await makeProject({ 'README.md': '# demo\n' });
  });
  after(() => project.cleanup());

  it('prints help for every command with --help and help <command>, exit 0', async () => {
    for (const command of COMMANDS) {
      const flag = await runToolhost([command, '--help'], { cwd: project.root });
      assert.equal(flag.code, 0, flag.stderr);
      assert.match(flag.stdout, new RegExp(`^Usage: toolhost ${command}`));
      assert.match(flag.stdout, /--sandbox MODE/);
      const topic = await runToolhost(['help', command], { cwd: project.root });
      assert.equal(topic.stdout, flag.stdout);
    }
    const main = await runToolhost(['--help']);
    assert.equal(main.code, 0);
    for (const command of COMMANDS) assert.match(main.stdout, new RegExp(`\\n  ${command} `));
  });

  it('prints the version', async () => {
    const result = await runToolhost(['--version']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  it('exits 2 with a one-line reason on usage errors', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Usage: toolhost <command>/],
      [['nope'], /unknown command 'nope'/],
      [['tools', '--bogus'], /Unknown option '--bogus'/],
      [
        ['tools', '--sandbox', 'wide_open'],
        /--sandbox must be one of read_only, workspace_write, danger_full_access/,
      ],
      [['tools', '--approval', 'sometimes'], /--approval must be one of strict, on_request, never/],
      [['tools', '--surface', 'huge'], /--surface must be one of lean, full/],
      [['tools', '--dialect', 'cobol'], /--dialect must be one of/],
      [['tools', 'extra'], /tools takes no arguments/],
      [['call'], /call takes NAME \[JSON\]/],
      [['serve', '--http', 'eighty'], /--http takes a TCP port/],
      [
        [
          'run',
          '--max-rounds',
          '0',
          '--provider',
          'openai-compatible',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--model',
          'm',
        ],
        /--max-rounds/,
      ],
    ];
    for (const [args, reason] of cases) {
      const result = await runToolhost(args, { cwd: project.root });
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stdout, '');
      if (args.length === 0) assert.match(result.stderr, reason);
      else assert.match(oneLineReason(result.stderr), reason);
    }
  });

  it('exits 2 naming the field when the configuration is invalid (CONFIG_INVALID)', async () => {
    const bad = await makeProject({ 'toolhost.config.json': JSON.stringify({ permisions: { allow: [] } }) });
    try {
      const result = await runToolhost(['tools'], { cwd: bad.root });
      assert.equal(result.code, 2);
      assert.match(oneLineReason(result.stderr), /permisions/);
      const explicit = await runToolhost(['tools', '--config', 'missing.json'], { cwd: bad.root });
      assert.equal(explicit.code, 2);
      oneLineReason(explicit.stderr);
      const notJson = await makeProject({ 'toolhost.config.json': '{ not json' });
      try {
        const broken = await runToolhost(['tools', '--root', notJson.root]);
        assert.equal(broken.code, 2);
        oneLineReason(broken.stderr);
      } finally {
        await notJson.cleanup();
      }
    } finally {
      await bad.cleanup();
    }
  });

  it('exits 2 when the root does not exist', async () => {
    const result = await runToolhost(['tools', '--root', `${project.root}/nowhere`]);
    assert.equal(result.code, 2);
    assert.match(oneLineReason(result.stderr), /root/);
  });

  it('honours the configuration defaults when no flag is given, and flags over them', async () => {
    const configured = await makeProject({
      'toolhost.config.json': JSON.stringify({ defaults: { sandbox: 'workspace_write', surface: 'full' } }),
    });
    try {
      // Until the user approves the project file, its wider default sandbox is not applied.
      const untrusted = await runToolhost(['tools'], { cwd: configured.root });
      assert.equal(untrusted.code, 0, untrusted.stderr);
      assert.match(untrusted.stdout, /sandbox read_only, approval on_request, surface full/);
      assert.match(untrusted.stderr, /not trusted.*defaults\.sandbox.*toolhost trust/);
      const trusted = await runToolhost(['trust'], { cwd: configured.root });
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.match(trusted.stdout, /Approved .*toolhost\.config\.json.*defaults\.sandbox/);
      const fromConfig = await runToolhost(['tools'], { cwd: configured.root });
      assert.equal(fromConfig.code, 0, fromConfig.stderr);
      assert.equal(fromConfig.stderr, '');
      assert.match(fromConfig.stdout, /sandbox workspace_write, approval on_request, surface full/);
      const fromFlag = await runToolhost(['tools', '--sandbox', 'read_only'], { cwd: configured.root });
      assert.match(fromFlag.stdout, /sandbox read_only, approval on_request, surface full/);
    } finally {
      await configured.cleanup();
    }
  });
});

describe('toolhost tools', () => {
  let project: Awaited<ReturnType<typeof makeProject>>;
  before(async () => {
    project = await makeProject({ 'README.md': '# demo\n' });
  });
  after(() => project.cleanup());

  it('prints byte-identical JSON across runs, for the neutral surface and every dialect', async () => {
    for (const dialect of [undefined, ...DIALECTS]) {
      const args = ['tools', '--json', ...(dialect ? ['--dialect', dialect] : [])];
      const first = await runToolhost(args, { cwd: project.root });
      const second = await runToolhost(args, { cwd: project.root });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, second.stdout, `tools --json ${dialect ?? ''} differs between runs`);
      const parsed = JSON.parse(first.stdout) as { dialect: string; fingerprint: string; tools: unknown[] };
      assert.deepEqual(Object.keys(parsed), ['dialect', 'fingerprint', 'tools']);
      assert.equal(parsed.dialect, dialect ?? 'neutral');
      const expected = createHash('sha256').update(JSON.stringify(parsed.tools)).digest('hex').slice(0, 16);
      assert.equal(parsed.fingerprint, expected);
    }
  });

  it('prints each dialect in its wire form, without runtime metadata', async () => {
    const shapes: Record<string, (tool: Json) => string> = {
      'openai-chat': (tool) => {
        assert.equal(tool.type, 'function');
        assert.equal(tool.function.parameters.type, 'object');
        return tool.function.name;
      },
      'openai-responses': (tool) => {
        assert.equal(tool.type, 'function');
        assert.equal(typeof tool.strict, 'boolean');
        return tool.name;
      },
      anthropic: (tool) => {
        assert.equal(tool.input_schema.type, 'object');
        return tool.name;
      },
      gemini: (tool) => tool.name,
    };
    const neutral = JSON.parse((await runToolhost(['tools', '--json'], { cwd: project.root })).stdout);
    const names = neutral.tools.map((tool: { name: string }) => tool.name).sort();
    for (const dialect of DIALECTS) {
      const { stdout } = await runToolhost(['tools', '--json', '--dialect', dialect], { cwd: project.root });
      const tools = JSON.parse(stdout).tools as Json[];
      const list = dialect === 'gemini' ? tools[0].functionDeclarations : tools;
      assert.deepEqual(list.map(shapes[dialect]!).sort(), names);
      for (const key of [
        'source',
        'group',
        'category',
        'annotations',
        'pathAccess',
        'timeoutMs',
        'abortable',
      ]) {
        assert.ok(!stdout.includes(`"${key}"`), `${dialect} leaks ${key}`);
      }
    }
  });

  it('drops the editing tools from the lean surface in read_only and offers them in workspace_write', async () => {
    const names = async (sandbox: string) =>
      (
        JSON.parse(
          (await runToolhost(['tools', '--json', '--sandbox', sandbox], { cwd: project.root })).stdout,
        ).tools as { name: string }[]
      ).map((tool) => tool.name);
    const readOnly = await names('read_only');
    const writable = await names('workspace_write');
    for (const name of ['read_file', 'use_capability']) assert.ok(readOnly.includes(name), name);
    for (const name of ['write_file', 'edit_file']) {
      assert.ok(!readOnly.includes(name), `${name} is visible in read_only`);
      assert.ok(writable.includes(name), `${name} is missing in workspace_write`);
    }
  });

  it('prints a human listing with the fingerprint and the lossy steps of a dialect', async () => {
    const result = await runToolhost(['tools', '--dialect', 'gemini'], { cwd: project.root });
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /tools for sandbox read_only, approval on_request, surface lean \(gemini; fingerprint [0-9a-f]{16}\)/,
    );
    assert.ok(!result.stdout.includes('\u001b['), 'no colour when stdout is not a terminal');
  });
});

describe('toolhost compile', () => {
  const tools = [
    {
      name: 'github.create_issue',
      description: 'Create an issue.',
      inputSchema: {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1 },
          labels: { type: ['array', 'null'], items: { type: 'string' } },
        },
        required: ['title'],
      },
    },
    { name: 'ping', description: 'Ping.', inputSchema: {} },
  ];

  it('prints { tools, nameMap, report } and reports renames and lossy steps per tool and path', async () => {
    for (const dialect of DIALECTS) {
      const result = await runToolhost(['compile', '--dialect', dialect], { input: JSON.stringify(tools) });
      assert.equal(result.code, 0, result.stderr);
      const out = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(out), ['tools', 'nameMap', 'report']);
      assert.equal(out.nameMap.toWire['github.create_issue'], 'github_create_issue');
      assert.equal(out.nameMap.fromWire.github_create_issue, 'github.create_issue');
      const renamed = out.report.find(
        (entry: Json) => entry.tool === 'github.create_issue' && entry.action === 'renamed',
      );
      assert.ok(renamed, `${dialect}: the rename is reported`);
      for (const entry of out.report) {
        assert.equal(typeof entry.pointer, 'string');
        assert.equal(typeof entry.reason, 'string');
      }
    }
  });

  it('compiles OpenAI strict mode with --strict (optional becomes nullable and required)', async () => {
    const result = await runToolhost(['compile', '--dialect', 'openai-chat', '--strict'], {
      input: JSON.stringify(tools),
    });
    assert.equal(result.code, 0, result.stderr);
    const issue = JSON.parse(result.stdout).tools.find(
      (tool: Json) => tool.function.name === 'github_create_issue',
    );
    assert.equal(issue.function.strict, true);
    assert.deepEqual([...issue.function.parameters.required].sort(), ['labels', 'title']);
    assert.equal(issue.function.parameters.additionalProperties, false);
  });

  it('exits 2 without --dialect, on input that is not JSON or not a tool list, and on duplicate names', async () => {
    const cases: [string[], string, RegExp][] = [
      [['compile'], '[]', /needs --dialect/],
      [['compile', '--dialect', 'anthropic'], '{ nope', /stdin is not JSON/],
      [['compile', '--dialect', 'anthropic'], '{"name":"x"}', /JSON array/],
      [['compile', '--dialect', 'anthropic'], '[{"name":"a"},{"name":"a"}]', /share one name/],
      [['compile', '--dialect', 'anthropic'], '[{"description":"no name"}]', /name/],
    ];
    for (const [args, input, reason] of cases) {
      const result = await runToolhost(args, { input });
      assert.equal(result.code, 2, `${input}: ${result.stderr}`);
      assert.match(oneLineReason(result.stderr), reason);
    }
  });
});

describe('toolhost call', () => {
  it('prints what the model sees and exits 0 on success, 1 on a failed call', async () => {
    const project = await makeProject({ 'README.md': '# demo\nsecond line\n' });
    try {
      const ok = await runToolhost(['call', 'read_file', '{"path":"README.md"}'], { cwd: project.root });
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /1→# demo\n.*2→second line/s);
      const failed = await runToolhost(['call', 'read_file', '{"path":"../x"}'], { cwd: project.root });
      assert.equal(failed.code, 1);
      assert.match(failed.stdout, /^PATH_OUTSIDE_ROOT: /);
      const malformed = await runToolhost(['call', 'read_file', '{"path":'], { cwd: project.root });
      assert.equal(malformed.code, 1);
      assert.match(malformed.stdout, /^ARGUMENT_VALIDATION: /);
      const unknown = await runToolhost(['call', 'no_such_tool'], { cwd: project.root });
      assert.equal(unknown.code, 1);
      assert.match(unknown.stdout, /^TOOL_NOT_FOUND: /);
    } finally {
      await project.cleanup();
    }
  });

  it('prints a session line with --json', async () => {
    const project = await makeProject({ 'README.md': '# demo\n' });
    try {
      const result = await runToolhost(['call', 'read_file', '{"path":"nope.md"}', '--json'], {
        cwd: project.root,
      });
      assert.equal(result.code, 1);
      const line = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(line), ['id', 'name', 'status', 'output', 'error', 'resultRef']);
      assert.equal(line.error.code, 'FS_NOT_FOUND');
    } finally {
      await project.cleanup();
    }
  });
});
