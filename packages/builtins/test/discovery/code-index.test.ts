import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { outputText, type ToolResult } from '@toolhost/contracts';
import { createPathPolicy } from '@toolhost/path-policy';
import { createCodeIndexTool } from '../../src/index.js';
import { callTool, errorOf, okText, tempProject } from '../files/file-helpers.js';

/** A small project with one definition of known lines per language, plus files the index must never show. */
const PROJECT: Readonly<Record<string, string>> = {
  'src/app.ts': `import x from './x';

/** Greets. */
export class Greeter {
  greet(name: string): string {
    return name;
  }
}

export function helperTs(): void {}
`,
  'src/view.tsx': `export const View = () => <div />;

export interface ViewProps {
  title: string;
}
`,
  'lib/util.js': `function jsUtility(a) {
  return a;
}

module.exports = { jsUtility };
`,
  'py/tool.py': `import os


class PyTool:
    def run(self):
        return os.getcwd()


def py_helper():
    pass
`,
  'go/server.go': `package server

// Server serves.
type Server struct{}

// Close stops it.
func (s *Server) Close() error {
	return nil
}
`,
  'rust/lib.rs': `pub struct RustPoint {
    x: i32,
}

impl RustPoint {
    pub fn norm(&self) -> i32 {
        self.x
    }
}
`,
  'java/Main.java': `package demo;

public class Main {
    public static void main(String[] args) {
    }
}
`,
  'c/math.c': `#include <stdio.h>

static int c_square(int x) {
  return x * x;
}
`,
  'cpp/shape.cpp': `namespace geo {
class Shape {
 public:
  double area() const { return 0; }
};
}
`,
  // Never indexed: ignored, hidden, node_modules, secret (by the policy), protected (by the policy).
  '.gitignore': 'build/\n',
  'build/ignored.ts': 'export function ignoredFunction() {}\n',
  '.hidden/hidden.ts': 'export function hiddenFunction() {}\n',
  'node_modules/pkg/index.js': 'function moduleFunction() {}\n',
  'private/secret.ts': 'export function secretFunction() {}\n',
  'generated/protected.ts': 'export function protectedFunction() {}\n',
};

async function project(t: TestContext): Promise<string> {
  const root = await tempProject(t);
  for (const [path, text] of Object.entries(PROJECT)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

function codeIndex(root: string, cacheDir?: string) {
  const tool = createCodeIndexTool({
    pathPolicy: createPathPolicy({
      mode: 'current_project',
      root,
      secretPaths: ['private/**'],
      protectedPaths: ['generated/**'],
    }),
    ...(cacheDir ? { cacheDir } : {}),
  });
  return (args: Record<string, unknown>): Promise<ToolResult> => callTool(tool, args);
}

function detailsOf(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(result.error.toModelText());
  return (result.output.details ?? {}) as Record<string, unknown>;
}

describe('code_index', () => {
  it('finds definitions in every required language with their line ranges', async (t) => {
    const call = codeIndex(await project(t));
    const cases: [string, string][] = [
      ['Greeter', 'src/app.ts:4-8 class Greeter'],
      ['Greeter.greet', 'src/app.ts:5-7 method Greeter.greet'],
      ['helperTs', 'src/app.ts:10-10 function helperTs'],
      ['View', 'src/view.tsx:1-1 function View'],
      ['ViewProps', 'src/view.tsx:3-5 interface ViewProps'],
      ['jsUtility', 'lib/util.js:1-3 function jsUtility'],
      ['PyTool', 'py/tool.py:4-6 class PyTool'],
      ['PyTool.run', 'py/tool.py:5-6 method PyTool.run'],
      ['py_helper', 'py/tool.py:9-10 function py_helper'],
      ['Server', 'go/server.go:4-4 struct Server'],
      ['Server.Close', 'go/server.go:7-9 method Server.Close'],
      ['RustPoint', 'rust/lib.rs:1-3 struct RustPoint'],
      ['norm', 'rust/lib.rs:6-8 method RustPoint.norm'],
      ['Main.main', 'java/Main.java:4-5 method Main.main'],
      ['c_square', 'c/math.c:3-5 function c_square'],
      ['area', 'cpp/shape.cpp:4-4 method geo.Shape.area'],
    ];
    for (const [query, line] of cases) {
      const text = okText(await call({ action: 'definition', query }));
      const lines = text.split('\n');
      assert.equal(lines[1], line, `${query}: ${text}`);
    }
    const first = okText(await call({ action: 'definition', query: 'Server.Close' }));
    assert.equal(
      first.split('\n')[2],
      '    func (s *Server) Close() error {',
      'the first line of the definition follows',
    );
  });

  it('never indexes ignored, hidden, node_modules, secret or protected files', async (t) => {
    const call = codeIndex(await project(t));
    const all = okText(await call({ action: 'symbols', limit: 1000 }));
    for (const name of [
      'ignoredFunction',
      'hiddenFunction',
      'moduleFunction',
      'secretFunction',
      'protectedFunction',
    ])
      assert.doesNotMatch(all, new RegExp(name), name);
    assert.equal(detailsOf(await call({ action: 'symbols' })).files, 9);
    const secret = errorOf(await call({ action: 'outline', path: 'private/secret.ts' }));
    assert.equal(secret.code, 'PATH_PROTECTED');
  });

  it('re-parses only the file that changed, drops deleted files, and starts warm from its cache directory', async (t) => {
    const root = await project(t);
    const cacheDir = join(await tempProject(t), 'code-index');
    const call = codeIndex(root, cacheDir);
    const cold = detailsOf(await call({ action: 'symbols', query: 'x' }));
    assert.deepEqual([cold.files, cold.parsed, cold.cached], [9, 9, 0]);
    const warm = detailsOf(await call({ action: 'symbols', query: 'x' }));
    assert.deepEqual([warm.parsed, warm.cached], [0, 9]);

    await writeFile(join(root, 'py/tool.py'), `${PROJECT['py/tool.py']}\n\ndef added_later():\n    pass\n`);
    const edited = await call({ action: 'definition', query: 'added_later' });
    assert.deepEqual([detailsOf(edited).parsed, detailsOf(edited).cached], [1, 8]);
    assert.equal(
      outputText(edited.ok ? edited.output : undefined).split('\n')[1],
      'py/tool.py:13-14 function added_later',
    );

    await rm(join(root, 'lib/util.js'));
    const removed = detailsOf(await call({ action: 'symbols', query: 'jsUtility' }));
    assert.deepEqual([removed.files, removed.parsed, removed.removed, removed.matches], [8, 0, 1, 0]);

    // A new tool (a new process) over the same cache directory parses nothing.
    const again = detailsOf(await codeIndex(root, cacheDir)({ action: 'symbols' }));
    assert.deepEqual([again.files, again.parsed, again.cached], [8, 0, 8]);
  });

  it('searches names by prefix, word starts and fuzzy letters, best first', async (t) => {
    const call = codeIndex(await project(t));
    assert.equal(
      okText(await call({ action: 'symbols', query: 'Gree' })).split('\n')[1],
      'src/app.ts:4-8 class Greeter',
    );
    assert.equal(
      okText(await call({ action: 'symbols', query: 'pyh' })).split('\n')[1],
      'py/tool.py:9-10 function py_helper',
    );
    assert.equal(
      okText(await call({ action: 'symbols', query: 'hlprTs' })).split('\n')[1],
      'src/app.ts:10-10 function helperTs',
    );
    const methods = okText(await call({ action: 'symbols', kind: 'method', limit: 100 }));
    assert.ok(
      methods
        .split('\n')
        .slice(1)
        .every((line) => line.includes(' method ')),
      methods,
    );
  });

  it('outlines one file with nested members', async (t) => {
    const call = codeIndex(await project(t));
    assert.equal(
      okText(await call({ action: 'outline', path: 'src/app.ts' })),
      [
        'outline of src/app.ts: 3 definitions (1 file indexed: 1 parsed, 0 from cache)',
        '4-8 class Greeter',
        '  5-7 method Greeter.greet',
        '10-10 function helperTs',
      ].join('\n'),
    );
  });

  it('refuses an unknown definition with SYMBOL_NOT_FOUND and close names, and paths outside the project', async (t) => {
    const call = codeIndex(await project(t));
    const error = errorOf(await call({ action: 'definition', query: 'Greter' }));
    assert.equal(error.code, 'SYMBOL_NOT_FOUND');
    assert.match(error.text, /close names: Greeter/);
    assert.equal(errorOf(await call({ action: 'symbols', path: '../' })).code, 'PATH_OUTSIDE_ROOT');
    assert.equal(errorOf(await call({ action: 'outline', path: 'src' })).code, 'NOT_A_FILE');
    assert.equal(errorOf(await call({ action: 'outline', path: '.gitignore' })).code, 'FILE_UNSUPPORTED');
    assert.equal(errorOf(await call({ action: 'definition' })).code, 'ARGUMENT_VALIDATION');
  });
});
