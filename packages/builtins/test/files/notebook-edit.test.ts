import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { errorOf, okText } from './file-helpers.js';
import { copyNotebook, nbformatErrors, structuredTools } from './structured-helpers.js';

type Cell = {
  cell_type: string;
  id?: string;
  source: string | string[];
  outputs?: unknown[];
  execution_count?: number | null;
  metadata: Record<string, unknown>;
};
type Notebook = {
  cells: Cell[];
  nbformat: number;
  nbformat_minor: number;
  metadata: Record<string, unknown>;
};

async function readNotebook(path: string): Promise<{ text: string; notebook: Notebook }> {
  const text = await readFile(path, 'utf8');
  return { text, notebook: JSON.parse(text) as Notebook };
}

const source = (cell: Cell | undefined) =>
  Array.isArray(cell?.source) ? cell.source.join('') : (cell?.source ?? '(no cell)');

describe('notebook_edit', () => {
  it('replaces a code cell by number, clears only its outputs and execution count, and keeps the rest byte for byte', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    const before = await readNotebook(path);
    assert.equal(before.notebook.cells[3]?.outputs?.length, 1, 'the fixture cell has an output');
    okText(await files.call('read_file', { path: 'nb.ipynb' }));
    const text = okText(
      await files.call('notebook_edit', { path: 'nb.ipynb', cell_number: 3, new_source: 'x = 1\nprint(x)' }),
    );
    assert.equal(
      text,
      'replaced the source of cell 3 (id 38f37a24), now code; cleared its 1 output and execution count in nb.ipynb',
    );
    const after = await readNotebook(path);
    assert.deepEqual(nbformatErrors(after.notebook), []);
    const cell = after.notebook.cells[3]!;
    assert.deepEqual(cell.source, ['x = 1\n', 'print(x)'], 'the list form of the cell is kept');
    assert.deepEqual(cell.outputs, []);
    assert.equal(cell.execution_count, null);
    assert.deepEqual(Object.keys(cell), Object.keys(before.notebook.cells[3]!), 'key order is kept');
    for (const [index, other] of before.notebook.cells.entries())
      if (index !== 3) assert.deepEqual(after.notebook.cells[index], other, `cell ${index} is untouched`);
    // Everything before and after the edited cell is the same bytes, indentation included.
    const start = before.text.lastIndexOf('{', before.text.indexOf('"id": "38f37a24"'));
    assert.equal(after.text.slice(0, start), before.text.slice(0, start));
    const tail = before.text.slice(before.text.lastIndexOf('{', before.text.indexOf('"id": "a1f70963"')));
    assert.ok(after.text.endsWith(tail));
  });

  it('inserts after a cell by id and by number, and at the start with -1, giving new cells unique ids (nbformat 4.5)', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    okText(await files.call('read_file', { path: 'nb.ipynb', limit: 1 }));
    okText(
      await files.call('notebook_edit', {
        path: 'nb.ipynb',
        edit_mode: 'insert',
        cell_id: '2fcdfa53',
        cell_type: 'code',
        new_source: 'import os\nos.getcwd()\n',
      }),
    );
    okText(
      await files.call('notebook_edit', {
        path: 'nb.ipynb',
        edit_mode: 'insert',
        cell_number: 2,
        cell_type: 'markdown',
        new_source: '## Inserted',
      }),
    );
    okText(
      await files.call('notebook_edit', {
        path: 'nb.ipynb',
        edit_mode: 'insert',
        cell_number: -1,
        cell_type: 'raw',
        new_source: 'first',
      }),
    );
    const { notebook } = await readNotebook(path);
    assert.deepEqual(nbformatErrors(notebook), []);
    assert.equal(notebook.cells.length, 12);
    assert.equal(source(notebook.cells[0]), 'first');
    assert.equal(notebook.cells[0]?.cell_type, 'raw');
    assert.equal(notebook.cells[1]?.id, '2fcdfa53');
    assert.equal(source(notebook.cells[2]), 'import os\nos.getcwd()\n');
    assert.deepEqual(Object.keys(notebook.cells[2]!), [
      'cell_type',
      'execution_count',
      'id',
      'metadata',
      'outputs',
      'source',
    ]);
    assert.equal(source(notebook.cells[4]), '## Inserted');
    const ids = notebook.cells.map((cell) => cell.id);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z0-9]{8}$/.test(id)));
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  });

  it('inserts without an id into nbformat 4.0 notebooks and appends when no cell is named', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.ipynb', 'old.ipynb');
    okText(await files.call('read_file', { path: 'old.ipynb', limit: 1 }));
    okText(
      await files.call('notebook_edit', {
        path: 'old.ipynb',
        edit_mode: 'insert',
        cell_type: 'markdown',
        new_source: 'The end.',
      }),
    );
    const { notebook } = await readNotebook(path);
    assert.deepEqual(nbformatErrors(notebook), []);
    const last = notebook.cells.at(-1)!;
    assert.equal(source(last), 'The end.');
    assert.equal('id' in last, false, 'nbformat 4.0 cells have no id');
  });

  it('deletes a cell by id and another by number', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    const before = (await readNotebook(path)).notebook;
    okText(await files.call('read_file', { path: 'nb.ipynb', limit: 1 }));
    assert.equal(
      okText(
        await files.call('notebook_edit', { path: 'nb.ipynb', edit_mode: 'delete', cell_id: '8206b3b9' }),
      ),
      'deleted code cell 5 (id 8206b3b9) in nb.ipynb',
    );
    okText(await files.call('notebook_edit', { path: 'nb.ipynb', edit_mode: 'delete', cell_number: 0 }));
    const { notebook } = await readNotebook(path);
    assert.deepEqual(nbformatErrors(notebook), []);
    assert.deepEqual(
      notebook.cells.map((cell) => cell.id),
      before.cells.map((cell) => cell.id).filter((id) => id !== '8206b3b9' && id !== '2fcdfa53'),
    );
  });

  it('refuses a notebook that was never read with FS_NOT_OBSERVED and leaves it unchanged', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    const before = await readFile(path, 'utf8');
    const error = errorOf(
      await files.call('notebook_edit', { path: 'nb.ipynb', cell_number: 0, new_source: 'x' }),
    );
    assert.equal(error.code, 'FS_NOT_OBSERVED');
    assert.equal(await readFile(path, 'utf8'), before);
  });

  it('refuses a notebook changed by someone else since it was read with FS_STALE_VERSION and keeps their change', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    okText(await files.call('read_file', { path: 'nb.ipynb' }));
    // Another process (Jupyter saving) rewrites the notebook.
    const theirs = (await readFile(path, 'utf8')).replace('# nbconvert latex test', '# saved by Jupyter');
    await writeFile(path, theirs);
    const error = errorOf(
      await files.call('notebook_edit', { path: 'nb.ipynb', cell_number: 1, new_source: 'mine' }),
    );
    assert.equal(error.code, 'FS_STALE_VERSION');
    assert.equal(await readFile(path, 'utf8'), theirs);
  });

  it('converts cells between types with nbformat-valid keys in sorted order', async (t) => {
    const files = await structuredTools(t);
    const path = await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    okText(await files.call('read_file', { path: 'nb.ipynb', limit: 1 }));
    okText(
      await files.call('notebook_edit', {
        path: 'nb.ipynb',
        cell_number: 0,
        cell_type: 'code',
        new_source: '1 + 1',
      }),
    );
    okText(
      await files.call('notebook_edit', {
        path: 'nb.ipynb',
        cell_number: 3,
        cell_type: 'markdown',
        new_source: 'Was code.',
      }),
    );
    const { notebook } = await readNotebook(path);
    assert.deepEqual(nbformatErrors(notebook), []);
    assert.deepEqual(Object.keys(notebook.cells[0]!), [
      'cell_type',
      'execution_count',
      'id',
      'metadata',
      'outputs',
      'source',
    ]);
    assert.deepEqual(Object.keys(notebook.cells[3]!), ['cell_type', 'id', 'metadata', 'source']);
    assert.equal(notebook.cells[3]?.cell_type, 'markdown');
  });

  it('keeps a hand-written layout: two-space indentation, unsorted keys, string sources, CRLF', async (t) => {
    const files = await structuredTools(t);
    const original = [
      '{',
      '  "nbformat": 4,',
      '  "nbformat_minor": 5,',
      '  "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}, "ratio": 1.0},',
      '  "cells": [',
      '    {"source": "a = 1", "cell_type": "code", "id": "c1", "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\\n"}], "execution_count": 4},',
      '    {"source": "# T", "cell_type": "markdown", "id": "m1", "metadata": {}}',
      '  ]',
      '}',
      '',
    ].join('\r\n');
    await writeFile(join(files.root, 'hand.ipynb'), original);
    okText(await files.call('read_file', { path: 'hand.ipynb', limit: 1 }));
    okText(await files.call('notebook_edit', { path: 'hand.ipynb', cell_id: 'c1', new_source: 'a = 2' }));
    const text = await readFile(join(files.root, 'hand.ipynb'), 'utf8');
    assert.equal(
      text,
      original.replace(
        '{"source": "a = 1", "cell_type": "code", "id": "c1", "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\\n"}], "execution_count": 4}',
        '{"source": "a = 2", "cell_type": "code", "id": "c1", "metadata": {}, "outputs": [], "execution_count": null}',
      ),
      'only the edited values changed; "ratio": 1.0 and the CRLF line ends are untouched',
    );
    assert.deepEqual(nbformatErrors(JSON.parse(text)), []);
  });

  it('refuses a missing cell and a file that is not a notebook with NOTEBOOK_INVALID, without quoting the file', async (t) => {
    const files = await structuredTools(t);
    await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    okText(await files.call('read_file', { path: 'nb.ipynb', limit: 1 }));
    const missing = errorOf(
      await files.call('notebook_edit', { path: 'nb.ipynb', cell_number: 9, new_source: 'x' }),
    );
    assert.equal(missing.code, 'NOTEBOOK_INVALID');
    assert.match(missing.text, /has 9 cells \(numbers 0-8\); there is no cell 9/);
    const noId = errorOf(
      await files.call('notebook_edit', { path: 'nb.ipynb', cell_id: 'nope', new_source: 'x' }),
    );
    assert.equal(noId.code, 'NOTEBOOK_INVALID');
    await writeFile(join(files.root, 'broken.ipynb'), '{"cells": [SECRET-TOKEN-123');
    okText(await files.call('read_file', { path: 'broken.ipynb' }));
    const broken = errorOf(
      await files.call('notebook_edit', { path: 'broken.ipynb', cell_number: 0, new_source: 'x' }),
    );
    assert.equal(broken.code, 'NOTEBOOK_INVALID');
    assert.doesNotMatch(broken.text, /SECRET/);
    assert.equal(await readFile(join(files.root, 'broken.ipynb'), 'utf8'), '{"cells": [SECRET-TOKEN-123');
  });

  it('refuses insert without cell_type and replace without a cell with ARGUMENT_VALIDATION', async (t) => {
    const files = await structuredTools(t);
    await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    okText(await files.call('read_file', { path: 'nb.ipynb', limit: 1 }));
    assert.equal(
      errorOf(await files.call('notebook_edit', { path: 'nb.ipynb', edit_mode: 'insert', new_source: 'x' }))
        .code,
      'ARGUMENT_VALIDATION',
    );
    assert.equal(
      errorOf(await files.call('notebook_edit', { path: 'nb.ipynb', new_source: 'x' })).code,
      'ARGUMENT_VALIDATION',
    );
    assert.equal(
      errorOf(
        await files.call('notebook_edit', {
          path: 'nb.ipynb',
          cell_id: '2fcdfa53',
          cell_number: 4,
          new_source: 'x',
        }),
      ).code,
      'ARGUMENT_VALIDATION',
    );
  });
});

describe('read_file of a notebook', () => {
  it('renders cells with numbers, ids, types and bounded outputs, and observes the file for notebook_edit', async (t) => {
    const files = await structuredTools(t);
    await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    const text = okText(await files.call('read_file', { path: 'nb.ipynb' }));
    const lines = text.split('\n');
    assert.match(
      lines[0]!,
      /^\[Jupyter notebook nb\.ipynb: nbformat 4\.5, 9 cells, kernel python3 \(python\)\. Edit cells with notebook_edit/,
    );
    assert.equal(lines[1], '--- cell 0 (markdown id=2fcdfa53) ---');
    assert.equal(lines[2], '# nbconvert latex test');
    assert.ok(lines.includes('--- cell 3 (code id=38f37a24 execution_count=1) ---'));
    assert.ok(lines.includes('[outputs: 1]'));
    assert.ok(lines.includes('> stdout: hello'));
    assert.doesNotMatch(text, /"cell_type"/, 'the JSON is not shown');
    // The read is the observation notebook_edit needs.
    okText(await files.call('notebook_edit', { path: 'nb.ipynb', cell_number: 0, new_source: '# Renamed' }));
  });

  it('pages the rendered notebook with offset and limit', async (t) => {
    const files = await structuredTools(t);
    await copyNotebook(files.root, 'test4.5.ipynb', 'nb.ipynb');
    const text = okText(await files.call('read_file', { path: 'nb.ipynb', offset: 1, limit: 2 }));
    const lines = text.split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[1], '# nbconvert latex test');
    assert.match(
      lines[3]!,
      /^\[PARTIAL view: showing lines 2-3 of \d+ of the rendered notebook; pass offset=3 to continue\.\]$/,
    );
  });

  it('shows a .ipynb file that is not a notebook as text', async (t) => {
    const files = await structuredTools(t);
    await writeFile(join(files.root, 'x.ipynb'), 'not json\n');
    assert.equal(okText(await files.call('read_file', { path: 'x.ipynb' })), '1→not json');
  });
});
