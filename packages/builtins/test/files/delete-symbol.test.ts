import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { type CodeLanguage, loadCodeParser, parseCode } from '../../src/discovery/code-languages.js';
import { errorOf, okText } from './file-helpers.js';
import { structuredTools } from './structured-helpers.js';

/** Whether a text parses without any error node, as tree-sitter sees it (the tool's own gate, checked independently). */
async function parsesCleanly(language: CodeLanguage, text: string): Promise<boolean> {
  const tree = parseCode(await loadCodeParser(language), text)!;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

const gofmt = spawnSync('gofmt', ['-h'], { stdio: 'ignore' }).error ? undefined : 'gofmt';

const GO_SOURCE = `package server

import "fmt"

// Server serves requests.
type Server struct {
	name string
}

// Client calls a server.
type Client struct{}

// Start starts the server.
func (s *Server) Start() error {
	fmt.Println("start", s.name)
	return nil
}

// Close stops the server.
// It is safe to call twice.
func (s *Server) Close() error {
	return nil
}

// Close hangs up.
func (c Client) Close() error { return nil }

const (
	// Port is the default port.
	Port = 8080
	Host = "localhost"
)

var a, b = 1, 2

// Helper helps.
func Helper() int { return 1 }
`;

describe('delete_symbol', () => {
  it('removes a Go method with its doc comment, and the file still parses (and passes gofmt -e when installed)', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'server.go');
    await writeFile(path, GO_SOURCE);
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    const text = okText(await files.call('delete_symbol', { path: 'server.go', symbol: 'Server.Close' }));
    const expected = GO_SOURCE.replace(
      '// Close stops the server.\n// It is safe to call twice.\nfunc (s *Server) Close() error {\n\treturn nil\n}\n\n',
      '',
    );
    const after = await readFile(path, 'utf8');
    assert.equal(after, expected);
    assert.match(
      text,
      /^deleted method Server\.Close \(lines 21-23\) with its doc comment from server\.go: lines 19-24 removed\n--- a\/server\.go\n\+\+\+ b\/server\.go\n@@ /,
    );
    assert.match(
      text,
      /\n-\/\/ Close stops the server\.\n-\/\/ It is safe to call twice\.\n-func \(s \*Server\) Close\(\) error \{\n/,
    );
    assert.ok(await parsesCleanly('go', after));
    if (gofmt) {
      const checked = spawnSync(gofmt, ['-e', '-l', path], { encoding: 'utf8' });
      assert.equal(checked.status, 0, checked.stderr);
      assert.equal(
        checked.stdout,
        '',
        'gofmt would not change the file: the spacing left behind is gofmt-clean',
      );
    } else t.diagnostic('gofmt is not installed: the tree-sitter parse is the only check');
  });

  it('accepts Go receiver spellings and deletes funcs, types and one const of a group', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'server.go');
    await writeFile(path, GO_SOURCE);
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    okText(await files.call('delete_symbol', { path: 'server.go', symbol: '(c Client) Close' }));
    okText(await files.call('delete_symbol', { path: 'server.go', symbol: '(*Server).Start' }));
    okText(await files.call('delete_symbol', { path: 'server.go', symbol: 'Port', kind: 'const' }));
    okText(await files.call('delete_symbol', { path: 'server.go', symbol: 'Helper', kind: 'func' }));
    okText(await files.call('delete_symbol', { path: 'server.go', symbol: 'Client', kind: 'type' }));
    const after = await readFile(path, 'utf8');
    assert.equal(
      after,
      `package server

import "fmt"

// Server serves requests.
type Server struct {
	name string
}

// Close stops the server.
// It is safe to call twice.
func (s *Server) Close() error {
	return nil
}

const (
	Host = "localhost"
)

var a, b = 1, 2
`,
    );
    assert.ok(await parsesCleanly('go', after));
  });

  it('refuses an ambiguous name with SYMBOL_AMBIGUOUS listing the candidates, and writes nothing', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'server.go');
    await writeFile(path, GO_SOURCE);
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    const error = errorOf(await files.call('delete_symbol', { path: 'server.go', symbol: 'Close' }));
    assert.equal(error.code, 'SYMBOL_AMBIGUOUS');
    assert.match(
      error.text,
      /2 definitions in server\.go match: method Server\.Close \(lines 21-23\); method Client\.Close \(line 26\)/,
    );
    assert.equal(await readFile(path, 'utf8'), GO_SOURCE);
  });

  it('refuses an unknown name with SYMBOL_NOT_FOUND and close names', async (t) => {
    const files = await structuredTools(t);
    await writeFile(join(files.root, 'server.go'), GO_SOURCE);
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    const error = errorOf(await files.call('delete_symbol', { path: 'server.go', symbol: 'Server.Clsoe' }));
    assert.equal(error.code, 'SYMBOL_NOT_FOUND');
    assert.match(error.text, /close names: .*Server\.Close/);
    const kind = errorOf(
      await files.call('delete_symbol', { path: 'server.go', symbol: 'Helper', kind: 'type' }),
    );
    assert.equal(kind.code, 'SYMBOL_NOT_FOUND');
  });

  it('refuses a name declared together with others (var a, b) with EDIT_INVALID', async (t) => {
    const files = await structuredTools(t);
    await writeFile(join(files.root, 'server.go'), GO_SOURCE);
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    const error = errorOf(await files.call('delete_symbol', { path: 'server.go', symbol: 'a' }));
    assert.equal(error.code, 'EDIT_INVALID');
    assert.match(error.text, /declared in one declaration together with b/);
  });

  it('writes nothing without a current observation (FS_NOT_OBSERVED, FS_STALE_VERSION)', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'server.go');
    await writeFile(path, GO_SOURCE);
    assert.equal(
      errorOf(await files.call('delete_symbol', { path: 'server.go', symbol: 'Helper' })).code,
      'FS_NOT_OBSERVED',
    );
    okText(await files.call('read_file', { path: 'server.go', limit: 1 }));
    const changed = GO_SOURCE.replace('return 1', 'return 2');
    await writeFile(path, changed);
    assert.equal(
      errorOf(await files.call('delete_symbol', { path: 'server.go', symbol: 'Helper' })).code,
      'FS_STALE_VERSION',
    );
    assert.equal(await readFile(path, 'utf8'), changed);
  });

  it('removes a TypeScript class with its JSDoc, decorator and export, a decorated method, and overloads as one function', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'app.ts');
    const source = `import { Component, Input } from './decorators';

/** The main widget. */
@Component({ selector: 'app-widget' })
export class Widget {
  /** The title shown. */
  @Input() title = '';

  /** Renders it. */
  @Input()
  render(): string {
    return this.title;
  }

  other(): void {}
}

export function parse(text: string): number;
export function parse(text: number): number;
export function parse(text: unknown): number {
  return Number(text);
}

export const keep = 1;
`;
    await writeFile(path, source);
    okText(await files.call('read_file', { path: 'app.ts', limit: 1 }));
    okText(await files.call('delete_symbol', { path: 'app.ts', symbol: 'Widget.render' }));
    let after = await readFile(path, 'utf8');
    assert.equal(
      after,
      source.replace(
        '  /** Renders it. */\n  @Input()\n  render(): string {\n    return this.title;\n  }\n\n',
        '',
      ),
    );
    okText(await files.call('delete_symbol', { path: 'app.ts', symbol: 'parse' }));
    okText(await files.call('delete_symbol', { path: 'app.ts', symbol: 'Widget', kind: 'class' }));
    after = await readFile(path, 'utf8');
    assert.equal(after, `import { Component, Input } from './decorators';\n\nexport const keep = 1;\n`);
    assert.ok(await parsesCleanly('typescript', after));
  });

  it('removes a decorated Python function with the comment above it and a property method', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'app.py');
    const source = `import functools


# Cached because it is slow.
@functools.cache
def slow(n):
    """Compute slowly."""
    return n


class Box:
    def __init__(self, size):
        self._size = size

    @property
    def size(self):
        return self._size


def keep():
    return slow(1)
`;
    await writeFile(path, source);
    okText(await files.call('read_file', { path: 'app.py', limit: 1 }));
    okText(await files.call('delete_symbol', { path: 'app.py', symbol: 'slow' }));
    okText(await files.call('delete_symbol', { path: 'app.py', symbol: 'Box.size' }));
    const after = await readFile(path, 'utf8');
    assert.equal(
      after,
      `import functools


class Box:
    def __init__(self, size):
        self._size = size


def keep():
    return slow(1)
`,
    );
    assert.ok(await parsesCleanly('python', after));
  });

  it('refuses a deletion that would leave the file not parsing (the only method of a class) and writes nothing', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'only.py');
    const source = 'class Only:\n    def m(self):\n        pass\n\nx = 1\n';
    await writeFile(path, source);
    okText(await files.call('read_file', { path: 'only.py', limit: 1 }));
    const error = errorOf(await files.call('delete_symbol', { path: 'only.py', symbol: 'Only.m' }));
    assert.equal(error.code, 'EDIT_INVALID');
    assert.match(error.text, /would leave only\.py not parsing/);
    assert.equal(await readFile(path, 'utf8'), source);
  });

  it('refuses a file that does not parse now with EDIT_INVALID naming the line', async (t) => {
    const files = await structuredTools(t);
    await writeFile(join(files.root, 'bad.go'), 'package x\n\nfunc A() {}\n\nfunc B( {\n}\n');
    okText(await files.call('read_file', { path: 'bad.go', limit: 1 }));
    const error = errorOf(await files.call('delete_symbol', { path: 'bad.go', symbol: 'A' }));
    assert.equal(error.code, 'EDIT_INVALID');
    assert.match(error.text, /does not parse as go now \(first syntax error at line 5\)/);
  });

  it('takes Rust attributes and Java annotations with the definition', async (t) => {
    const files = await structuredTools(t);
    await writeFile(
      join(files.root, 'lib.rs'),
      '/// A point.\n#[derive(Debug, Clone)]\npub struct Point {\n    x: i32,\n}\n\nfn keep() {}\n',
    );
    await writeFile(
      join(files.root, 'A.java'),
      'class A {\n  /** Old. */\n  @Deprecated\n  @Override\n  public String toString() { return ""; }\n\n  void keep() {}\n}\n',
    );
    okText(await files.call('read_file', { path: 'lib.rs', limit: 1 }));
    okText(await files.call('read_file', { path: 'A.java', limit: 1 }));
    okText(await files.call('delete_symbol', { path: 'lib.rs', symbol: 'Point' }));
    okText(await files.call('delete_symbol', { path: 'A.java', symbol: 'A.toString' }));
    assert.equal(await readFile(join(files.root, 'lib.rs'), 'utf8'), 'fn keep() {}\n');
    assert.equal(await readFile(join(files.root, 'A.java'), 'utf8'), 'class A {\n  void keep() {}\n}\n');
  });

  it('keeps CRLF line endings and removes whole CRLF lines', async (t) => {
    const files = await structuredTools(t);
    const path = join(files.root, 'win.go');
    const source = 'package win\r\n\r\n// A is first.\r\nfunc A() {}\r\n\r\nfunc B() {}\r\n';
    await writeFile(path, source);
    okText(await files.call('read_file', { path: 'win.go', limit: 1 }));
    okText(await files.call('delete_symbol', { path: 'win.go', symbol: 'A' }));
    assert.equal(await readFile(path, 'utf8'), 'package win\r\n\r\nfunc B() {}\r\n');
  });

  it('refuses files in languages it does not parse with FILE_UNSUPPORTED', async (t) => {
    const files = await structuredTools(t);
    await writeFile(join(files.root, 'notes.md'), '# x\n');
    okText(await files.call('read_file', { path: 'notes.md' }));
    assert.equal(
      errorOf(await files.call('delete_symbol', { path: 'notes.md', symbol: 'x' })).code,
      'FILE_UNSUPPORTED',
    );
  });
});
