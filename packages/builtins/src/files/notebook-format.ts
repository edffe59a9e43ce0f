import { randomBytes } from 'node:crypto';
import { isJsonObject, type JsonObject } from '@toolhost/contracts';

// Jupyter notebooks (nbformat 4): what notebook_edit and read_file need to know about them. The
// structure check is deliberately the part of the nbformat 4 schema an edit can break (cells and
// their required keys); the rest of the file is never rewritten, so it stays as valid as it was.

/** The cell types of nbformat 4. */
export type NotebookCellType = 'code' | 'markdown' | 'raw';

/** A parsed notebook, as JSON.parse gave it (key order kept). */
export interface ParsedNotebook {
  readonly value: JsonObject;
  readonly cells: readonly JsonObject[];
  readonly nbformat: number;
  readonly minor: number;
}

/** Whether nbformat `major.minor` gives cells ids (4.5 and later). */
export function notebookHasCellIds(notebook: Pick<ParsedNotebook, 'nbformat' | 'minor'>): boolean {
  return notebook.nbformat > 4 || (notebook.nbformat === 4 && notebook.minor >= 5);
}

const CELL_TYPES: ReadonlySet<string> = new Set(['code', 'markdown', 'raw']);

/**
 * Parses and checks a notebook's text. Returns the reason (never quoting the file) when it is not
 * JSON, not nbformat 4, or has a malformed cell.
 */
export function parseNotebook(
  text: string,
): { ok: true; value: ParsedNotebook } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message can quote the file; say only what is wrong.
    return { ok: false, problem: 'it is not valid JSON' };
  }
  if (!isJsonObject(value)) return { ok: false, problem: 'its JSON is not an object' };
  const { nbformat, nbformat_minor: minor, cells } = value;
  if (typeof nbformat !== 'number' || !Number.isInteger(nbformat))
    return { ok: false, problem: 'it has no integer nbformat' };
  if (nbformat !== 4)
    return {
      ok: false,
      problem: `it is nbformat ${nbformat}; only nbformat 4 is edited (convert it with "jupyter nbconvert --to notebook")`,
    };
  if (typeof minor !== 'number' || !Number.isInteger(minor) || minor < 0)
    return { ok: false, problem: 'it has no integer nbformat_minor' };
  if (!Array.isArray(cells)) return { ok: false, problem: 'it has no cells array' };
  if (!isJsonObject(value.metadata)) return { ok: false, problem: 'it has no metadata object' };
  for (const [index, cell] of cells.entries()) {
    if (!isJsonObject(cell)) return { ok: false, problem: `cell ${index} is not an object` };
    if (typeof cell.cell_type !== 'string' || !CELL_TYPES.has(cell.cell_type))
      return { ok: false, problem: `cell ${index} has no cell_type code, markdown or raw` };
    if (!isMultilineString(cell.source)) return { ok: false, problem: `cell ${index} has no source` };
    if (!isJsonObject(cell.metadata)) return { ok: false, problem: `cell ${index} has no metadata object` };
    if (cell.cell_type === 'code' && !Array.isArray(cell.outputs))
      return { ok: false, problem: `code cell ${index} has no outputs array` };
  }
  return { ok: true, value: { value, cells: cells as JsonObject[], nbformat, minor } };
}

/** nbformat's "multiline_string": a string or an array of strings. */
function isMultilineString(value: unknown): value is string | string[] {
  return (
    typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))
  );
}

/** A cell's source as one string. */
export function sourceText(source: unknown): string {
  if (typeof source === 'string') return source;
  if (Array.isArray(source)) return source.filter((item) => typeof item === 'string').join('');
  return '';
}

/** A source in nbformat's list form: lines that keep their line breaks (`splitlines(keepends=True)`). */
export function sourceLines(text: string): string[] {
  if (text === '') return [];
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A new cell id: 8 characters of [a-z0-9], unique in the notebook (nbformat's own ids are uuid4 prefixes). */
export function newCellId(taken: ReadonlySet<string>): string {
  for (;;) {
    const id = randomBytes(6)
      .toString('base64url')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 8);
    if (id.length === 8 && !taken.has(id)) return id;
  }
}

/** How a notebook file is laid out, so an edit writes new parts the same way. */
export interface NotebookLayout {
  /** `undefined`: the file is on one line (edits keep it so). */
  readonly indent: { readonly insertSpaces: boolean; readonly tabSize: number } | undefined;
  readonly eol: '\n' | '\r\n';
}

/** Detects a notebook file's indentation (from its first indented line) and line ending. */
export function notebookLayout(text: string): NotebookLayout {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const match = /\r?\n([ \t]+)\S/.exec(text);
  if (!match) return { indent: undefined, eol };
  const whitespace = match[1] as string;
  if (whitespace.startsWith('\t')) return { indent: { insertSpaces: false, tabSize: 1 }, eol };
  return { indent: { insertSpaces: true, tabSize: whitespace.length }, eol };
}

const OUTPUT_TEXT_CHARS = 300;
const OUTPUT_LINES = 4;
const OUTPUTS_SHOWN = 5;
const SOURCE_LINES_SHOWN = 400;

function clip(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  let shown = lines.slice(0, OUTPUT_LINES).join('\n');
  if (shown.length > OUTPUT_TEXT_CHARS) shown = `${shown.slice(0, OUTPUT_TEXT_CHARS)}…`;
  else if (lines.length > OUTPUT_LINES) shown += `\n… (${lines.length - OUTPUT_LINES} more lines)`;
  return shown;
}

/** A bounded one-block summary of one output. */
function describeOutput(output: unknown): string {
  if (!isJsonObject(output)) return '(malformed output)';
  const type = typeof output.output_type === 'string' ? output.output_type : 'unknown';
  if (type === 'stream') {
    const name = typeof output.name === 'string' ? output.name : 'stream';
    return `${name}: ${clip(sourceText(output.text))}`;
  }
  if (type === 'error') {
    const ename = typeof output.ename === 'string' ? output.ename : 'Error';
    const evalue = typeof output.evalue === 'string' ? output.evalue : '';
    return `error ${ename}: ${clip(evalue)}`;
  }
  if (type === 'execute_result' || type === 'display_data') {
    const data = isJsonObject(output.data) ? output.data : {};
    const kinds = Object.keys(data);
    const plain = data['text/plain'];
    const others = kinds.filter((kind) => kind !== 'text/plain');
    const rest =
      others.length > 0
        ? ` [${others
            .map(
              (kind) =>
                `${kind}${typeof data[kind] === 'string' ? ` ${Buffer.byteLength(data[kind] as string)} bytes` : ''}`,
            )
            .join(', ')}]`
        : '';
    return `${type}${rest}${plain === undefined ? '' : `: ${clip(sourceText(plain))}`}`;
  }
  return type;
}

/**
 * The notebook as read_file shows it: a header, then every cell with its number, type, id and
 * execution count, its source, and a bounded summary of its outputs (at most five, each cut to a
 * few lines; images and other rich data only by type and size).
 */
export function renderNotebook(notebook: ParsedNotebook, displayPath: string): string[] {
  const metadata = notebook.value.metadata as JsonObject;
  const kernel = isJsonObject(metadata.kernelspec) ? metadata.kernelspec : undefined;
  const languageInfo = isJsonObject(metadata.language_info) ? metadata.language_info : undefined;
  const language =
    typeof languageInfo?.name === 'string'
      ? languageInfo.name
      : typeof kernel?.language === 'string'
        ? kernel.language
        : undefined;
  const kernelName = typeof kernel?.name === 'string' ? kernel.name : undefined;
  const lines = [
    `[Jupyter notebook ${displayPath}: nbformat ${notebook.nbformat}.${notebook.minor}, ${notebook.cells.length} cell${notebook.cells.length === 1 ? '' : 's'}${kernelName ? `, kernel ${kernelName}` : ''}${language ? ` (${language})` : ''}. Edit cells with notebook_edit by cell_number or cell_id, not with edit_file.]`,
  ];
  for (const [index, cell] of notebook.cells.entries()) {
    const type = String(cell.cell_type);
    const id = typeof cell.id === 'string' ? ` id=${cell.id}` : '';
    const count =
      type === 'code'
        ? ` execution_count=${typeof cell.execution_count === 'number' ? cell.execution_count : 'none'}`
        : '';
    lines.push(`--- cell ${index} (${type}${id}${count}) ---`);
    const source = sourceText(cell.source).replace(/\r\n?/g, '\n').split('\n');
    if (source.length === 1 && source[0] === '') lines.push('(empty)');
    else {
      lines.push(...source.slice(0, SOURCE_LINES_SHOWN));
      if (source.length > SOURCE_LINES_SHOWN)
        lines.push(`… (${source.length - SOURCE_LINES_SHOWN} more source lines)`);
    }
    if (type === 'code' && Array.isArray(cell.outputs) && cell.outputs.length > 0) {
      const outputs = cell.outputs;
      lines.push(`[outputs: ${outputs.length}]`);
      for (const output of outputs.slice(0, OUTPUTS_SHOWN))
        for (const [at, line] of describeOutput(output).split('\n').entries())
          lines.push(`${at === 0 ? '> ' : '  '}${line}`);
      if (outputs.length > OUTPUTS_SHOWN) lines.push(`> … ${outputs.length - OUTPUTS_SHOWN} more outputs`);
    }
  }
  return lines;
}
