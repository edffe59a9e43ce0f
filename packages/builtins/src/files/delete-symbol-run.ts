import {
  closeNames,
  errorResult,
  type ToolCallContext,
  type ToolResult,
  ToolhostError,
  textResult,
} from '@toolhost/contracts';
import type { Node, Parser } from 'web-tree-sitter';
import type { DeleteSymbolArguments } from '../discovery/code-arguments.js';
import {
  CODE_EXTENSIONS,
  type CodeLanguage,
  languageOfPath,
  loadCodeParser,
  parseCode,
} from '../discovery/code-languages.js';
import { kindsOf, namesSymbol, parseSymbolQuery } from '../discovery/code-match.js';
import { extractSymbols, qualifiedName, type SymbolSpan } from '../discovery/code-symbols.js';
import { formatUnifiedDiff } from './file-diff.js';
import { mutateTextFile, resolveFilePath } from './file-mutation.js';
import type { ResolvedFileToolsOptions } from './file-tools-options.js';
import { lineNumberAt, lineRangeText } from './text-lines.js';

/** A failure of the transform, as a tool result (nothing is written). */
function refused(error: ToolhostError): { ok: false; result: ToolResult } {
  return { ok: false, result: errorResult(error) };
}

/** The first syntax error of a tree: its 1-based line, or undefined when the tree has none. */
function firstErrorLine(root: Node): number | undefined {
  if (!root.hasError) return undefined;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.isError || node.isMissing) return node.startPosition.row + 1;
    for (let index = node.childCount - 1; index >= 0; index--) {
      const child = node.child(index);
      if (child?.hasError || child?.isMissing) stack.push(child);
    }
  }
  return root.startPosition.row + 1;
}

function isBreak(code: number): boolean {
  return code === 10 || code === 13;
}

/** Index of the start of the line holding `index`. */
function lineStart(text: string, index: number): number {
  let at = index;
  while (at > 0 && !isBreak(text.charCodeAt(at - 1))) at--;
  return at;
}

/** Index just after the line break that ends the line holding `index` (or the text's end). */
function nextLineStart(text: string, index: number): number {
  let at = index;
  while (at < text.length && !isBreak(text.charCodeAt(at))) at++;
  if (at < text.length) at += text.charCodeAt(at) === 13 && text.charCodeAt(at + 1) === 10 ? 2 : 1;
  return at;
}

/** Whether the line starting at `start` holds only spaces and tabs. */
function blankLineAt(text: string, start: number): boolean {
  if (start >= text.length) return false;
  for (let at = start; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (isBreak(code)) return true;
    if (code !== 32 && code !== 9) return false;
  }
  return true;
}

const TRAILING_COMMENT: Readonly<Record<'hash' | 'slash', RegExp>> = {
  hash: /^[ \t]*(?:#.*)?$/,
  slash: /^[ \t]*(?:\/\/.*|\/\*.*\*\/[ \t]*)?$/,
};

/** Blank lines directly after the line break at `index` (the lines starting there). */
function blankLinesAfter(text: string, index: number): number[] {
  const starts: number[] = [];
  for (let at = index; blankLineAt(text, at); at = nextLineStart(text, at)) starts.push(at);
  return starts;
}

/** Blank lines directly before the line starting at `index`, nearest first (their starts). */
function blankLinesBefore(text: string, index: number): number[] {
  const starts: number[] = [];
  for (let at = index; at > 0; ) {
    const previous = lineStart(text, at - 1);
    if (!blankLineAt(text, previous)) break;
    starts.push(previous);
    at = previous;
  }
  return starts;
}

/**
 * The text to remove for a definition: its span widened to whole lines when nothing else shares
 * them (a trailing comment on its last line goes with it), and the blank lines around it reduced to
 * what separated it from its neighbours (two blank lines before and after a Python function leave
 * two, not four; none after an opening brace or colon; none at the start or end of the file).
 */
export function deletionRange(
  text: string,
  symbol: Pick<SymbolSpan, 'start' | 'end'>,
  language: CodeLanguage,
): { from: number; to: number } {
  let from = symbol.start;
  let to = symbol.end;
  const startOfLine = lineStart(text, from);
  const wholeStart = /^[ \t]*$/.test(text.slice(startOfLine, from));
  const endOfLine = nextLineStart(text, to);
  const rest = text.slice(to, endOfLine).replace(/\r?\n$|\r$/, '');
  const wholeEnd = TRAILING_COMMENT[language === 'python' ? 'hash' : 'slash'].test(rest);
  if (!wholeStart || !wholeEnd) return { from, to };
  from = startOfLine;
  to = endOfLine;
  const after = blankLinesAfter(text, to);
  const before = blankLinesBefore(text, from);
  const atStart = (before.length > 0 ? (before.at(-1) as number) : from) === 0;
  const afterEnd = after.length > 0 ? nextLineStart(text, after.at(-1) as number) : to;
  if (afterEnd >= text.length) {
    // Nothing follows: the blank lines before it would end the file.
    if (before.length > 0) from = before.at(-1) as number;
    to = afterEnd;
  } else if (atStart) {
    from = 0;
    to = afterEnd;
  } else if (before.length === 0) {
    const previousLine = text.slice(lineStart(text, from - 1), from).trimEnd();
    if (/[{([:]$/.test(previousLine)) to = afterEnd;
  } else {
    const keep = Math.max(before.length, after.length);
    const drop = before.length + after.length - keep;
    if (drop > 0) to = drop >= after.length ? afterEnd : (after[drop] as number);
  }
  return { from, to };
}

/**
 * Python accepts no empty block, but tree-sitter's Python grammar does (for error recovery): the
 * first line of a block without a statement, or undefined.
 */
function emptyPythonBlockLine(root: Node): number | undefined {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.type === 'block') {
      let statements = 0;
      for (let index = 0; index < node.namedChildCount; index++)
        if (node.namedChild(index)?.type !== 'comment') statements++;
      if (statements === 0) return node.startPosition.row + 1;
    }
    for (let index = node.namedChildCount - 1; index >= 0; index--) {
      const child = node.namedChild(index);
      if (child) stack.push(child);
    }
  }
  return undefined;
}

function describe(symbol: SymbolSpan): string {
  return `${symbol.kind} ${qualifiedName(symbol)} (${lineRangeText(symbol.startLine, symbol.endLine)})`;
}

/** The body of `delete_symbol` (loaded on its first call, see delete-symbol.ts). */
export function createDeleteSymbolExecutor(
  options: ResolvedFileToolsOptions,
): (args: DeleteSymbolArguments, context: ToolCallContext) => Promise<ToolResult> {
  const { limits } = options;
  return async (args: DeleteSymbolArguments, context: ToolCallContext): Promise<ToolResult> => {
    const target = resolveFilePath(options.pathPolicy, args.path, 'write', 'path', context.resolvedPaths);
    if (!target.ok) return errorResult(target.error);
    const { displayPath } = target.value;
    const language = languageOfPath(target.value.path);
    if (!language)
      return errorResult(
        new ToolhostError({
          code: 'FILE_UNSUPPORTED',
          message: `${JSON.stringify(displayPath)} is not a source file delete_symbol parses (${Object.keys(CODE_EXTENSIONS).join(' ')})`,
          recovery: 'use delete_range or edit_file for this file',
        }),
      );
    let parser: Parser;
    try {
      parser = await loadCodeParser(language);
    } catch (error) {
      return errorResult(
        new ToolhostError({
          code: 'EXECUTION_ERROR',
          message: `the ${language} grammar could not be loaded`,
          recovery: 'use delete_range instead',
          cause: error,
        }),
      );
    }
    const query = parseSymbolQuery(args.symbol);
    const wanted = args.kind ? kindsOf(args.kind) : undefined;
    const outcome = await mutateTextFile(
      options,
      options.observationsFor(context),
      target.value,
      ({ decoded }) => {
        const text = decoded.text;
        const tree = parseCode(parser, text);
        if (!tree)
          return refused(new ToolhostError({ code: 'EXECUTION_ERROR', message: 'the parser gave up' }));
        let symbols: SymbolSpan[];
        try {
          const broken = firstErrorLine(tree.rootNode);
          if (broken !== undefined)
            return refused(
              new ToolhostError({
                code: 'EDIT_INVALID',
                message: `${displayPath} does not parse as ${language} now (first syntax error at line ${broken}), so a deletion cannot be proven to leave it parsing`,
                recovery: 'fix the syntax error first, or delete the lines with delete_range',
                details: { path: displayPath, errorLine: broken },
              }),
            );
          symbols = extractSymbols(language, tree.rootNode, text);
        } finally {
          tree.delete();
        }
        const ofKind = wanted ? symbols.filter((symbol) => wanted.has(symbol.kind)) : symbols;
        const matches = ofKind.filter((symbol) => namesSymbol(symbol, query));
        if (matches.length === 0) {
          const candidates = new Set<string>();
          for (const symbol of ofKind) {
            candidates.add(symbol.name);
            candidates.add(qualifiedName(symbol));
          }
          const close = closeNames(
            query.container ? `${query.container}.${query.name}` : query.name,
            candidates,
            5,
          );
          return refused(
            new ToolhostError({
              code: 'SYMBOL_NOT_FOUND',
              message: `no definition named that${args.kind ? ` of kind ${args.kind}` : ''} in ${displayPath} (${ofKind.length} definitions)${close.length > 0 ? `; close names: ${close.join(', ')}` : ''}`,
              details: { path: displayPath, closeNames: close },
            }),
          );
        }
        if (matches.length > 1)
          return refused(
            new ToolhostError({
              code: 'SYMBOL_AMBIGUOUS',
              message: `${matches.length} definitions in ${displayPath} match: ${matches.slice(0, 10).map(describe).join('; ')}${matches.length > 10 ? '; ...' : ''}`,
              details: {
                path: displayPath,
                candidates: matches.slice(0, 20).map((symbol) => ({
                  name: qualifiedName(symbol),
                  kind: symbol.kind,
                  startLine: symbol.startLine,
                  endLine: symbol.endLine,
                })),
              },
            }),
          );
        const symbol = matches[0] as SymbolSpan;
        if (symbol.sharedWith)
          return refused(
            new ToolhostError({
              code: 'EDIT_INVALID',
              message: `${describe(symbol)} is declared in one declaration together with ${symbol.sharedWith.join(', ')}; deleting the declaration would delete them too`,
              recovery: 'split the declaration with edit_file first, or edit it with edit_file',
              details: { path: displayPath, sharedWith: symbol.sharedWith },
            }),
          );
        const { from, to } = deletionRange(text, symbol, language);
        const after = text.slice(0, from) + text.slice(to);
        const check = parseCode(parser, after);
        let broken: number | undefined = 1;
        if (check) {
          broken = firstErrorLine(check.rootNode);
          if (broken === undefined && language === 'python') broken = emptyPythonBlockLine(check.rootNode);
          check.delete();
        }
        if (broken !== undefined)
          return refused(
            new ToolhostError({
              code: 'EDIT_INVALID',
              message: `deleting ${describe(symbol)} would leave ${displayPath} not parsing (syntax error at line ${broken}); nothing was written`,
              recovery:
                'the definition is probably the only member of its block; edit the surrounding code with edit_file instead',
              details: { path: displayPath, errorLine: broken },
            }),
          );
        return {
          ok: true,
          text: after,
          report: { symbol, from, to, withDoc: lineNumberAt(text, symbol.start) < symbol.startLine },
          span: { prefixLength: from, suffixLength: text.length - to },
        };
      },
    );
    if (!outcome.ok) return outcome.result;
    const { symbol, from, to, withDoc } = outcome.report;
    const before = outcome.source.decoded.text;
    const diff = formatUnifiedDiff({
      oldText: before,
      newText: before.slice(0, from) + before.slice(to),
      prefixLength: from,
      suffixLength: before.length - to,
      displayPath,
      maxLines: limits.maxDiffLines,
      maxBytes: limits.maxDiffBytes,
    });
    const firstLine = lineNumberAt(before, from);
    const lastLine = lineNumberAt(before, Math.max(from, to - 1));
    return textResult(
      `deleted ${describe(symbol)}${withDoc ? ' with its doc comment' : ''} from ${displayPath}: ${lineRangeText(firstLine, lastLine)} removed\n${diff.text}`,
      {
        path: displayPath,
        symbol: qualifiedName(symbol),
        kind: symbol.kind,
        startLine: symbol.startLine,
        endLine: symbol.endLine,
        firstLine,
        lastLine,
        deletedLines: lastLine - firstLine + 1,
      },
    );
  };
}
