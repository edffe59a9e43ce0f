// The contract-documentation test (DOC-1 and DOC-2 in ../REQUIREMENTS.md): the committed documents and
// dialect snapshots must be what the registry of a real host renders, and every way of letting them
// drift (a removed row, a flipped flag, a changed schema, a changed description, a new error code, an
// edited snapshot, a missing translation) must fail with a message that says what to run. The
// mutation tests below prove each of those on copies of the documents and of the registry.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type AnyToolDefinition,
  canonicalSchemaJson,
  createToolRegistry,
  ERROR_CODES,
  type RegisteredTool,
  type ToolRegistry,
  toModelTools,
} from '@toolhost/contracts';
import { createHost } from '@toolhost/boot';
import { DIALECT_NAMES, getDialect } from '@toolhost/provider-dialects';
import {
  type CheckContractDocsInput,
  type ContractDocCheck,
  type ContractDocProblem,
  checkContractDocs,
  formatProblems,
  TEST_COMMAND,
} from '../src/check-contract-docs.js';
import { type ContractSource, loadContractSource } from '../src/contract-source.js';
import { contractTools } from '../src/contract-tools.js';
import {
  type ContractDocFiles,
  DOCS_DIR,
  readContractDocFiles,
  writeContractDocFiles,
} from '../src/docs-files.js';
import { findRegion, GEN_COMMAND, replaceRegions } from '../src/regions.js';
import { DOCUMENTS, renderDialectSnapshots, renderDocument } from '../src/render.js';

let source: ContractSource;
let files: ContractDocFiles;

before(async () => {
  source = await loadContractSource();
  files = readContractDocFiles();
});

const EN = 'TOOL_CONTRACT.md';
const ZH = 'TOOL_CONTRACT.zh-CN.md';

/** The committed documents with one of them replaced. */
function withDocument(file: string, change: (text: string) => string): CheckContractDocsInput {
  const text = files.documents[file];
  assert.ok(text, `docs/${file} exists`);
  const changed = change(text);
  assert.notEqual(changed, text, 'the mutation changed the document');
  return { source, documents: { ...files.documents, [file]: changed }, snapshots: files.snapshots };
}

/** A copy of the real registry with definitions changed, dropped (`undefined`) or added. */
function copyRegistry(
  change: (definition: AnyToolDefinition) => AnyToolDefinition | undefined,
  extra: readonly AnyToolDefinition[] = [],
): ToolRegistry {
  const copy = createToolRegistry();
  for (const tool of source.registry.list({ visibility: 'all' })) {
    const definition = change(tool.definition);
    if (definition) copy.register(definition);
  }
  for (const definition of extra) copy.register(definition);
  return copy;
}

function withRegistry(registry: Pick<ToolRegistry, 'list'>): CheckContractDocsInput {
  return { source: { ...source, registry }, documents: files.documents, snapshots: files.snapshots };
}

function only(problems: readonly ContractDocProblem[], ...checks: ContractDocCheck[]): ContractDocProblem[] {
  return problems.filter((problem) => checks.includes(problem.check));
}

/** Asserts at least one problem of the check mentions every fragment, and every doc-drift message names the command. */
function assertProblem(
  problems: readonly ContractDocProblem[],
  check: ContractDocCheck,
  ...fragments: string[]
): void {
  const found = problems.filter(
    (problem) => problem.check === check && fragments.every((fragment) => problem.message.includes(fragment)),
  );
  assert.ok(
    found.length > 0,
    `expected a "${check}" problem mentioning ${fragments.join(', ')}; got:\n${formatProblems(problems)}`,
  );
  // Every problem says exactly what to run.
  for (const problem of found) {
    assert.ok(
      problem.message.includes(`\`${GEN_COMMAND}\``) || problem.message.includes(`\`${TEST_COMMAND}\``),
      `the message names the command to run: ${problem.message}`,
    );
  }
}

function readOnlyFlag(name: string): boolean {
  const tool = source.registry.list({ visibility: 'all' }).find((candidate) => candidate.name === name);
  assert.ok(tool, `the registry has ${name}`);
  return tool.definition.annotations.readOnly === true;
}

describe('checkContractDocs', () => {
  it('finds the committed documents and snapshots true to the registry of a real host', () => {
    const problems = checkContractDocs({ source, ...files });
    if (problems.length > 0) assert.fail(formatProblems(problems));
  });

  it('DOC-1: every built-in has a row "| `name` | true|false |" whose flag is annotations.readOnly === true, with a non-empty description', () => {
    const rows = contractTools(source.registry);
    assert.ok(
      rows.some((row) => row.name === 'use_capability'),
      'use_capability is documented',
    );
    assert.ok(
      rows.some((row) => row.name === 'read_file'),
      'read_file is documented',
    );
    const builtins = source.registry
      .list({ visibility: 'all' })
      .filter((tool) => tool.definition.source === 'builtin');
    assert.equal(rows.filter((row) => row.kind !== 'alias').length, builtins.length);
    for (const file of [EN, ZH]) {
      const text = files.documents[file]!;
      for (const row of rows) {
        const flag = row.tool.definition.annotations.readOnly === true;
        assert.ok(
          text.includes(`| \`${row.name}\` | ${flag} |`),
          `docs/${file} has "| \`${row.name}\` | ${flag} |"`,
        );
        assert.ok(
          !text.includes(`| \`${row.name}\` | ${!flag} |`),
          `docs/${file} has no row with the opposite flag`,
        );
        if (row.kind !== 'alias') assert.notEqual(row.description, '', `${row.name} has a description`);
      }
    }
  });

  it('documents the rest of the built-in table (seed rows code_index, delete_symbol, notebook_edit, web_fetch) in both languages', () => {
    const seedFlags: Record<string, boolean> = {
      code_index: true,
      delete_symbol: false,
      notebook_edit: false,
      web_fetch: true,
    };
    for (const [name, flag] of Object.entries(seedFlags)) {
      assert.equal(readOnlyFlag(name), flag, `${name} has the seed's read-only flag`);
      for (const file of [EN, ZH]) {
        const text = files.documents[file] ?? '';
        assert.ok(text.includes(`| \`${name}\` | ${flag} | `), `${file} has the row of ${name}`);
        assert.match(
          text,
          new RegExp(`\\| \`${name}\` \\| \`[0-9a-f]{16}\` \\|`),
          `${file} has the schema row of ${name}`,
        );
      }
      const lean = source.surfaces.find(
        (listing) => listing.profile === 'lean' && listing.sandbox === 'workspace_write',
      );
      assert.ok(lean?.catalog.includes(name), `${name} is reachable as tool:${name} on the lean surface`);
    }
    for (const code of [
      'FETCH_BLOCKED',
      'FETCH_FAILED',
      'SYMBOL_NOT_FOUND',
      'SYMBOL_AMBIGUOUS',
      'NOTEBOOK_INVALID',
    ])
      for (const file of [EN, ZH])
        assert.ok(files.documents[file]?.includes(`| \`${code}\` |`), `${file} lists ${code}`);
    // Dropping one of them from the document is caught, naming the tool.
    const dropped = checkContractDocs(
      withDocument(EN, (text) => text.replace(/^\| `notebook_edit` \| false \|.*\n/m, '')),
    );
    assertProblem(dropped, 'tool-row', 'notebook_edit');
  });

  it('documents the session tools (seed rows todo_write, create_goal, get_goal, update_goal, present, compress) in both languages', () => {
    const seedFlags: Record<string, boolean> = {
      compress: true,
      create_goal: false,
      get_goal: true,
      present: true,
      todo_write: true,
      update_goal: false,
    };
    const lean = source.surfaces.find(
      (listing) => listing.profile === 'lean' && listing.sandbox === 'workspace_write',
    );
    for (const [name, flag] of Object.entries(seedFlags)) {
      assert.equal(readOnlyFlag(name), flag, `${name} has the seed's read-only flag`);
      assert.equal(
        source.registry.list({ visibility: 'all' }).find((tool) => tool.name === name)?.definition.group,
        'utility_builtins',
        `${name} is in the utility group`,
      );
      for (const file of [EN, ZH]) {
        const text = files.documents[file] ?? '';
        assert.ok(text.includes(`| \`${name}\` | ${flag} | `), `${file} has the row of ${name}`);
        assert.match(
          text,
          new RegExp(`\\| \`${name}\` \\| \`[0-9a-f]{16}\` \\|`),
          `${file} has the schema row of ${name}`,
        );
      }
      // Reachable as tool:<name> on the lean surface; compress only where a conversation is.
      if (name === 'compress') {
        for (const listing of source.surfaces) {
          assert.ok(
            !listing.surface.includes(name) && !listing.catalog.includes(name),
            'compress needs a conversation',
          );
        }
      } else {
        assert.ok(lean?.catalog.includes(name), `${name} is reachable as tool:${name} on the lean surface`);
      }
    }
    for (const code of [
      'GOAL_CONFLICT',
      'GOAL_NOT_FOUND',
      'GOAL_REVISION_MISMATCH',
      'PLAN_NOT_APPROVED',
      'COMPRESS_RANGE_INVALID',
    ])
      for (const file of [EN, ZH])
        assert.ok(files.documents[file]?.includes(`| \`${code}\` |`), `${file} lists ${code}`);
    const dropped = checkContractDocs(
      withDocument(ZH, (text) => text.replace(/^\| `update_goal` \| false \|.*\n/m, '')),
    );
    assertProblem(dropped, 'tool-row', 'update_goal');
  });

  it('DOC-2: every schema parses as JSON, is canonical, and canonicalising it again is idempotent', () => {
    for (const tool of source.registry.list({ visibility: 'all' })) {
      const parsed = JSON.parse(tool.canonicalSchemaJson) as unknown;
      const again = canonicalSchemaJson(parsed);
      assert.equal(again, tool.canonicalSchemaJson, `${tool.name}: canonicalising again changes nothing`);
      assert.equal(canonicalSchemaJson(JSON.parse(again)), again, `${tool.name}: idempotent twice over`);
      assert.equal(
        canonicalSchemaJson(tool.definition.modelTool.inputSchema),
        tool.canonicalSchemaJson,
        `${tool.name}: the registry holds the canonical form of the definition's schema`,
      );
    }
    assert.deepEqual(only(checkContractDocs({ source, ...files }), 'schema'), []);
  });

  it('the error-code tables of both languages equal the closed code set', () => {
    const codes = Object.keys(ERROR_CODES).sort();
    for (const file of [EN, ZH]) {
      const region = findRegion(files.documents[file]!, 'error-codes');
      assert.ok(region, `docs/${file} has the error-code region`);
      const documented = [...region.body.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
      assert.deepEqual([...documented].sort(), codes, `docs/${file} lists exactly ERROR_CODES`);
    }
  });

  it('the committed per-dialect snapshots equal what the dialects compile now', () => {
    const listed = source.registry.list().filter((tool) => tool.definition.source === 'builtin');
    for (const dialect of DIALECT_NAMES) {
      const committed = files.snapshots[dialect];
      assert.ok(committed, `docs/snapshots/${dialect}.json is committed`);
      const compiled = getDialect(dialect).compileTools(toModelTools(listed));
      const parsed = JSON.parse(committed) as { tools: unknown; report: unknown };
      assert.deepEqual(parsed.tools, JSON.parse(JSON.stringify(compiled.tools)), `${dialect} tools`);
      assert.deepEqual(parsed.report, JSON.parse(JSON.stringify(compiled.report)), `${dialect} report`);
    }
  });

  it('reads the surface table from one real host per profile, sandbox and platform', () => {
    assert.equal(source.surfaces.length, 12);
    for (const listing of source.surfaces) {
      assert.ok(listing.surface.includes('use_capability'), 'use_capability is on every surface');
      for (const name of listing.catalog)
        assert.ok(!listing.surface.includes(name), `${name} is not listed twice`);
      if (listing.sandbox === 'read_only') {
        // The surface of a read_only run: read-only tools, the shell group, whose commands run in
        // the read-only OS sandbox, and the session tools, which change only the session's own
        // bookkeeping (the goal writers). (What the catalog offers is boot's choice; the table shows it.)
        for (const name of listing.surface) {
          const tool = source.registry
            .list({ visibility: 'all' })
            .find((candidate) => candidate.name === name)!;
          assert.ok(
            readOnlyFlag(name) ||
              tool.definition.group === 'shell_builtins' ||
              (tool.definition.sessionScoped === true && tool.definition.group === 'utility_builtins'),
            `${name} on a read_only surface is read-only, a shell tool or a session tool`,
          );
        }
      }
      const shells = listing.surface.filter((name) => name === 'bash' || name === 'pwsh');
      assert.deepEqual(
        shells,
        [listing.platform === 'windows' ? 'pwsh' : 'bash'],
        "one shell, the platform's",
      );
    }
  });

  it('quotes the argument error exactly as a real host prints it, in both languages', async () => {
    const root = mkdtempSync(join(tmpdir(), 'toolhost-docs-example-'));
    try {
      writeFileSync(join(root, 'a.txt'), 'one\n');
      const host = await createHost({ root, config: false });
      try {
        const result = await host.dispatch({
          id: 'c1',
          name: 'read_file',
          arguments: { path: 'a.txt', limit: 'x' },
        });
        assert.equal(result.error?.code, 'ARGUMENT_VALIDATION');
        for (const file of [EN, ZH]) {
          assert.ok(
            files.documents[file]!.includes(`\`\`\`text\n${result.output}\n\`\`\``),
            `docs/${file} quotes the current argument error:\n${result.output}`,
          );
        }
      } finally {
        await host.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('fails naming the tool and the command to run when a row is removed', () => {
    const problems = checkContractDocs(
      withDocument(EN, (text) => text.replace(/^\| `read_file` \|.*\n/m, '')),
    );
    assertProblem(problems, 'tool-row', '`read_file`', GEN_COMMAND);
    assertProblem(problems, 'region', 'tool-table', GEN_COMMAND);
    assertProblem(problems, 'languages', 'read_file', GEN_COMMAND);
  });

  it('fails when a read-only flag is flipped in the document', () => {
    const flag = readOnlyFlag('edit_file');
    const problems = checkContractDocs(
      withDocument(ZH, (text) => text.replace(`| \`edit_file\` | ${flag} |`, `| \`edit_file\` | ${!flag} |`)),
    );
    assertProblem(problems, 'read-only', 'edit_file', `${!flag}`, GEN_COMMAND);
    assertProblem(problems, 'languages', 'edit_file', GEN_COMMAND);
  });

  it('fails when a built-in flag changes in the code without regenerating', () => {
    const registry = copyRegistry((definition) =>
      definition.name === 'glob'
        ? { ...definition, annotations: { ...definition.annotations, readOnly: false } }
        : definition,
    );
    const problems = checkContractDocs(withRegistry(registry));
    assertProblem(problems, 'read-only', '`glob`', 'true', 'false', GEN_COMMAND);
  });

  it("fails naming the tool and the dialects when a built-in's schema changes without regenerating", () => {
    const registry = copyRegistry((definition) => {
      if (definition.name !== 'ls') return definition;
      const schema = definition.modelTool.inputSchema as { properties: Record<string, unknown> };
      return {
        ...definition,
        modelTool: {
          ...definition.modelTool,
          inputSchema: { ...schema, properties: { ...schema.properties, depth: { type: 'integer' } } },
        },
      };
    });
    const problems = checkContractDocs(withRegistry(registry));
    assertProblem(problems, 'fingerprint', '`ls`', GEN_COMMAND);
    for (const dialect of DIALECT_NAMES)
      assertProblem(problems, 'snapshot', `${dialect}.json`, 'ls (changed)', GEN_COMMAND);
    // Regenerating from the changed registry makes the documentation true again.
    const changed = { ...source, registry };
    const regenerated: Record<string, string | undefined> = {};
    for (const spec of DOCUMENTS)
      regenerated[spec.file] = renderDocument(spec, files.documents[spec.file]!, changed);
    assert.deepEqual(
      checkContractDocs({
        source: changed,
        documents: regenerated,
        snapshots: renderDialectSnapshots(changed),
      }),
      [],
    );
  });

  it('fails when a description changes without regenerating, and asks for a new translation', () => {
    const registry = copyRegistry((definition) =>
      definition.name === 'view_image'
        ? { ...definition, modelTool: { ...definition.modelTool, description: 'Look at an image file.' } }
        : definition,
    );
    const problems = checkContractDocs(withRegistry(registry));
    assertProblem(problems, 'description', '`view_image`', GEN_COMMAND);
    assertProblem(problems, 'snapshot', 'view_image (changed)');
    assertProblem(problems, 'translation', 'TOOL_DESCRIPTIONS_ZH["view_image"]', 'Look at an image file.');
  });

  it('fails when a built-in has an empty description', () => {
    const registry = copyRegistry((definition) =>
      definition.name === 'ls'
        ? { ...definition, modelTool: { ...definition.modelTool, description: '  ' } }
        : definition,
    );
    assertProblem(checkContractDocs(withRegistry(registry)), 'description', 'empty description', '`ls`');
  });

  it('fails when a schema does not parse, is not canonical, or is not the canonical form of its definition', () => {
    const real = source.registry.list({ visibility: 'all' });
    const tamper = (name: string, canonicalSchemaJson: string): Pick<ToolRegistry, 'list'> => ({
      list: (options) =>
        real
          .filter(
            (tool) =>
              options?.visibility === 'all' ||
              tool.definition.visibility === (options?.visibility ?? 'listed'),
          )
          .map((tool): RegisteredTool => (tool.name === name ? { ...tool, canonicalSchemaJson } : tool)),
    });
    assertProblem(
      checkContractDocs(withRegistry(tamper('grep', '{"type":'))),
      'schema',
      '`grep`',
      'does not parse',
    );
    assertProblem(
      checkContractDocs(withRegistry(tamper('grep', '{"type":"object","properties":{}}'))),
      'schema',
      '`grep`',
      'not canonical',
    );
    assertProblem(
      checkContractDocs(withRegistry(tamper('grep', '{"properties":{},"type":"object"}'))),
      'schema',
      '`grep`',
      "not the canonical form of the definition's input schema",
    );
  });

  it('fails when a committed snapshot is edited or missing', () => {
    const edited = files.snapshots.anthropic!.replace('"name": "read_file"', '"name": "read_file_renamed"');
    const problems = checkContractDocs({
      source,
      documents: files.documents,
      snapshots: { ...files.snapshots, anthropic: edited, gemini: undefined },
    });
    assertProblem(problems, 'snapshot', 'snapshots/anthropic.json', 'read_file (missing)', GEN_COMMAND);
    assertProblem(problems, 'snapshot', 'snapshots/gemini.json is missing', GEN_COMMAND);
  });

  it('fails when the error-code table misses a code, lists an unknown one, or the code set grows', () => {
    const removed = checkContractDocs(withDocument(EN, (text) => text.replace(/^\| `TIMEOUT` \|.*\n/m, '')));
    assertProblem(removed, 'error-codes', '`TIMEOUT`', 'has no row', GEN_COMMAND);
    const unknown = checkContractDocs(
      withDocument(ZH, (text) => text.replace('| `ABORTED` |', '| `ABORTED_LATER` |')),
    );
    assertProblem(unknown, 'error-codes', '`ABORTED_LATER`', 'not in ERROR_CODES', GEN_COMMAND);
    const grown = checkContractDocs({
      source: {
        ...source,
        errorCodes: {
          ...source.errorCodes,
          QUOTA_EXCEEDED: { kind: 'execution', summary: 'A quota ran out.', recovery: 'wait' },
        },
      },
      ...files,
    });
    assertProblem(grown, 'error-codes', '`QUOTA_EXCEEDED`', 'has no row', GEN_COMMAND);
    assertProblem(grown, 'translation', 'ERROR_CODES_ZH["QUOTA_EXCEEDED"]');
  });

  it('fails when the English and Chinese tables disagree', () => {
    // Reorder two rows of the Chinese table only: every row is still right on its own.
    const problems = checkContractDocs(
      withDocument(ZH, (text) => {
        const lines = text.split('\n');
        const first = lines.findIndex((line) => line.startsWith('| `edit_file` |'));
        const second = lines.findIndex((line) => line.startsWith('| `glob` |'));
        [lines[first], lines[second]] = [lines[second]!, lines[first]!];
        return lines.join('\n');
      }),
    );
    assertProblem(problems, 'languages', 'TOOL_CONTRACT.md', 'TOOL_CONTRACT.zh-CN.md', GEN_COMMAND);
  });

  it('documents hidden aliases as such, and fails when their rows are missing', () => {
    const readFile = source.registry.list().find((tool) => tool.name === 'read_file')!.definition;
    const registry = copyRegistry(
      (definition) =>
        definition.name === 'read_file' ? { ...definition, aliases: ['cat_file'] } : definition,
      [
        {
          ...readFile,
          name: 'legacy_read',
          visibility: 'hidden',
          modelTool: { ...readFile.modelTool, name: 'legacy_read' },
        },
      ],
    );
    const changed = { ...source, registry };
    const rendered = renderDocument(DOCUMENTS[0]!, files.documents[EN]!, changed);
    assert.match(
      rendered,
      /^\| `legacy_read` \| true \| \*\*Hidden alias\*\* \(runs when called by name, listed nowhere\)\. /m,
    );
    assert.match(rendered, /^\| `cat_file` \| true \| \*\*Hidden alias\*\* of `read_file`/m);
    const problems = checkContractDocs({ source: changed, ...files });
    assertProblem(problems, 'tool-row', 'hidden alias `legacy_read`', GEN_COMMAND);
    assertProblem(problems, 'tool-row', 'hidden alias `cat_file`', GEN_COMMAND);
  });

  it('fails when a generated region loses its markers or a document loses its twin link', () => {
    const markers = checkContractDocs(
      withDocument('READ_EVIDENCE_LIFECYCLE.md', (text) =>
        text.replace('<!-- END GENERATED evidence-codes -->', ''),
      ),
    );
    assertProblem(markers, 'region', 'evidence-codes', 'lost the markers', GEN_COMMAND);
    const link = checkContractDocs(
      withDocument(ZH, (text) => text.replace('[English](TOOL_CONTRACT.md)', 'English')),
    );
    assertProblem(link, 'links', 'TOOL_CONTRACT.md');
    const missing = checkContractDocs({
      source,
      documents: { ...files.documents, [EN]: undefined },
      snapshots: files.snapshots,
    });
    assertProblem(missing, 'document', 'docs/TOOL_CONTRACT.md is missing');
  });

  it('fails when a hand edit lands inside a generated region', () => {
    const problems = checkContractDocs(
      withDocument(EN, (text) =>
        text.replace('| Tool | Read-only | Description |', '| Tool | Read only? | Description |'),
      ),
    );
    assertProblem(problems, 'region', 'tool-table', 'line 1 of the region', GEN_COMMAND);
  });
});

describe('formatProblems', () => {
  it('ends a failure report with the commands to run', () => {
    const report = formatProblems([{ check: 'tool-row', file: EN, message: 'no row for `x`.' }]);
    assert.match(report, /1 problem\):/);
    assert.ok(report.includes(`\`${GEN_COMMAND}\``));
    assert.ok(report.includes('pnpm --filter @toolhost/docs test'));
  });
});

describe('replaceRegions', () => {
  const begin =
    '<!-- BEGIN GENERATED demo: rendered from the registry by `pnpm --filter @toolhost/docs gen`; do not edit by hand -->';
  const end = '<!-- END GENERATED demo -->';

  it('replaces only the body between the markers and is idempotent', () => {
    const text = `# Title\n\n${begin}\nold\nlines\n${end}\n\nafter\n`;
    const once = replaceRegions(text, { demo: '| a |\n' });
    assert.equal(once, `# Title\n\n${begin}\n| a |\n${end}\n\nafter\n`);
    assert.equal(replaceRegions(once, { demo: '| a |' }), once);
  });

  it('refuses a document without the markers and one where a marker repeats', () => {
    assert.throws(() => replaceRegions('# Title\n', { demo: 'x' }), /no generated region "demo"/);
    assert.throws(() => findRegion(`${begin}\n${end}\n${begin}\n${end}\n`, 'demo'), /more than once/);
  });
});

describe('writeContractDocFiles', () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'toolhost-docs-gen-'));
    cpSync(DOCS_DIR, directory, {
      recursive: true,
      filter: (path) => !path.includes('node_modules'),
    });
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('regenerates drifted regions and snapshots in place, and a second run changes nothing', () => {
    const file = join(directory, EN);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^\| `grep` \|.*\n/m, ''));
    writeFileSync(join(directory, 'snapshots', 'openai-chat.json'), '{}\n');
    assert.deepEqual(writeContractDocFiles(source, directory).sort(), [EN, 'snapshots/openai-chat.json']);
    assert.deepEqual(checkContractDocs({ source, ...readContractDocFiles(directory) }), []);
    assert.deepEqual(writeContractDocFiles(source, directory), []);
  });
});
