import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createToolRegistry, ToolhostError, validateArguments } from '@toolhost/contracts';
import { createDiscoveryTools } from '../../src/index.js';
import {
  call,
  ENGINES,
  failure,
  makeTree,
  okText,
  resultLines,
  type Tree,
  toolsFor,
  writeTree,
} from './grep-fixtures.js';

// Requirements cited: DISC-1 (symlinks out of the project), DISC-2 (missing paths), GREP-1..GREP-4
// (budget keeps what fits; rg killed on timeout and abort). See ../REQUIREMENTS.md. Every behaviour
// runs with ripgrep and with the JS fallback.

describe('createGrepTool', () => {
  for (const engine of ENGINES) {
    describe(`with ${engine.name}`, { skip: engine.skip }, () => {
      let tree: Tree;
      const grep = (
        args: Record<string, unknown>,
        options: { grepOutputBytes?: number; signal?: AbortSignal } = {},
      ) => {
        const tools = toolsFor(tree.policy, {
          rgPath: engine.rgPath,
          ...(options.grepOutputBytes === undefined ? {} : { grepOutputBytes: options.grepOutputBytes }),
        });
        return call(tools.grep, args, options.signal);
      };

      before(async () => {
        tree = await makeTree({
          'src/a.ts': 'export const alpha = 1;\nconst beta = alpha + 1;\n',
          'src/b.ts': '// nothing here\n',
          'src/nested/c.ts': 'alpha again\n',
          'src/d.py': 'alpha = 3\n',
          'README.md': 'Alpha in capitals\n',
        });
      });
      after(() => tree.remove());

      it('returns `path:line: text` lines sorted by path, using the requested engine (GREP-1)', async () => {
        const result = await grep({ pattern: 'alpha' });
        assert.deepEqual(resultLines(okText(result)), [
          'src/a.ts:1: export const alpha = 1;',
          'src/a.ts:2: const beta = alpha + 1;',
          'src/d.py:1: alpha = 3',
          'src/nested/c.ts:1: alpha again',
        ]);
        assert.ok(result.ok);
        assert.equal(result.output.details?.engine, engine.rgPath === null ? 'js' : 'ripgrep');
        // Hosts get {path, lineNumber} per match without the file's text (20).
        assert.deepEqual(result.output.details?.results, [
          { path: 'src/a.ts', lineNumber: 1 },
          { path: 'src/a.ts', lineNumber: 2 },
          { path: 'src/d.py', lineNumber: 1 },
          { path: 'src/nested/c.ts', lineNumber: 1 },
        ]);
      });

      it('supports literal, ignore_case and glob (GREP-1)', async () => {
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'alpha + 1', literal: true }))), [
          'src/a.ts:2: const beta = alpha + 1;',
        ]);
        assert.match(okText(await grep({ pattern: 'alpha + 1' })), /^No matches/);
        assert.deepEqual(
          resultLines(okText(await grep({ pattern: 'ALPHA', ignore_case: true, glob: '*.md' }))),
          ['README.md:1: Alpha in capitals'],
        );
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'alpha', glob: '!*.ts' }))), [
          'src/d.py:1: alpha = 3',
        ]);
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'alpha', glob: 'src/nested/**' }))), [
          'src/nested/c.ts:1: alpha again',
        ]);
      });

      it('filters by ripgrep file type and refuses an unknown type naming known ones', async () => {
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'alpha', type: 'py' }))), [
          'src/d.py:1: alpha = 3',
        ]);
        const refused = failure(await grep({ pattern: 'alpha', type: 'no-such-type' }));
        assert.equal(refused.code, 'ARGUMENT_VALIDATION');
        assert.match(refused.text, /known types include .*\bts\b/);
      });

      it('searches one file when path names a file, and says so when nothing matches', async () => {
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'alpha', path: 'src/a.ts' }))), [
          'src/a.ts:1: export const alpha = 1;',
          'src/a.ts:2: const beta = alpha + 1;',
        ]);
        const none = okText(await grep({ pattern: 'omega', path: 'src' }));
        assert.match(
          none,
          /^No matches in src\. Not searched: hidden files .*; ignored files and node_modules/,
        );
      });

      it('shows context lines with `path-line-` and separates groups with -- ', async () => {
        const lines = Array.from(
          { length: 10 },
          (_, index) => `line ${index + 1}${index === 2 || index === 7 ? ' hit' : ''}`,
        );
        await writeTree(tree.root, { 'ctx/one.txt': `${lines.join('\n')}\n` });
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'hit', path: 'ctx', context: 1 }))), [
          'ctx/one.txt-2- line 2',
          'ctx/one.txt:3: line 3 hit',
          'ctx/one.txt-4- line 4',
          '--',
          'ctx/one.txt-7- line 7',
          'ctx/one.txt:8: line 8 hit',
          'ctx/one.txt-9- line 9',
        ]);
        // Overlapping context merges into one group.
        assert.deepEqual(resultLines(okText(await grep({ pattern: 'hit', path: 'ctx', context: 3 }))), [
          ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((index) =>
            index === 2 || index === 7
              ? `ctx/one.txt:${index + 1}: ${lines[index]}`
              : `ctx/one.txt-${index + 1}- ${lines[index]}`,
          ),
        ]);
      });

      it('lists matching files and counts per file in the other output modes', async () => {
        assert.deepEqual(
          resultLines(okText(await grep({ pattern: 'alpha', output_mode: 'files_with_matches' }))),
          ['src/a.ts', 'src/d.py', 'src/nested/c.ts'],
        );
        const counted = await grep({ pattern: 'alpha', output_mode: 'count' });
        assert.deepEqual(resultLines(okText(counted)), ['src/a.ts:2', 'src/d.py:1', 'src/nested/c.ts:1']);
        assert.ok(counted.ok);
        assert.deepEqual(counted.output.details?.results, [
          { path: 'src/a.ts', count: 2 },
          { path: 'src/d.py', count: 1 },
          { path: 'src/nested/c.ts', count: 1 },
        ]);
      });

      it('matches across lines only with multiline', async () => {
        await writeTree(tree.root, { 'multi/m.txt': 'start here\nmiddle\nend here\nother\n' });
        assert.deepEqual(
          resultLines(okText(await grep({ pattern: 'start.*end', path: 'multi', multiline: true }))),
          ['multi/m.txt:1: start here', 'multi/m.txt:2: middle', 'multi/m.txt:3: end here'],
        );
        assert.match(okText(await grep({ pattern: 'start.*end', path: 'multi' })), /^No matches/);
        const refused = failure(await grep({ pattern: 'here\\nmiddle', path: 'multi' }));
        assert.equal(refused.code, 'ARGUMENT_VALIDATION');
        assert.match(refused.text, /multiline=true/);
      });

      it('refuses an invalid regex with ARGUMENT_VALIDATION naming the problem, not the pattern', async () => {
        const cases: Array<[string, RegExp]> = [
          ['(zq7', /unclosed group|unterminated group/i],
          ['zq7(?=x)', /look-around/],
          ['(zq7)\\1', /backreferences are not supported/],
          ['[zq7', /unclosed character class|unterminated character class/i],
        ];
        for (const [pattern, problem] of cases) {
          const refused = failure(await grep({ pattern }));
          assert.equal(refused.code, 'ARGUMENT_VALIDATION', pattern);
          assert.match(refused.text, /the pattern is not a valid regular expression/);
          assert.match(refused.text, problem, pattern);
          assert.doesNotMatch(refused.text, /zq7/, 'the message never quotes the pattern');
          assert.ok(!refused.text.includes('--pcre2'), 'no advice the model cannot follow');
        }
        const result = await grep({ pattern: '(zq7' });
        assert.ok(!result.ok);
        assert.match(result.error.signature ?? '', /^argument_validation:grep:[0-9a-f]{16}:pattern$/);
      });

      it('skips hidden, ignored, node_modules and .git files unless asked, and never .git', async () => {
        const local = await makeTree({
          'visible.txt': 'needle\n',
          '.dot.txt': 'needle\n',
          '.hidden/h.txt': 'needle\n',
          '.gitignore': '*.log\nbuild/\n',
          'ignored.log': 'needle\n',
          'build/out.txt': 'needle\n',
          'node_modules/pkg/index.js': 'needle\n',
          '.git/config': 'needle\n',
        });
        try {
          const tools = toolsFor(local.policy, { rgPath: engine.rgPath });
          const files = async (extra: Record<string, unknown>) =>
            resultLines(
              okText(
                await call(tools.grep, { pattern: 'needle', output_mode: 'files_with_matches', ...extra }),
              ),
            );
          assert.deepEqual(await files({}), ['visible.txt']);
          assert.deepEqual(await files({ include_hidden: true }), [
            '.dot.txt',
            '.hidden/h.txt',
            'visible.txt',
          ]);
          assert.deepEqual(await files({ no_ignore: true }), [
            'build/out.txt',
            'ignored.log',
            'node_modules/pkg/index.js',
            'visible.txt',
          ]);
          assert.deepEqual(await files({ include_hidden: true, no_ignore: true }), [
            '.dot.txt',
            '.hidden/h.txt',
            'build/out.txt',
            'ignored.log',
            'node_modules/pkg/index.js',
            'visible.txt',
          ]);
          // A directory or file named explicitly is searched even when ignored (as ripgrep does).
          assert.deepEqual(await files({ path: 'build' }), ['build/out.txt']);
          assert.deepEqual(await files({ path: 'ignored.log' }), ['ignored.log']);
        } finally {
          await local.remove();
        }
      });

      it('never searches or shows secret files, in any mode (.env, keys)', async () => {
        const local = await makeTree({
          '.env': 'TOKEN=needle\n',
          'certs/server.pem': 'needle\n',
          '.env.example': 'TOKEN=needle\n',
          'ok.txt': 'needle\n',
        });
        try {
          const tools = toolsFor(local.policy, { rgPath: engine.rgPath });
          for (const output_mode of ['content', 'files_with_matches', 'count']) {
            const text = okText(
              await call(tools.grep, {
                pattern: 'needle',
                include_hidden: true,
                no_ignore: true,
                output_mode,
              }),
            );
            assert.doesNotMatch(text, /\.env(?!\.example)|server\.pem/, output_mode);
            assert.match(text, /\.env\.example/);
            assert.match(text, /ok\.txt/);
          }
          assert.equal(
            failure(await call(tools.grep, { pattern: 'needle', path: '.env' })).code,
            'PATH_PROTECTED',
          );
        } finally {
          await local.remove();
        }
      });

      it('never follows symbolic links out of the project, and refuses paths outside it (DISC-1, DISC-2)', async () => {
        const outside = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-outside-')));
        const local = await makeTree({ 'inside.txt': 'needle\n' });
        try {
          await writeFile(path.join(outside, 'secret.txt'), 'needle outside\n');
          await writeTree(local.root, {
            dirlink: { symlink: outside },
            'filelink.txt': { symlink: path.join(outside, 'secret.txt') },
          });
          const tools = toolsFor(local.policy, { rgPath: engine.rgPath });
          const text = okText(
            await call(tools.grep, { pattern: 'needle', include_hidden: true, no_ignore: true }),
          );
          assert.deepEqual(resultLines(text), ['inside.txt:1: needle']);
          assert.ok(!text.includes(outside));
          assert.equal(
            failure(await call(tools.grep, { pattern: 'needle', path: 'dirlink' })).code,
            'PATH_OUTSIDE_ROOT',
          );
          assert.equal(
            failure(await call(tools.grep, { pattern: 'needle', path: 'filelink.txt' })).code,
            'PATH_OUTSIDE_ROOT',
          );
          assert.equal(
            failure(await call(tools.grep, { pattern: 'needle', path: '..' })).code,
            'PATH_OUTSIDE_ROOT',
          );
          assert.equal(
            failure(await call(tools.grep, { pattern: 'needle', path: 'missing' })).code,
            'FS_NOT_FOUND',
          );
        } finally {
          await local.remove();
          await rm(outside, { recursive: true, force: true });
        }
      });

      it('stops at the limit (default 200) with a notice suggesting a larger limit (GREP-2)', async () => {
        const many = Array.from({ length: 250 }, (_, index) => `match ${index + 1}`).join('\n');
        await writeTree(tree.root, { 'many/big.txt': `${many}\n`, 'many/other.txt': 'match x\n' });
        const text = okText(await grep({ pattern: 'match', path: 'many/big.txt' }));
        const lines = resultLines(text);
        assert.equal(lines.length, 200);
        assert.equal(lines[199], 'many/big.txt:200: match 200');
        assert.match(
          text,
          /\[Result limit reached: showing the first 200 matches; more exist\..*limit=400\.\]/,
        );
        const small = okText(await grep({ pattern: 'match', path: 'many/big.txt', limit: 5 }));
        assert.equal(resultLines(small).length, 5);
        assert.match(small, /limit=10/);
        // Exactly `limit` results: no notice.
        assert.doesNotMatch(
          okText(await grep({ pattern: 'match 25[0-9]', path: 'many', limit: 1 })),
          /limit reached/,
        );
        const files = okText(
          await grep({ pattern: 'match', path: 'many', output_mode: 'files_with_matches', limit: 1 }),
        );
        assert.equal(resultLines(files).length, 1);
        assert.match(files, /showing the first 1 files/);
      });

      it('cuts lines over 500 characters with "..." and a notice (GREP-2)', async () => {
        await writeTree(tree.root, { 'long/l.txt': `needle ${'x'.repeat(600)}\nneedle short\n` });
        const text = okText(await grep({ pattern: 'needle', path: 'long' }));
        const [first, second] = resultLines(text);
        assert.equal(first, `long/l.txt:1: ${`needle ${'x'.repeat(600)}`.slice(0, 500)}...`);
        assert.equal(second, 'long/l.txt:2: needle short');
        assert.match(text, /\[1 line was longer than 500 characters and is cut, ending in "\.\.\."/);
      });

      it('keeps the matches that fit the output budget, never none (GREP-3)', async () => {
        const lines = Array.from(
          { length: 100 },
          (_, index) => `budget ${String(index).padStart(3, '0')} ${'y'.repeat(50)}`,
        );
        await writeTree(tree.root, { 'budget/b.txt': `${lines.join('\n')}\n` });
        const text = okText(
          await grep({ pattern: 'budget', path: 'budget', limit: 2000 }, { grepOutputBytes: 1024 }),
        );
        const shown = resultLines(text);
        assert.ok(shown.length > 5 && shown.length < 100, `${shown.length} lines shown`);
        assert.ok(Buffer.byteLength(shown.join('\n')) <= 1024);
        for (const [index, line] of shown.entries())
          assert.equal(line, `budget/b.txt:${index + 1}: ${lines[index]}`);
        assert.match(text, /\[Output cut at 1 KiB: showing \d+ of the \d+\+? matches found\./);
        const tiny = okText(await grep({ pattern: 'budget', path: 'budget' }, { grepOutputBytes: 10 }));
        assert.deepEqual(resultLines(tiny), [`budget/b.txt:1: ${lines[0]}`]);
      });

      it('returns every file of the count and files modes up to the limit, past the 28 KiB content budget (issue 25)', async () => {
        // 1,645 matching files under long names: about 90 KiB of `path:count` lines, which count
        // mode used to stop at 28 KiB (330 files) with nothing to page.
        const entries: Record<string, string> = {};
        for (let index = 0; index < 1645; index++)
          entries[`many/directory-${String(index).padStart(4, '0')}/a-file-with-a-long-name-${index}.txt`] =
            'needle\nneedle\n';
        await writeTree(tree.root, entries);
        const expected = Object.keys(entries).sort();
        const counted = okText(
          await grep({ pattern: 'needle', path: 'many', output_mode: 'count', limit: 2000 }),
        );
        assert.ok(Buffer.byteLength(counted) > 64 * 1024, 'the whole answer, beyond the model cap');
        assert.deepEqual(
          resultLines(counted),
          expected.map((file) => `${file}:2`),
        );
        assert.doesNotMatch(counted, /Output cut/);
        const files = okText(
          await grep({ pattern: 'needle', path: 'many', output_mode: 'files_with_matches', limit: 2000 }),
        );
        assert.deepEqual(resultLines(files), expected);
        assert.doesNotMatch(files, /Output cut/);
        // The limit still bounds the answer, and says so.
        const limited = okText(
          await grep({ pattern: 'needle', path: 'many', output_mode: 'count', limit: 1000 }),
        );
        assert.equal(resultLines(limited).length, 1000);
        assert.match(limited, /\[Result limit reached: showing the first 1000 files; more exist\./);
      });

      it('returns ABORTED or the host error when the signal fires before or during the search', async () => {
        const controller = new AbortController();
        controller.abort();
        assert.equal(
          failure(await grep({ pattern: 'alpha' }, { signal: controller.signal })).code,
          'ABORTED',
        );
        const timedOut = new AbortController();
        timedOut.abort(new ToolhostError({ code: 'TIMEOUT', message: 'grep timed out after 10ms' }));
        assert.equal(failure(await grep({ pattern: 'alpha' }, { signal: timedOut.signal })).code, 'TIMEOUT');

        const files: Record<string, string> = {};
        for (let index = 0; index < 1500; index += 1)
          files[`wide/d${index % 30}/f${index}.txt`] = 'nothing\n';
        await writeTree(tree.root, files);
        const during = new AbortController();
        const pending = grep({ pattern: 'needle', path: 'wide' }, { signal: during.signal });
        setImmediate(() => during.abort());
        assert.equal(failure(await pending).code, 'ABORTED');
      });
    });
  }

  it('searches with a pattern nested 15,000 groups deep on the JS engine instead of failing (literal extraction ran out of stack on the host thread)', async () => {
    const local = await makeTree({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    try {
      const tools = toolsFor(local.policy, { rgPath: null });
      const depth = 15_000;
      const result = await call(tools.grep, { pattern: `${'(?:'.repeat(depth)}alpha${')'.repeat(depth)}` });
      assert.deepEqual(resultLines(okText(result)), ['a.txt:1: alpha']);
    } finally {
      await local.remove();
    }
  });

  describe('with a ripgrep that never ends', () => {
    let scratch: string;
    let tree: Tree;
    before(async () => {
      scratch = await realpath(await mkdtemp(path.join(tmpdir(), 'toolhost-fake-rg-')));
      tree = await makeTree({ 'a.txt': 'needle\n' });
    });
    after(async () => {
      await tree.remove();
      await rm(scratch, { recursive: true, force: true });
    });

    // A stand-in for rg (a real process) that records its pid, then runs until killed.
    const fakeRipgrep = async (name: string, body: string): Promise<{ rgPath: string; pidFile: string }> => {
      const pidFile = path.join(scratch, `${name}.pid`);
      const rgPath = path.join(scratch, name);
      await writeFile(rgPath, `#!/bin/sh\necho $$ > '${pidFile}'\n${body}\n`);
      await chmod(rgPath, 0o755);
      return { rgPath, pidFile };
    };
    const isAlive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const waitForFile = async (file: string): Promise<string> => {
      for (let attempt = 0; attempt < 600; attempt += 1) {
        const text = await readFile(file, 'utf8').catch(() => '');
        if (text.trim() !== '') return text.trim();
        await delay(50);
      }
      throw new Error(`${file} never appeared`);
    };

    it('kills ripgrep as soon as the limit is reached (GREP-4)', async () => {
      const file = path.join(tree.root, 'a.txt');
      const { rgPath, pidFile } = await fakeRipgrep(
        'endless',
        `printf '{"type":"begin","data":{"path":{"text":"%s"}}}\\n' '${file}'\nn=1\nwhile :; do printf '{"type":"match","data":{"path":{"text":"%s"},"lines":{"text":"needle %d\\\\n"},"line_number":%d}}\\n' '${file}' $n $n; n=$((n+1)); done`,
      );
      const tools = toolsFor(tree.policy, { rgPath });
      const text = okText(await call(tools.grep, { pattern: 'needle', limit: 5 }));
      assert.deepEqual(
        resultLines(text),
        [1, 2, 3, 4, 5].map((n) => `a.txt:${n}: needle ${n}`),
      );
      assert.match(text, /Result limit reached/);
      assert.equal(isAlive(Number(await waitForFile(pidFile))), false, 'rg was killed');
    });

    for (const [label, reason, code] of [
      ['abort', undefined, 'ABORTED'],
      ['timeout', new ToolhostError({ code: 'TIMEOUT', message: 'grep timed out' }), 'TIMEOUT'],
    ] as const) {
      it(`kills ripgrep on ${label} and reports ${code} (GREP-4)`, async () => {
        const { rgPath, pidFile } = await fakeRipgrep(`sleepy-${label}`, 'exec sleep 600');
        const tools = toolsFor(tree.policy, { rgPath });
        const controller = new AbortController();
        const pending = call(tools.grep, { pattern: 'needle' }, controller.signal);
        const pid = Number(await waitForFile(pidFile));
        assert.equal(isAlive(pid), true);
        controller.abort(reason);
        assert.equal(failure(await pending).code, code);
        assert.equal(isAlive(pid), false, 'rg was killed before the call returned');
      });
    }

    it('falls back to the JS engine when the ripgrep path cannot be started', async () => {
      const tools = toolsFor(tree.policy, { rgPath: path.join(scratch, 'no-such-rg') });
      const result = await call(tools.grep, { pattern: 'needle' });
      assert.deepEqual(resultLines(okText(result)), ['a.txt:1: needle']);
      assert.ok(result.ok);
      assert.equal(result.output.details?.engine, 'js');
    });
  });

  describe('with the JS fallback and a runaway regex', () => {
    it('stays responsive and stops on abort, because matching runs in a worker thread', async () => {
      const tree = await makeTree({ 'evil.txt': `${'a'.repeat(64)}!\n` });
      try {
        const tools = toolsFor(tree.policy, { rgPath: null });
        const controller = new AbortController();
        // `(a+)+$` backtracks exponentially on 64 a's and a "!": it would never finish. The timer
        // below can only fire if the main thread is free while the regex runs.
        const pending = call(tools.grep, { pattern: '(a+)+$' }, controller.signal);
        setTimeout(
          () => controller.abort(new ToolhostError({ code: 'TIMEOUT', message: 'grep timed out' })),
          300,
        );
        assert.equal(failure(await pending).code, 'TIMEOUT');
        // The engine is usable again right away (a fresh worker).
        assert.deepEqual(resultLines(okText(await call(tools.grep, { pattern: 'a{64}!' }))), [
          `evil.txt:1: ${'a'.repeat(64)}!`,
        ]);
      } finally {
        await tree.remove();
      }
    });
  });
});

describe('createDiscoveryTools', () => {
  let tree: Tree;
  before(async () => {
    tree = await makeTree({ 'src/a.ts': 'x\n', 'img.png': 'not really\n' });
  });
  after(() => tree.remove());

  it('creates ls, glob, grep and view_image as parallel, abortable, read-only built-ins', () => {
    const tools = createDiscoveryTools({ pathPolicy: tree.policy, rgPath: null });
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['ls', 'glob', 'grep', 'view_image'],
    );
    const registry = createToolRegistry();
    for (const tool of tools) {
      registry.register(tool);
      assert.equal(tool.source, 'builtin');
      assert.equal(tool.group, 'read_only_builtins');
      assert.equal(tool.visibility, 'listed');
      assert.equal(tool.modelTool.name, tool.name);
      assert.deepEqual(tool.annotations, {
        readOnly: true,
        destructive: false,
        openWorld: false,
        idempotent: true,
      });
      assert.equal(tool.execution.mode, 'parallel');
      assert.equal(tool.execution.abortable, true);
      assert.ok(tool.execution.timeoutMs > 0);
      assert.match(tool.modelTool.description, /same turn|instead of/);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.ls!.category, 'read');
    assert.equal(byName.view_image!.category, 'read');
    assert.equal(byName.glob!.category, 'search');
    assert.equal(byName.grep!.category, 'search');
    for (const name of ['ls', 'glob', 'grep']) assert.equal(byName[name]!.resultShape, 'search');
    for (const name of ['ls', 'glob', 'grep']) assert.match(byName[name]!.modelTool.description, /same turn/);
    for (const name of ['ls', 'glob', 'grep'])
      assert.match(byName[name]!.modelTool.description, /instead of/);
  });

  it('declares list access for directories and read access for files', () => {
    const tools = toolsFor(tree.policy, { rgPath: null });
    assert.deepEqual(tools.ls.permission?.paths?.({ path: 'src' }), [
      { argument: 'path', path: 'src', access: 'list' },
    ]);
    assert.deepEqual(tools.glob.permission?.paths?.({ pattern: '*.ts' }), [
      { argument: 'path', path: undefined, access: 'list' },
    ]);
    assert.deepEqual(tools.grep.permission?.paths?.({ pattern: 'x', path: 'src' }), [
      { argument: 'path', path: 'src', access: 'list' },
    ]);
    assert.deepEqual(tools.grep.permission?.paths?.({ pattern: 'x', path: 'src/a.ts' }), [
      { argument: 'path', path: 'src/a.ts', access: 'read' },
    ]);
    assert.deepEqual(tools.view_image.permission?.paths?.({ path: 'img.png' }), [
      { argument: 'path', path: 'img.png', access: 'read' },
    ]);
  });

  it('has schemas that bound limits and context', () => {
    const tools = toolsFor(tree.policy, { rgPath: null });
    const check = (name: 'ls' | 'glob' | 'grep', args: Record<string, unknown>) =>
      validateArguments({
        toolName: name,
        source: 'builtin',
        schema: tools[name].modelTool.inputSchema,
        arguments: args,
      });
    assert.equal(check('ls', { limit: 2000 }).ok, true);
    assert.equal(check('ls', { limit: 2001 }).ok, false);
    assert.equal(check('glob', { pattern: '*.ts', limit: 0 }).ok, false);
    assert.equal(check('grep', { pattern: 'x', context: 11 }).ok, false);
    assert.equal(check('grep', { pattern: '' }).ok, false);
    assert.equal(check('grep', { pattern: 'x', output_mode: 'lines' }).ok, false);
  });
});
