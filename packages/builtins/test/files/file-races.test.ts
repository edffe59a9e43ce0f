import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { outputText, type ToolResult } from '@toolhost/contracts';
import { startSwapper, swapperUnavailable } from '../../../../scripts/race-swapper.js';
import { createViewImageTool } from '../../src/files/view-image.js';
import { callTool, type FileToolsFixture, fileTools } from './file-helpers.js';

// Finding 1 of issue 15: check-then-use races. A directory `d` inside the project is exchanged with a
// symbolic link `l` (renameat2 RENAME_EXCHANGE, in a tight loop, by a separate process) while the
// file tools run on paths below `d`. The old tools checked the real path and then used it by name, so
// some calls went through the link: 92 of 3,448 reads returned the outside file, 26 files were created
// outside, 41 edits by a background job's swap landed outside, 66 of 4,797 writes landed in `.git`.
// The tools now pin the directory by descriptor (PathPolicy.pinTarget), so every round must either
// stay inside or be refused; the outside tree and `.git` must be exactly as they were.

const ROUNDS = 5_000;
const SKIP = swapperUnavailable();
/** Codes a raced call may be refused with: the swap was seen (at resolve, during the walk, or at commit). */
const RACE_CODES = new Set([
  'PATH_OUTSIDE_ROOT',
  'PATH_INVALID',
  'PATH_PROTECTED',
  'FS_NOT_FOUND',
  'FS_NOT_OBSERVED',
  'FS_STALE_VERSION',
  'FS_ALREADY_EXISTS',
  'EDIT_NOT_FOUND',
  'EDIT_INVALID',
]);

interface RaceTree {
  readonly root: string;
  readonly outside: string;
  readonly tools: FileToolsFixture;
}

/** `<base>/proj/d` (a real directory), `<base>/proj/l` (a link to `linkTarget`), `<base>/outside`. */
async function raceTree(
  t: TestContext,
  files: Record<string, string | Buffer>,
  linkTarget: '../outside' | '.git',
): Promise<RaceTree> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-race-')));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = path.join(base, 'proj');
  const outside = path.join(base, 'outside');
  for (const directory of [path.join(root, 'd'), outside, path.join(root, '.git', 'hooks')])
    await mkdir(directory, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await writeFile(path.join(root, 'd', name), content);
    // The same bytes on the other side of the link: an escaped read or edit would succeed there.
    await writeFile(path.join(linkTarget === '.git' ? path.join(root, '.git') : outside, name), content);
  }
  await symlink(linkTarget, path.join(root, 'l'));
  return { root, outside, tools: await fileTools(t, { root }) };
}

/** Every entry below `directory` with its identity and content stamp (links not followed). */
async function treeState(directory: string): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for (const name of await readdir(directory, { recursive: true })) {
    const stats = await lstat(path.join(directory, String(name)), { bigint: true });
    state.set(String(name), `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.mode}`);
  }
  return state;
}

/** Counts results: ok, or refused by code (every refusal must be one a race explains). */
class Tally {
  readonly ok = new Map<string, number>();
  readonly refused = new Map<string, number>();
  add(tool: string, result: ToolResult): boolean {
    if (result.ok) {
      this.ok.set(tool, (this.ok.get(tool) ?? 0) + 1);
      return true;
    }
    const code = result.error.code;
    assert.ok(RACE_CODES.has(code), `${tool}: unexpected ${result.error.toModelText()}`);
    this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
    return false;
  }
  describe(): string {
    return `ok ${JSON.stringify(Object.fromEntries(this.ok))}, refused ${JSON.stringify(Object.fromEntries(this.refused))}`;
  }
}

function gif(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return Buffer.concat([header, Buffer.from([0x3b])]);
}

describe('file tools while a directory is swapped for a symbolic link (renameat2 RENAME_EXCHANGE)', {
  skip: SKIP,
}, () => {
  it('never return the outside file from read_file or view_image (regression: 92 of 3,448 reads returned it)', {
    timeout: 300_000,
  }, async (t) => {
    const race = await raceTree(t, { 'secret.txt': 'inside\n', 'pic.gif': gif(1, 1) }, '../outside');
    await writeFile(path.join(race.outside, 'secret.txt'), 'OUTSIDE\n');
    await writeFile(path.join(race.outside, 'pic.gif'), gif(2, 2));
    const viewImage = createViewImageTool({ pathPolicy: race.tools.policy });
    const tally = new Tally();
    const swapper = await startSwapper(path.join(race.root, 'd'), path.join(race.root, 'l'));
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        if (round % 5 === 4) {
          const result = await callTool(viewImage, { path: 'd/pic.gif' });
          if (tally.add('view_image', result) && result.ok)
            assert.equal(
              result.output.details?.width,
              1,
              `round ${round}: view_image returned the outside image`,
            );
        } else {
          const result = await race.tools.call('read_file', { path: 'd/secret.txt' });
          if (tally.add('read_file', result))
            assert.ok(
              !outputText(result.ok ? result.output : { content: [] }).includes('OUTSIDE'),
              `round ${round}`,
            );
        }
      }
    } finally {
      t.diagnostic(`${await swapper.stop()} exchanges by ${swapper.kind}; ${tally.describe()}`);
    }
    assert.ok(
      (tally.ok.get('read_file') ?? 0) > 0 && (tally.ok.get('view_image') ?? 0) > 0,
      tally.describe(),
    );
    assert.ok(tally.refused.size > 0, `the swap never raced a call: ${tally.describe()}`);
  });

  it('never create a file outside the root with write_file (regression: 26 files were created outside)', {
    timeout: 300_000,
  }, async (t) => {
    const race = await raceTree(t, {}, '../outside');
    const before = await treeState(race.outside);
    const tally = new Tally();
    const created: string[] = [];
    const swapper = await startSwapper(path.join(race.root, 'd'), path.join(race.root, 'l'));
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        const name = `new-${round}.txt`;
        if (
          tally.add(
            'write_file',
            await race.tools.call('write_file', { path: `d/${name}`, content: `${round}\n` }),
          )
        )
          created.push(name);
      }
    } finally {
      t.diagnostic(`${await swapper.stop()} exchanges by ${swapper.kind}; ${tally.describe()}`);
    }
    assert.deepEqual(await treeState(race.outside), before, 'files were created outside the root');
    for (const name of created)
      assert.equal(await readFile(path.join(race.root, 'd', name), 'utf8'), `${name.slice(4, -4)}\n`, name);
    assert.ok(created.length > 0 && tally.refused.size > 0, tally.describe());
  });

  it('never write into .git through a link to it (regression: 66 of 4,797 writes landed inside .git)', {
    timeout: 300_000,
  }, async (t) => {
    const race = await raceTree(t, { config: '[core]\nvalue = alpha\n' }, '.git');
    const gitDirectory = path.join(race.root, '.git');
    const before = await treeState(gitDirectory);
    const tally = new Tally();
    const swapper = await startSwapper(path.join(race.root, 'd'), path.join(race.root, 'l'));
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        if (round % 4 === 3) {
          // A replace of a file whose twin in .git has the same bytes: an escaped edit would pass the
          // observation check there.
          await race.tools.call('read_file', { path: 'd/config' });
          const text = await readFile(path.join(race.root, 'd', 'config'), 'utf8').catch(() => '');
          const [from, to] = text.includes('alpha') ? ['alpha', 'beta'] : ['beta', 'alpha'];
          tally.add(
            'edit_file',
            await race.tools.call('edit_file', { path: 'd/config', old_string: from, new_string: to }),
          );
        } else {
          tally.add(
            'write_file',
            await race.tools.call('write_file', { path: `d/hook-${round}`, content: '#!/bin/sh\n' }),
          );
        }
      }
    } finally {
      t.diagnostic(`${await swapper.stop()} exchanges by ${swapper.kind}; ${tally.describe()}`);
    }
    assert.deepEqual(await treeState(gitDirectory), before, 'something was written inside .git');
    assert.ok((tally.ok.get('write_file') ?? 0) > 0 && tally.refused.size > 0, tally.describe());
  });

  it('never write outside when a background job swaps the directory, with any editing tool (regression: 41 files written outside)', {
    timeout: 300_000,
  }, async (t) => {
    // The swapper runs as its own process, as a workspace_write background job would: both names are
    // inside the project, the link points outside it.
    const template = 'start\nfiller\nend\nalpha\n';
    const race = await raceTree(t, { 'work.txt': template }, '../outside');
    const before = await treeState(race.outside);
    const tally = new Tally();
    const observe = async (name: string) => {
      for (let attempt = 0; attempt < 4; attempt += 1) {
        const read = await race.tools.call('read_file', { path: `d/${name}` });
        if (read.ok) return outputText(read.output);
      }
      return '';
    };
    const swapper = await startSwapper(path.join(race.root, 'd'), path.join(race.root, 'l'));
    try {
      for (let round = 0; round < ROUNDS; round += 1) {
        const seen = await observe('work.txt');
        const [from, to] = seen.includes('alpha') ? ['alpha', 'beta'] : ['beta', 'alpha'];
        switch (round % 5) {
          case 0:
            tally.add(
              'edit_file',
              await race.tools.call('edit_file', { path: 'd/work.txt', old_string: from, new_string: to }),
            );
            break;
          case 1:
            tally.add(
              'multi_edit',
              await race.tools.call('multi_edit', {
                path: 'd/work.txt',
                edits: [
                  { old_string: from, new_string: 'middle' },
                  { old_string: 'middle', new_string: to },
                ],
              }),
            );
            break;
          case 2:
            tally.add(
              'delete_range',
              await race.tools.call('delete_range', {
                path: 'd/work.txt',
                start_anchor: 'start',
                end_anchor: 'end',
                inclusive: false,
              }),
            );
            break;
          case 3:
            tally.add(
              'write_file',
              await race.tools.call('write_file', { path: 'd/work.txt', content: template }),
            );
            break;
          default:
            if (
              tally.add(
                'move_file',
                await race.tools.call('move_file', { source: 'd/work.txt', destination: 'd/moved.txt' }),
              )
            ) {
              // Move it back (retrying through the swap), so the next rounds find it.
              for (let attempt = 0; attempt < 50; attempt += 1) {
                await observe('moved.txt');
                const back = await race.tools.call('move_file', {
                  source: 'd/moved.txt',
                  destination: 'd/work.txt',
                });
                if (tally.add('move_file', back)) break;
              }
            }
        }
      }
    } finally {
      t.diagnostic(`${await swapper.stop()} exchanges by ${swapper.kind}; ${tally.describe()}`);
    }
    assert.deepEqual(
      await treeState(race.outside),
      before,
      'a write, rename or unlink landed outside the root',
    );
    for (const tool of ['edit_file', 'multi_edit', 'write_file', 'move_file'])
      assert.ok((tally.ok.get(tool) ?? 0) > 0, `${tool} never succeeded: ${tally.describe()}`);
  });
});
