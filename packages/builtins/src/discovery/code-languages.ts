import { createRequire } from 'node:module';
import type { Language, Parser, Tree } from 'web-tree-sitter';

// Syntax trees come from tree-sitter compiled to WebAssembly (web-tree-sitter), with the grammars
// prebuilt by @repomix/tree-sitter-wasms: the one npm package that ships every language code_index
// needs (@vscode/tree-sitter-wasm has no C grammar), built with tree-sitter-cli 0.26 for the
// web-tree-sitter 0.27 runtime (the pair repomix itself runs on Node 20). Nothing here loads at
// start-up: the runtime and each grammar are imported on the first call that needs them, so hosts
// that never index code pay nothing.

/** The languages code_index and delete_symbol understand. */
export type CodeLanguage =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp';

/** File name extensions (lower case, with the dot) and the language each one is parsed as. */
export const CODE_EXTENSIONS: Readonly<Record<string, CodeLanguage>> = Object.freeze({
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c',
  '.h': 'c',
  '.cc': 'cpp',
  '.cpp': 'cpp',
  '.cxx': 'cpp',
  '.c++': 'cpp',
  '.hh': 'cpp',
  '.hpp': 'cpp',
  '.hxx': 'cpp',
  '.h++': 'cpp',
  '.ipp': 'cpp',
});

/** The language a file is parsed as, by its name's extension, or `undefined` for other files. */
export function languageOfPath(path: string): CodeLanguage | undefined {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return undefined;
  return CODE_EXTENSIONS[path.slice(dot).toLowerCase()];
}

/** The grammar file of each language in @repomix/tree-sitter-wasms. */
const GRAMMAR_FILES: Readonly<Record<CodeLanguage, string>> = {
  typescript: 'tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript.wasm',
  python: 'tree-sitter-python.wasm',
  go: 'tree-sitter-go.wasm',
  rust: 'tree-sitter-rust.wasm',
  java: 'tree-sitter-java.wasm',
  c: 'tree-sitter-c.wasm',
  cpp: 'tree-sitter-cpp.wasm',
};

type TreeSitterModule = typeof import('web-tree-sitter');

let runtime: Promise<TreeSitterModule> | undefined;
const parsers = new Map<CodeLanguage, Promise<Parser>>();

function loadRuntime(): Promise<TreeSitterModule> {
  runtime ??= (async () => {
    const module = await import('web-tree-sitter');
    await module.Parser.init();
    return module;
  })();
  // A failed load is not cached: the next call tries again.
  runtime.catch(() => {
    runtime = undefined;
  });
  return runtime;
}

/**
 * The parser of a language: the runtime and the grammar are loaded on first use and kept for the
 * life of the process (one parser per language; parsing is synchronous, so calls never interleave
 * on one parser). Rejects when the grammar cannot be loaded.
 */
export function loadCodeParser(language: CodeLanguage): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = (async () => {
      const module = await loadRuntime();
      const require = createRequire(import.meta.url);
      const file = require.resolve(`@repomix/tree-sitter-wasms/out/${GRAMMAR_FILES[language]}`);
      const grammar: Language = await module.Language.load(file);
      const created = new module.Parser();
      created.setLanguage(grammar);
      return created;
    })();
    parsers.set(language, parser);
    parser.catch(() => parsers.delete(language));
  }
  return parser;
}

/**
 * Parses a text with a loaded parser. Returns `undefined` when tree-sitter gives up (it never does
 * for plain text without a timeout, but the binding's type allows it). The caller deletes the tree.
 */
export function parseCode(parser: Parser, text: string): Tree | undefined {
  return parser.parse(text) ?? undefined;
}
