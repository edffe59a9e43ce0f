import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ENGINES, makeTree, okText, type Tree, toolsFor } from './grep-fixtures.js';

// The JS fallback of grep must select the same files and produce the same text as ripgrep. This
// suite runs one tree full of the cases where they could differ (nested and negated ignore rules,
// .ignore over .gitignore, .git/info/exclude, hidden names, node_modules, binary files, CRLF, UTF-16,
// long lines, symbolic links, file types, multiline matches, context) through both engines and
// compares the model text byte for byte. Searches cut by `limit` are left out: which matches ripgrep
// finds first depends on its threads.

const ripgrep = ENGINES.find((engine) => engine.rgPath !== null);

describe('createGrepTool', () => {
  describe('JS fallback compared with ripgrep', {
    skip: ripgrep === undefined ? 'rg is not on PATH' : false,
  }, () => {
    let tree: Tree;
    before(async () => {
      const filler = 'filler line\n'.repeat(7000);
      tree = await makeTree({
        '.gitignore': '*.log\n/build/\n!keep.log\ndocs/private/\nweird\\ name.txt\n',
        '.ignore': 'scratch.txt\n',
        'keep.log': 'needle kept\n',
        'app.log': 'needle log\n',
        'build/out.js': 'needle build\n',
        'sub/build/x.js': 'needle nested build\n',
        'sub/.gitignore': '*.tmp\n!important.tmp\n',
        'sub/a.tmp': 'needle tmp\n',
        'sub/important.tmp': 'needle important\n',
        'sub/deeper/.ignore': '!scratch.txt\n',
        'sub/deeper/scratch.txt': 'needle re-included scratch\n',
        'docs/private/p.md': 'needle private\n',
        'docs/readme.md': 'Needle and needle\n',
        'scratch.txt': 'needle scratch\n',
        'weird name.txt': 'needle weird\n',
        '.hidden/h.ts': 'needle hidden dir\n',
        '.config.ts': 'needle hidden file\n',
        'node_modules/m/index.js': 'needle module\n',
        'sub/node_modules/n.js': 'needle nested module\n',
        '.git/HEAD': 'needle git\n',
        '.git/info/exclude': 'excluded.txt\n',
        'excluded.txt': 'needle excluded\n',
        'crlf.txt': 'needle\r\nfoo\r\nneedle end\r\n',
        'utf16.txt': Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from('needle utf16 text\n', 'utf16le'),
        ]),
        'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle after bom\n')]),
        'bin.dat': Buffer.from('needle\u0000binary\n'),
        'late-bin.dat': Buffer.concat([
          Buffer.from(`needle early\n${filler}needle late\n`),
          Buffer.from([0]),
          Buffer.from('\nneedle after nul\n'),
        ]),
        'long.txt': `needle ${'y'.repeat(700)}\nshort needle\n`,
        'big.txt': `${filler}${filler}needle past the first blocks\n`,
        'src/main.rs': 'fn needle() {}\n',
        'src/lib.py': 'def needle(): pass\n',
        'src/app.tsx': 'const needle = <div/>;\n',
        'src/Makefile': 'needle:\n\techo needle\n',
        'src/x.h': 'int needle;\n',
        'src/[abc].c': 'int needle_literal;\n',
        'unicode.txt': 'naïve needle café\nΣίσυφος needle\n',
        'multi.txt': 'begin\nneedle middle\nend\nbegin\nend\nneedle needle\n',
        'ctx.txt': Array.from({ length: 30 }, (_, index) =>
          index % 7 === 3 ? `needle ${index}` : `plain ${index}`,
        ).join('\n'),
        '.env': 'needle secret\n',
        'keys/id_rsa': 'needle key\n',
        'link.txt': { symlink: 'src/main.rs' },
        linkdir: { symlink: 'src' },
      });
    });
    after(() => tree.remove());

    const cases: Array<Record<string, unknown>> = [
      { pattern: 'needle' },
      { pattern: 'needle', include_hidden: true },
      { pattern: 'needle', no_ignore: true },
      { pattern: 'needle', include_hidden: true, no_ignore: true },
      { pattern: 'needle', glob: '*.log' },
      { pattern: 'needle', glob: '*.ts' },
      { pattern: 'needle', glob: '!*.txt' },
      { pattern: 'needle', glob: 'sub/**' },
      { pattern: 'needle', glob: '/src/*.{rs,py}' },
      { pattern: 'needle', glob: 'build' },
      { pattern: 'needle', glob: 'docs/**' },
      { pattern: 'needle', glob: '**/*.tmp', no_ignore: true },
      { pattern: 'needle', glob: '.*' },
      { pattern: 'needle', glob: '[!bm]*.txt' },
      { pattern: 'needle', glob: '[abc].c' },
      { pattern: 'needle', type: 'c' },
      { pattern: 'needle', type: 'ts' },
      { pattern: 'needle', type: 'rust' },
      { pattern: 'needle', type: 'make' },
      { pattern: 'needle', type: 'py', include_hidden: true },
      { pattern: 'NEEDLE', ignore_case: true },
      { pattern: '(?i)NEEDLE', output_mode: 'count' },
      { pattern: 'needle$' },
      { pattern: '^needle', output_mode: 'count' },
      { pattern: 'needle', output_mode: 'files_with_matches', include_hidden: true, no_ignore: true },
      { pattern: 'needle', output_mode: 'count', no_ignore: true },
      { pattern: 'begin\\nneedle', multiline: true },
      { pattern: 'begin.*?end', multiline: true },
      { pattern: 'begin.*?end', multiline: true, output_mode: 'count' },
      { pattern: 'needle', multiline: true, context: 1, path: 'multi.txt' },
      { pattern: '\\bneedle\\b', context: 2, path: 'ctx.txt' },
      { pattern: 'needle', context: 1 },
      { pattern: 'ne+dle', path: 'sub' },
      { pattern: 'needle', path: 'build' },
      { pattern: 'needle', path: 'bin.dat' },
      { pattern: 'needle', path: 'docs/private' },
      { pattern: '[[:alpha:]]+ utf16' },
      { pattern: '\\p{Greek}+ needle' },
      { pattern: 'n.e.d.e' },
      { pattern: 'y{10}', path: 'long.txt' },
      { pattern: 'needle (?P<word>\\w+)' },
      { pattern: 'x\\x{41}?needle' },
      { pattern: '(?x) need  le  # verbose' },
      { pattern: 'needle.txt', literal: true, no_ignore: true },
      { pattern: 'missing-everywhere' },
    ];

    for (const args of cases) {
      it(`gives the same output for ${JSON.stringify(args)}`, async () => {
        const [rg, js] = await Promise.all(
          [ripgrep!.rgPath, null].map(async (rgPath) => {
            const result = await call(toolsFor(tree.policy, { rgPath }).grep, args);
            return result.ok ? okText(result) : `error ${result.error.code}`;
          }),
        );
        assert.equal(js, rg);
      });
    }
  });
});
