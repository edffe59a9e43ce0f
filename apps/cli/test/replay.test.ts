import assert from 'node:assert/strict';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { startFakeProvider } from './fake-provider.js';
import { type Json, makeProject, REPO_ROOT, runToolhost } from './helpers.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'explore.jsonl');

/** A copy of the repository files the example reads, so replays never write into the repository. */
async function repositoryCopy() {
  const project = await makeProject();
  const files = ['README.md', 'package.json', 'pnpm-workspace.yaml', 'docs/architecture.md'];
  for (const folder of ['packages', 'apps']) {
    for (const name of await readdir(join(REPO_ROOT, folder))) files.push(`${folder}/${name}/package.json`);
  }
  for (const file of files) {
    await mkdir(dirname(join(project.root, file)), { recursive: true });
    await copyFile(join(REPO_ROOT, file), join(project.root, file)).catch(() => undefined);
  }
  return project;
}

function jsonLines(text: string): Json[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('toolhost replay', () => {
  it('replays the shipped example transcript with no outcome changed (exit 0)', async () => {
    const rows = jsonLines(await readFile(EXAMPLE, 'utf8'));
    assert.equal(rows[0].type, 'run-started');
    assert.equal(rows[rows.length - 1].status, 'succeeded');
    const project = await repositoryCopy();
    try {
      const human = await runToolhost(['replay', EXAMPLE], { cwd: project.root });
      assert.equal(human.code, 0, human.stdout + human.stderr);
      assert.match(human.stdout, /no outcome changed/);
      const json = await runToolhost(['replay', EXAMPLE, '--json'], { cwd: project.root });
      const lines = jsonLines(json.stdout);
      const summary = lines.pop();
      assert.equal(summary.type, 'summary');
      assert.equal(summary.changed, 0);
      assert.ok(summary.calls >= 6);
      assert.equal(lines.length, summary.calls);
      for (const line of lines) assert.equal(line.changed, false);
    } finally {
      await project.cleanup();
    }
  });

  it('reports per call which outcomes change under another policy, and exits 1', async () => {
    const project = await repositoryCopy();
    try {
      await writeFile(
        join(project.root, 'deny.json'),
        JSON.stringify({ permissions: { deny: ['read_file'] } }),
      );
      const result = await runToolhost(['replay', EXAMPLE, '--json', '--config', 'deny.json'], {
        cwd: project.root,
      });
      assert.equal(result.code, 1, result.stderr);
      const lines = jsonLines(result.stdout);
      const summary = lines.pop();
      const reads = lines.filter((line) => line.name === 'read_file');
      assert.ok(reads.length > 0);
      for (const line of reads) {
        assert.equal(line.changed, true);
        assert.equal(line.recorded, 'ok');
        assert.equal(line.replayed, 'APPROVAL_DENIED');
      }
      for (const line of lines.filter((entry) => entry.name !== 'read_file'))
        assert.equal(line.changed, false);
      assert.equal(summary.changed, reads.length);
      const human = await runToolhost(['replay', EXAMPLE, '--config', 'deny.json'], { cwd: project.root });
      assert.equal(human.code, 1);
      assert.match(human.stdout, /changed +round 1 +read_file .* ok -> APPROVAL_DENIED/);
    } finally {
      await project.cleanup();
    }
  });

  it('re-runs recorded writes in order: denied under read_only, the same under workspace_write', async () => {
    const project = await makeProject({ 'notes.txt': 'alpha\nbeta\n' });
    const fake = await startFakeProvider({
      dialect: 'anthropic',
      script: (request) => {
        if (request.turn === 0) return { calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] };
        if (request.turn === 1) {
          return {
            calls: [
              {
                name: 'edit_file',
                arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' },
              },
            ],
          };
        }
        return { text: 'Edited.' };
      },
    });
    try {
      const recorded = await runToolhost(
        [
          'run',
          '--provider',
          'anthropic',
          '--base-url',
          fake.baseUrl,
          '--sandbox',
          'workspace_write',
          '--transcript',
          join(project.root, '.toolhost', 'edit.jsonl'),
        ],
        { cwd: project.root, env: { ANTHROPIC_API_KEY: 'k' } },
      );
      assert.equal(recorded.code, 0, recorded.stderr);
      assert.equal(await readFile(join(project.root, 'notes.txt'), 'utf8'), 'alpha\ngamma\n');
      await writeFile(join(project.root, 'notes.txt'), 'alpha\nbeta\n');
      const transcript = join(project.root, '.toolhost', 'edit.jsonl');
      const readOnly = await runToolhost(['replay', transcript, '--json'], { cwd: project.root });
      assert.equal(readOnly.code, 1);
      const changed = jsonLines(readOnly.stdout).filter((line) => line.type === 'call' && line.changed);
      assert.deepEqual(
        changed.map((line) => [line.name, line.recorded, line.replayed]),
        [['edit_file', 'ok', 'PERMISSION_DENIED']],
      );
      assert.equal(await readFile(join(project.root, 'notes.txt'), 'utf8'), 'alpha\nbeta\n');
      const writable = await runToolhost(['replay', transcript, '--sandbox', 'workspace_write'], {
        cwd: project.root,
      });
      assert.equal(writable.code, 0, writable.stdout);
      assert.equal(await readFile(join(project.root, 'notes.txt'), 'utf8'), 'alpha\ngamma\n');
    } finally {
      await fake.close();
      await project.cleanup();
    }
  });

  it('exits 2 for a file that is not a transcript or records no calls', async () => {
    const project = await makeProject({
      'bad.jsonl': '{"v":1,"type":"run-started"}\nnot json\n',
      'old.jsonl': '{"v":9,"type":"tool-batch","calls":[],"results":[]}\n',
      'empty.jsonl': '{"v":1,"type":"run-started"}\n',
      'pairs.jsonl': '{"v":1,"type":"tool-batch","calls":[{"id":"a","name":"read_file"}],"results":[]}\n',
    });
    try {
      for (const [file, reason] of [
        ['bad.jsonl', /line 2: not JSON/],
        ['old.jsonl', /unknown transcript version 9/],
        ['empty.jsonl', /records no tool calls/],
        ['pairs.jsonl', /equal length/],
        ['missing.jsonl', /cannot replay/],
      ] as const) {
        const result = await runToolhost(['replay', file], { cwd: project.root });
        assert.equal(result.code, 2, file);
        assert.match(result.stderr, reason);
      }
    } finally {
      await project.cleanup();
    }
  });
});
