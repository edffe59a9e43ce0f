import { canonicalSchemaJson, isJsonObject } from '@toolhost/contracts';
import { DIALECT_NAMES } from '@toolhost/provider-dialects';
import type { ContractSource } from './contract-source.js';
import { type ContractTool, contractTools, oneLine } from './contract-tools.js';
import { findRegion, GEN_COMMAND } from './regions.js';
import {
  currentTranslation,
  DOCUMENTS,
  type DocumentSpec,
  descriptionCell,
  renderDialectSnapshot,
  renderRegions,
  snapshotFile,
} from './render.js';
import { ERROR_CODES_ZH, TOOL_DESCRIPTIONS_ZH } from './translations.zh-CN.js';

/** Which rule a problem breaks. */
export type ContractDocCheck =
  | 'document'
  | 'links'
  | 'region'
  | 'tool-row'
  | 'read-only'
  | 'description'
  | 'schema'
  | 'fingerprint'
  | 'error-codes'
  | 'languages'
  | 'translation'
  | 'snapshot';

/** One way the documents disagree with the code, and what to do about it. */
export interface ContractDocProblem {
  readonly check: ContractDocCheck;
  /** The file concerned, relative to `docs/` (a document, a snapshot, or a source file). */
  readonly file: string;
  /** What is wrong and the exact remedy (usually: run `pnpm --filter @toolhost/docs gen`). */
  readonly message: string;
}

/** Input of {@link checkContractDocs}. */
export interface CheckContractDocsInput {
  /** The contract as the code defines it (the registry of a real host, or a modified copy in tests). */
  readonly source: ContractSource;
  /** Document texts keyed by file name relative to `docs/` (`TOOL_CONTRACT.md` ...); missing = `undefined`. */
  readonly documents: Readonly<Record<string, string | undefined>>;
  /** Committed snapshot texts keyed by dialect name; missing = `undefined`. */
  readonly snapshots: Readonly<Record<string, string | undefined>>;
}

const REGENERATE = `Run \`${GEN_COMMAND}\` and commit docs/.`;
const REGENERATE_IF_DELIBERATE = `If the change is deliberate, run \`${GEN_COMMAND}\` and commit docs/.`;
const FIX_IN_CODE = `Fix it in the tool's package (the documentation cannot), then run \`${GEN_COMMAND}\`.`;
/** The command that re-runs this check. */
export const TEST_COMMAND = 'pnpm --filter @toolhost/docs test';
const TRANSLATIONS_FILE = 'src/translations.zh-CN.ts';

/** A parsed tool-table row. */
interface ToolRow {
  readonly name: string;
  readonly flag: string;
  readonly description: string;
}

/** A parsed error-code row. */
interface ErrorRow {
  readonly code: string;
  readonly kind: string;
}

/** The rows of a tool table: `| \`name\` | flag | description |`. */
function parseToolRows(text: string): ToolRow[] {
  const rows: ToolRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\| `([^`]+)` \| ([^|]*?) \| (.*) \|$/.exec(line);
    if (match) rows.push({ name: match[1]!, flag: match[2]!, description: match[3]! });
  }
  return rows;
}

/** The rows of an error-code table: `| \`CODE\` | \`kind\` | ... |`. */
function parseErrorRows(text: string): ErrorRow[] {
  const rows: ErrorRow[] = [];
  for (const line of text.split('\n')) {
    const match = /^\| `([A-Z][A-Z0-9_]*)` \| `([a-z_]+)` \|/.exec(line);
    if (match) rows.push({ code: match[1]!, kind: match[2]! });
  }
  return rows;
}

/** The rows of a fingerprint table: `| \`name\` | \`fp16\` | ... |`. */
function parseFingerprintRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\| `([^`]+)` \| `([0-9a-f]{16})` \|/.exec(line);
    if (match) rows.set(match[1]!, match[2]!);
  }
  return rows;
}

function firstDifferentLine(expected: string, actual: string): string {
  const expectedLines = expected.split('\n');
  const actualLines = actual.split('\n');
  const length = Math.max(expectedLines.length, actualLines.length);
  for (let index = 0; index < length; index++) {
    if (expectedLines[index] !== actualLines[index]) {
      const cut = (line: string | undefined) =>
        line === undefined
          ? '(nothing)'
          : JSON.stringify(line.length > 160 ? `${line.slice(0, 157)}...` : line);
      return `line ${index + 1} of the region: expected ${cut(expectedLines[index])}, found ${cut(actualLines[index])}`;
    }
  }
  return 'whitespace only';
}

/**
 * Checks the contract documents and the committed dialect snapshots against the code. Pure: it reads
 * nothing itself, so tests can hand it mutated copies of documents or registries. Returns every
 * problem found (an empty list means the documentation is true), each with the exact remedy.
 *
 * Checks (DOC-1 and DOC-2 of docs/REQUIREMENTS.md among them):
 * - each document exists and links to its other-language twin near the top;
 * - every generated region is present and equal to what the generator renders now;
 * - DOC-1: every built-in (hidden aliases included, `use_capability` too) has a row
 *   "| `name` | true|false |" whose flag equals `annotations.readOnly === true`, its description is
 *   non-empty and the row's description matches it; no row names a tool that does not exist;
 * - DOC-2: every schema the registry holds parses as JSON, is an object schema with
 *   `properties`, is the canonical form of the definition's schema, and canonicalising it again gives
 *   the same bytes; the documented fingerprint is the schema's;
 * - the error-code table has exactly one row per code of the closed set;
 * - the English and Chinese tables list the same tools with the same flags and the same codes with
 *   the same kinds, and every Chinese text translates the current English one;
 * - the committed `snapshots/<dialect>.json` equal what each dialect compiles now.
 */
export function checkContractDocs(input: CheckContractDocsInput): ContractDocProblem[] {
  const { source, documents, snapshots } = input;
  const problems: ContractDocProblem[] = [];
  const rows = contractTools(source.registry);
  const codes = Object.keys(source.errorCodes);
  const rendered = { en: renderRegions(source, 'en'), 'zh-CN': renderRegions(source, 'zh-CN') };

  problems.push(...checkRegistry(rows));

  const parsedTools = new Map<string, ToolRow[]>();
  const parsedErrors = new Map<string, ErrorRow[]>();
  for (const spec of DOCUMENTS) {
    const text = documents[spec.file];
    if (text === undefined) {
      problems.push({
        check: 'document',
        file: spec.file,
        message: `docs/${spec.file} is missing. Restore it from git (\`git checkout -- docs/${spec.file}\`), then run \`${GEN_COMMAND}\`.`,
      });
      continue;
    }
    problems.push(...checkLinks(spec, text));
    const regions = new Map<string, string>();
    for (const region of spec.regions) {
      let location: ReturnType<typeof findRegion>;
      try {
        location = findRegion(text, region);
      } catch (error) {
        problems.push({
          check: 'region',
          file: spec.file,
          message: `docs/${spec.file}: ${(error as Error).message}; keep one BEGIN/END marker pair per region, then run \`${GEN_COMMAND}\`.`,
        });
        continue;
      }
      if (!location) {
        problems.push({
          check: 'region',
          file: spec.file,
          message: `docs/${spec.file} has lost the markers of the generated region "${region}". Put back its BEGIN GENERATED / END GENERATED comment lines (see the other-language twin), then run \`${GEN_COMMAND}\`.`,
        });
        continue;
      }
      regions.set(region, location.body);
      const expected = `${rendered[spec.language][region]!.replace(/\n+$/, '')}\n`;
      if (location.body !== expected) {
        problems.push({
          check: 'region',
          file: spec.file,
          message: `docs/${spec.file}: the generated region "${region}" is out of date (${firstDifferentLine(expected, location.body)}). ${REGENERATE}`,
        });
      }
    }
    if (regions.has('tool-table')) {
      const table = regions.get('tool-table')!;
      const tableRows = parseToolRows(table);
      parsedTools.set(spec.file, tableRows);
      problems.push(...checkToolTable(spec, tableRows, rows));
    }
    if (regions.has('schema-fingerprints')) {
      problems.push(
        ...checkFingerprints(spec, parseFingerprintRows(regions.get('schema-fingerprints')!), rows),
      );
    }
    if (regions.has('error-codes')) {
      const errorRows = parseErrorRows(regions.get('error-codes')!);
      parsedErrors.set(spec.file, errorRows);
      problems.push(...checkErrorTable(spec, errorRows, codes, source));
    }
  }

  problems.push(...checkLanguages(parsedTools, parsedErrors));
  problems.push(...checkTranslations(rows, source));
  problems.push(...checkSnapshots(source, snapshots));
  return problems;
}

/** DOC-2 (and the non-empty descriptions of DOC-1): facts of the registry itself. */
function checkRegistry(rows: readonly ContractTool[]): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  for (const row of rows) {
    if (row.kind === 'alias') continue;
    const where = `the built-in \`${row.name}\` (source: ${row.tool.definition.source}, group: ${row.tool.definition.group})`;
    if (row.description === '') {
      problems.push({
        check: 'description',
        file: 'registry',
        message: `${where} has an empty description; write one in its definition (modelTool.description), then run \`${GEN_COMMAND}\`.`,
      });
    }
    const bytes = row.tool.canonicalSchemaJson;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes);
    } catch (error) {
      problems.push({
        check: 'schema',
        file: 'registry',
        message: `${where}: its schema does not parse as JSON (${(error as Error).message}). ${FIX_IN_CODE}`,
      });
      continue;
    }
    if (!isJsonObject(parsed) || parsed.type !== 'object' || !isJsonObject(parsed.properties)) {
      problems.push({
        check: 'schema',
        file: 'registry',
        message: `${where}: its schema is not an object schema with "properties". ${FIX_IN_CODE}`,
      });
      continue;
    }
    if (canonicalSchemaJson(parsed) !== bytes) {
      problems.push({
        check: 'schema',
        file: 'registry',
        message: `${where}: its schema is not canonical (canonicalising it again changes the bytes): tools must be registered through createToolRegistry, which canonicalises once. ${FIX_IN_CODE}`,
      });
    }
    let definitionBytes: string | undefined;
    try {
      definitionBytes = canonicalSchemaJson(row.tool.definition.modelTool.inputSchema);
    } catch (error) {
      problems.push({
        check: 'schema',
        file: 'registry',
        message: `${where}: the definition's input schema cannot be canonicalised (${(error as Error).message}). ${FIX_IN_CODE}`,
      });
    }
    if (definitionBytes !== undefined && definitionBytes !== bytes) {
      problems.push({
        check: 'schema',
        file: 'registry',
        message: `${where}: the registered schema bytes are not the canonical form of the definition's input schema (the registry must hold canonicalizeSchema(modelTool.inputSchema)). ${FIX_IN_CODE}`,
      });
    }
  }
  return problems;
}

function checkLinks(spec: DocumentSpec, text: string): ContractDocProblem[] {
  const head = text.split('\n').slice(0, 12).join('\n');
  if (head.includes(`(${spec.counterpart})`) || head.includes(`"./${spec.counterpart}"`)) return [];
  return [
    {
      check: 'links',
      file: spec.file,
      message: `docs/${spec.file} must link to its twin ${spec.counterpart} within its first 12 lines; add the link (for example [${spec.language === 'en' ? '简体中文' : 'English'}](${spec.counterpart})), then run \`${TEST_COMMAND}\`.`,
    },
  ];
}

/** DOC-1: a row per documented tool with the right flag and description; no stray rows. */
function checkToolTable(
  spec: DocumentSpec,
  tableRows: readonly ToolRow[],
  rows: readonly ContractTool[],
): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  const byName = new Map<string, ToolRow[]>();
  for (const row of tableRows) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  for (const tool of rows) {
    const what = tool.kind === 'listed' ? 'built-in' : 'hidden alias';
    const found = byName.get(tool.name) ?? [];
    if (found.length === 0) {
      problems.push({
        check: 'tool-row',
        file: spec.file,
        message: `docs/${spec.file} has no row "| \`${tool.name}\` | ${tool.readOnly} |" for the ${what} \`${tool.name}\`. ${REGENERATE}`,
      });
      continue;
    }
    if (found.length > 1) {
      problems.push({
        check: 'tool-row',
        file: spec.file,
        message: `docs/${spec.file} has ${found.length} rows for \`${tool.name}\`; there must be one. ${REGENERATE}`,
      });
    }
    const row = found[0]!;
    if (row.flag !== String(tool.readOnly)) {
      problems.push({
        check: 'read-only',
        file: spec.file,
        message: `docs/${spec.file} says \`${tool.name}\` is read-only = ${row.flag}, but its contract says ${tool.readOnly} (annotations.readOnly === true). ${REGENERATE}`,
      });
    }
    if (row.description !== descriptionCell(tool, spec.language)) {
      problems.push({
        check: 'description',
        file: spec.file,
        message: `docs/${spec.file}: the description of \`${tool.name}\` does not match the tool's description in the registry. ${REGENERATE}`,
      });
    }
  }
  const known = new Set(rows.map((tool) => tool.name));
  for (const row of tableRows) {
    if (!known.has(row.name)) {
      problems.push({
        check: 'tool-row',
        file: spec.file,
        message: `docs/${spec.file} has a row for \`${row.name}\`, which is not a built-in of the registry. ${REGENERATE}`,
      });
    }
  }
  return problems;
}

function checkFingerprints(
  spec: DocumentSpec,
  documented: ReadonlyMap<string, string>,
  rows: readonly ContractTool[],
): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  for (const tool of rows) {
    const fingerprint = documented.get(tool.name);
    if (fingerprint !== undefined && fingerprint !== tool.tool.schemaFingerprint) {
      problems.push({
        check: 'fingerprint',
        file: spec.file,
        message: `docs/${spec.file}: the schema of \`${tool.name}\` changed (documented fingerprint ${fingerprint}, registry ${tool.tool.schemaFingerprint}). ${REGENERATE_IF_DELIBERATE}`,
      });
    }
  }
  return problems;
}

function checkErrorTable(
  spec: DocumentSpec,
  errorRows: readonly ErrorRow[],
  codes: readonly string[],
  source: ContractSource,
): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  const documented = new Map(errorRows.map((row) => [row.code, row]));
  for (const code of codes) {
    const row = documented.get(code);
    if (!row) {
      problems.push({
        check: 'error-codes',
        file: spec.file,
        message: `docs/${spec.file}: the error code \`${code}\` has no row in the error-code table. ${REGENERATE}`,
      });
    } else if (row.kind !== source.errorCodes[code]!.kind) {
      problems.push({
        check: 'error-codes',
        file: spec.file,
        message: `docs/${spec.file}: \`${code}\` is documented as kind ${row.kind}, but ERROR_CODES says ${source.errorCodes[code]!.kind}. ${REGENERATE}`,
      });
    }
  }
  const codeSet = new Set(codes);
  const seen = new Set<string>();
  for (const row of errorRows) {
    if (!codeSet.has(row.code)) {
      problems.push({
        check: 'error-codes',
        file: spec.file,
        message: `docs/${spec.file}: the error-code table lists \`${row.code}\`, which is not in ERROR_CODES. ${REGENERATE}`,
      });
    }
    if (seen.has(row.code)) {
      problems.push({
        check: 'error-codes',
        file: spec.file,
        message: `docs/${spec.file}: the error-code table lists \`${row.code}\` twice. ${REGENERATE}`,
      });
    }
    seen.add(row.code);
  }
  return problems;
}

/** The English and Chinese tables must agree row for row. */
function checkLanguages(
  tools: ReadonlyMap<string, ToolRow[]>,
  errors: ReadonlyMap<string, ErrorRow[]>,
): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  const pairs = DOCUMENTS.filter((spec) => spec.language === 'en').map((spec) => [
    spec.file,
    spec.counterpart,
  ]);
  for (const [english, chinese] of pairs) {
    const compare = <T>(table: ReadonlyMap<string, T[]>, key: (row: T) => string, what: string) => {
      const left = table.get(english!);
      const right = table.get(chinese!);
      if (!left || !right) return;
      const leftKeys = left.map(key);
      const rightKeys = right.map(key);
      const length = Math.max(leftKeys.length, rightKeys.length);
      for (let index = 0; index < length; index++) {
        if (leftKeys[index] !== rightKeys[index]) {
          problems.push({
            check: 'languages',
            file: chinese!,
            message: `the ${what} of docs/${english} and docs/${chinese} disagree at row ${index + 1}: ${leftKeys[index] ?? '(none)'} vs ${rightKeys[index] ?? '(none)'}. ${REGENERATE}`,
          });
          return;
        }
      }
    };
    compare(tools, (row) => `\`${row.name}\` ${row.flag}`, 'tool tables');
    compare(errors, (row) => `\`${row.code}\` ${row.kind}`, 'error-code tables');
  }
  return problems;
}

/** Every Chinese text must translate the current English text. */
function checkTranslations(rows: readonly ContractTool[], source: ContractSource): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  const stale = (what: string, english: string, exists: boolean) => ({
    check: 'translation' as const,
    file: TRANSLATIONS_FILE,
    message: `docs/${TRANSLATIONS_FILE}: ${exists ? 'the Chinese text of' : 'there is no Chinese text for'} ${what}${exists ? ' was written for an older English text' : ''}. Set { en, zh } there with en exactly ${JSON.stringify(oneLine(english))} and zh its Chinese translation, then run \`${GEN_COMMAND}\`.`,
  });
  const documented = new Set<string>();
  for (const row of rows) {
    if (row.kind === 'alias') continue;
    documented.add(row.name);
    const entry = TOOL_DESCRIPTIONS_ZH[row.name];
    if (currentTranslation(entry, row.description) === undefined) {
      problems.push(stale(`TOOL_DESCRIPTIONS_ZH["${row.name}"]`, row.description, entry !== undefined));
    }
  }
  for (const name of Object.keys(TOOL_DESCRIPTIONS_ZH)) {
    if (!documented.has(name)) {
      problems.push({
        check: 'translation',
        file: TRANSLATIONS_FILE,
        message: `docs/${TRANSLATIONS_FILE}: TOOL_DESCRIPTIONS_ZH["${name}"] translates a tool the registry no longer has; remove it, then run \`${GEN_COMMAND}\`.`,
      });
    }
  }
  for (const [code, info] of Object.entries(source.errorCodes)) {
    const entry = ERROR_CODES_ZH[code];
    if (currentTranslation(entry?.summary, info.summary) === undefined) {
      problems.push(stale(`ERROR_CODES_ZH["${code}"].summary`, info.summary, entry !== undefined));
    }
    if (currentTranslation(entry?.recovery, info.recovery) === undefined) {
      problems.push(stale(`ERROR_CODES_ZH["${code}"].recovery`, info.recovery, entry !== undefined));
    }
  }
  for (const code of Object.keys(ERROR_CODES_ZH)) {
    if (!(code in source.errorCodes)) {
      problems.push({
        check: 'translation',
        file: TRANSLATIONS_FILE,
        message: `docs/${TRANSLATIONS_FILE}: ERROR_CODES_ZH["${code}"] translates a code ERROR_CODES no longer has; remove it, then run \`${GEN_COMMAND}\`.`,
      });
    }
  }
  return problems;
}

/** Objects with a string `name` inside a compiled tool list (function tools and Gemini's declarations). */
function namedEntries(value: unknown, out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) for (const item of value) namedEntries(item, out);
  else if (isJsonObject(value)) {
    if (typeof value.name === 'string' && 'description' in value) out.set(value.name, JSON.stringify(value));
    else for (const child of Object.values(value)) namedEntries(child, out);
  }
  return out;
}

function describeSnapshotDifference(expected: string, committed: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(committed);
  } catch {
    return 'the committed file is not valid JSON';
  }
  const want = namedEntries((JSON.parse(expected) as { tools: unknown }).tools);
  const have = namedEntries(isJsonObject(parsed) ? parsed.tools : undefined);
  const changed: string[] = [];
  for (const [name, json] of want) {
    if (!have.has(name)) changed.push(`${name} (missing)`);
    else if (have.get(name) !== json) changed.push(`${name} (changed)`);
  }
  for (const name of have.keys()) if (!want.has(name)) changed.push(`${name} (no longer a built-in)`);
  if (changed.length > 0) return `tools: ${changed.join(', ')}`;
  return 'the order, the report or the header changed';
}

/** The committed per-dialect snapshots must equal what the dialects compile now. */
function checkSnapshots(
  source: ContractSource,
  snapshots: Readonly<Record<string, string | undefined>>,
): ContractDocProblem[] {
  const problems: ContractDocProblem[] = [];
  for (const dialect of DIALECT_NAMES) {
    const file = snapshotFile(dialect);
    const expected = renderDialectSnapshot(source, dialect);
    const committed = snapshots[dialect];
    if (committed === undefined) {
      problems.push({
        check: 'snapshot',
        file,
        message: `docs/${file} is missing. ${REGENERATE}`,
      });
    } else if (committed !== expected) {
      problems.push({
        check: 'snapshot',
        file,
        message: `docs/${file} differs from what the ${dialect} dialect compiles now (${describeSnapshotDifference(expected, committed)}). ${REGENERATE_IF_DELIBERATE}`,
      });
    }
  }
  return problems;
}

/** A report of problems for a test failure or the console, ending with the commands to run. */
export function formatProblems(problems: readonly ContractDocProblem[]): string {
  if (problems.length === 0) return 'The contract documentation matches the code.';
  const lines = [
    `The contract documentation does not match the code (${problems.length} problem${problems.length === 1 ? '' : 's'}):`,
    ...problems.map((problem) => `- [${problem.check}] ${problem.message}`),
    '',
    `To fix: \`${GEN_COMMAND}\` regenerates every table and snapshot from the registry; translations go in docs/${TRANSLATIONS_FILE}; schema problems are fixed in the tool's package. Then \`${TEST_COMMAND}\`.`,
  ];
  return lines.join('\n');
}
