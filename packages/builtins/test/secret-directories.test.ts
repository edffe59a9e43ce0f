import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createObservationStore } from '@toolhost/read-evidence';
import { createFileTools } from '../src/index.js';
import { call, ENGINES, failure, makeTree, okText, type Tree, toolsFor } from './grep/grep-fixtures.js';

// Finding 3 of issue 15: a directory matching a secret pattern (`certs.key/`) is hidden by the shell
// sandbox as a whole, but read_file, ls, glob and grep showed what is beneath it. The path policy
// now covers everything below a matched directory (PP-PROT-6); every tool asks the policy.

const SECRET = 'needle-private-material';

describe('a directory matching a secret pattern', () => {
  let tree: Tree;
  before(async () => {
    tree = await makeTree({
      'certs.key/inner.txt': `${SECRET}\n`,
      'certs.key/sub/deeper.txt': `${SECRET}\n`,
      'config/.env.d/app.conf': `${SECRET}\n`,
      'src/a.txt': 'needle-public\n',
    });
  });
  after(() => tree.remove());

  const fileTool = (name: string) =>
    createFileTools({ pathPolicy: tree.policy, observations: createObservationStore() }).find(
      (tool) => tool.name === name,
    )!;

  it('is secret for everything beneath it in read_file (regression: certs.key/inner.txt was readable)', async () => {
    for (const path of ['certs.key/inner.txt', 'certs.key/sub/deeper.txt', 'config/.env.d/app.conf']) {
      const refused = failure(await call(fileTool('read_file'), { path }));
      assert.equal(refused.code, 'PATH_PROTECTED', path);
      assert.ok(!refused.text.includes(SECRET));
    }
    const write = failure(await call(fileTool('write_file'), { path: 'certs.key/new.txt', content: 'x' }));
    assert.equal(write.code, 'PATH_PROTECTED');
  });

  it('is neither listed nor listable beneath it in ls (regression: certs.key/sub was listable)', async () => {
    const { ls } = toolsFor(tree.policy);
    const top = okText(await call(ls, {}));
    assert.ok(!top.includes('certs.key'), top);
    const recursive = okText(await call(ls, { recursive: true }));
    assert.ok(!recursive.includes('inner.txt') && !recursive.includes('deeper.txt'), recursive);
    assert.ok(!recursive.includes('app.conf'), recursive);
    for (const path of ['certs.key', 'certs.key/sub', 'config/.env.d'])
      assert.equal(failure(await call(ls, { path })).code, 'PATH_PROTECTED', path);
  });

  it('is never matched beneath it by glob', async () => {
    const { glob } = toolsFor(tree.policy);
    const all = okText(await call(glob, { pattern: '**/*', include_hidden: true }));
    assert.ok(!all.includes('certs.key') && !all.includes('app.conf'), all);
    for (const path of ['certs.key', 'certs.key/sub'])
      assert.equal(failure(await call(glob, { pattern: '**/*', path })).code, 'PATH_PROTECTED', path);
  });

  for (const engine of ENGINES) {
    it(`is never searched beneath it by grep with ${engine.name} (regression: files beneath certs.key/ were searched)`, {
      skip: engine.skip,
    }, async () => {
      const { grep } = toolsFor(tree.policy, { rgPath: engine.rgPath });
      const everything = okText(await call(grep, { pattern: 'needle', include_hidden: true }));
      assert.ok(everything.includes('src/a.txt'), everything);
      assert.ok(!everything.includes(SECRET) && !everything.includes('certs.key'), everything);
      assert.ok(!everything.includes('app.conf'), everything);
      for (const path of ['certs.key/inner.txt', 'certs.key/sub', 'config/.env.d/app.conf']) {
        const refused = failure(await call(grep, { pattern: 'needle', path }));
        assert.equal(refused.code, 'PATH_PROTECTED', path);
        assert.ok(!refused.text.includes(SECRET));
      }
    });
  }
});
