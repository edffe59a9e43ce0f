import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFakeProvider } from './fake-provider.js';
import { type Json, makeProject, REPO_ROOT, runToolhost } from './helpers.js';

/** The package directory: the example ships in it and explores a directory laid out as it is. */
const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));
const EXAMPLE = join(PACKAGE_DIR, 'examples', 'explore.jsonl');

/** A copy of the files the published package holds at its top level, which the example reads. */
async function packageCopy() {
  const project = await makeProject();
  for (const [from, to] of [
    [join(PACKAGE_DIR, 'README.md'), 'README.md'],
    [join(PACKAGE_DIR, 'package.json'), 'package.json'],
    [join(PACKAGE_DIR, 'CHANGELOG.md'), 'CHANGELOG.md'],
    [join(REPO_ROOT, 'LICENSE'), 'LICENSE'],
  ] as const) {
    await copyFile(from, join(project.root, to));
  }
  await mkdir(join(project.root, 'examples'));
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
    const project = await packageCopy();
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

  it('replays the bundled example from a directory that has none, with the package as its root (issue 23: replay failed outside the monorepo)', async () => {
    const elsewhere = await makeProject({ 'README.md': '# not toolhost\n' });
    const stateBefore = existsSync(join(PACKAGE_DIR, '.toolhost'));
    try {
      const result = await runToolhost(['replay', 'examples/explore.jsonl', '--json'], {
        cwd: elsewhere.root,
      });
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stderr, /replaying the example that ships with toolhost .*, with .* as the root/);
      const lines = jsonLines(result.stdout);
      const summary = lines.pop();
      assert.equal(summary.changed, 0);
      assert.ok(summary.calls >= 6);
      assert.ok(lines.some((line) => line.name === 'read_file' && line.replayed === 'PATH_OUTSIDE_ROOT'));
      // A temporary state directory: nothing is written into the installation, nor where the user is.
      if (!stateBefore) assert.equal(existsSync(join(PACKAGE_DIR, '.toolhost')), false);
      assert.equal(existsSync(join(elsewhere.root, '.toolhost')), false);
      // With --root, the calls run there: this directory has none of the files, so outcomes change.
      const rooted = await runToolhost(['replay', './examples/explore.jsonl', '--root', '.', '--json'], {
        cwd: elsewhere.root,
      });
      assert.equal(rooted.code, 1, rooted.stderr);
      assert.ok(jsonLines(rooted.stdout).some((line) => line.replayed === 'FS_NOT_FOUND'));
    } finally {
      await elsewhere.cleanup();
    }
  });

  it('reports per call which outcomes change under another policy, and exits 1', async () => {
    const project = await packageCopy();
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
      // The example's reads that succeeded are denied now; its read outside the root was refused
      // then and is refused the same way now (the path policy speaks before the rules).
      const reads = lines.filter((line) => line.name === 'read_file' && line.recorded === 'ok');
      assert.ok(reads.length > 0);
      for (const line of reads) {
        assert.equal(line.changed, true);
        assert.equal(line.replayed, 'APPROVAL_DENIED');
      }
      const refused = lines.filter((line) => line.name === 'read_file' && line.recorded !== 'ok');
      assert.deepEqual(
        refused.map((line) => [line.recorded, line.replayed, line.changed]),
        [['PATH_OUTSIDE_ROOT', 'PATH_OUTSIDE_ROOT', false]],
      );
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
