import { toModelTools } from '@toolhost/contracts';
import { DIALECT_NAMES, getDialect } from '@toolhost/provider-dialects';
import type { ContractLimit, ContractSource, SurfaceListing } from './contract-source.js';
import { type ContractTool, contractTools, oneLine, schemaParameters } from './contract-tools.js';
import { GEN_COMMAND, replaceRegions } from './regions.js';
import { ERROR_CODES_ZH, TOOL_DESCRIPTIONS_ZH, type Translation } from './translations.zh-CN.js';

/** The languages of the documents. */
export type DocLanguage = 'en' | 'zh-CN';

/** A document the generator maintains: its file (relative to `docs/`), language, twin and regions. */
export interface DocumentSpec {
  readonly file: string;
  readonly language: DocLanguage;
  /** The same document in the other language, linked at the top. */
  readonly counterpart: string;
  readonly regions: readonly string[];
}

const CONTRACT_REGIONS = ['tool-table', 'schema-fingerprints', 'surfaces', 'limits', 'error-codes'] as const;
const LIFECYCLE_REGIONS = ['evidence-limits', 'evidence-codes'] as const;

/** Every maintained document. */
export const DOCUMENTS: readonly DocumentSpec[] = [
  {
    file: 'TOOL_CONTRACT.md',
    language: 'en',
    counterpart: 'TOOL_CONTRACT.zh-CN.md',
    regions: CONTRACT_REGIONS,
  },
  {
    file: 'TOOL_CONTRACT.zh-CN.md',
    language: 'zh-CN',
    counterpart: 'TOOL_CONTRACT.md',
    regions: CONTRACT_REGIONS,
  },
  {
    file: 'READ_EVIDENCE_LIFECYCLE.md',
    language: 'en',
    counterpart: 'READ_EVIDENCE_LIFECYCLE.zh-CN.md',
    regions: LIFECYCLE_REGIONS,
  },
  {
    file: 'READ_EVIDENCE_LIFECYCLE.zh-CN.md',
    language: 'zh-CN',
    counterpart: 'READ_EVIDENCE_LIFECYCLE.md',
    regions: LIFECYCLE_REGIONS,
  },
];

/** Where the per-dialect schema snapshots live, relative to `docs/`. */
export function snapshotFile(dialect: string): string {
  return `snapshots/${dialect}.json`;
}

/** Placeholder used in the Chinese tables while a translation is missing or stale (the check fails then). */
export const UNTRANSLATED_ZH = '（待翻译）';

/**
 * Escapes text for a Markdown table cell: `|` everywhere (GFM needs it even in code spans); outside
 * code spans also `\`, `*` and `<`, so globs such as `**` and placeholders such as `<path>` render
 * as written instead of as emphasis or HTML.
 */
export function escapeCell(text: string): string {
  return oneLine(text)
    .split(/(`[^`]*`)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/\|/g, '\\|')
        : part.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\*/g, '\\*').replace(/</g, '&lt;'),
    )
    .join('');
}

/** The current translation of an English text, or `undefined` when missing or written for other text. */
export function currentTranslation(entry: Translation | undefined, english: string): string | undefined {
  if (!entry || oneLine(entry.en) !== oneLine(english)) return undefined;
  return entry.zh;
}

/** The description cell of a tool row, as the tables print it. */
export function descriptionCell(row: ContractTool, language: DocLanguage): string {
  if (row.kind === 'alias') {
    return language === 'en'
      ? `**Hidden alias** of \`${row.aliasOf}\`: runs when called by name, listed nowhere.`
      : `**隐藏别名**，指向 \`${row.aliasOf}\`：按名字调用时仍会执行，但不出现在任何列表中。`;
  }
  const text =
    language === 'en'
      ? row.description
      : (currentTranslation(TOOL_DESCRIPTIONS_ZH[row.name], row.description) ??
        `${UNTRANSLATED_ZH}${row.description}`);
  const cell = escapeCell(text);
  if (row.kind !== 'hidden') return cell;
  return language === 'en'
    ? `**Hidden alias** (runs when called by name, listed nowhere). ${cell}`
    : `**隐藏别名**（按名字调用时仍会执行，但不出现在任何列表中）。${cell}`;
}

/** The tool table: `| \`name\` | true/false | description |` per documented tool. */
export function renderToolTable(rows: readonly ContractTool[], language: DocLanguage): string {
  const header =
    language === 'en' ? ['| Tool | Read-only | Description |'] : ['| 工具 | 只读（Read-only） | 说明 |'];
  return [
    ...header,
    '| --- | --- | --- |',
    ...rows.map((row) => `| \`${row.name}\` | ${row.readOnly} | ${descriptionCell(row, language)} |`),
  ].join('\n');
}

/** The schema fingerprint table: per tool, the fingerprint of its canonical schema and its parameters. */
export function renderFingerprintTable(rows: readonly ContractTool[], language: DocLanguage): string {
  const required = language === 'en' ? ' (required)' : '（必填）';
  const none = language === 'en' ? '(none)' : '（无）';
  const lines =
    language === 'en'
      ? ['| Tool | Schema fingerprint | Parameters |', '| --- | --- | --- |']
      : ['| 工具 | Schema 指纹 | 参数 |', '| --- | --- | --- |'];
  for (const row of rows) {
    if (row.kind === 'alias') {
      const same = language === 'en' ? `same schema as \`${row.aliasOf}\`` : `与 \`${row.aliasOf}\` 相同`;
      lines.push(`| \`${row.name}\` | \`${row.tool.schemaFingerprint}\` | ${same} |`);
      continue;
    }
    const parameters = schemaParameters(row.tool)
      .map((parameter) => `\`${parameter.name}\`${parameter.required ? required : ''}`)
      .join(', ');
    lines.push(`| \`${row.name}\` | \`${row.tool.schemaFingerprint}\` | ${parameters || none} |`);
  }
  return lines.join('\n');
}

const SANDBOX_ORDER = ['read_only', 'workspace_write', 'danger_full_access'];

/** The surface table: per profile, sandbox and platform, the provider-visible tools and the `tool:` catalog. */
export function renderSurfaceTable(surfaces: readonly SurfaceListing[], language: DocLanguage): string {
  const lines =
    language === 'en'
      ? [
          '| Profile | Sandbox | Platform | Provider-visible tools | Reachable as `tool:<name>` through `use_capability` |',
          '| --- | --- | --- | --- | --- |',
        ]
      : [
          '| 工具面 | 沙箱 | 平台 | provider 可见工具 | 经 `use_capability` 以 `tool:<name>` 调用 |',
          '| --- | --- | --- | --- | --- |',
        ];
  const none = language === 'en' ? '(none)' : '（无）';
  const ordered = [...surfaces].sort(
    (left, right) =>
      (left.profile === right.profile ? 0 : left.profile === 'lean' ? -1 : 1) ||
      SANDBOX_ORDER.indexOf(left.sandbox) - SANDBOX_ORDER.indexOf(right.sandbox) ||
      (left.platform === right.platform ? 0 : left.platform === 'posix' ? -1 : 1),
  );
  const names = (list: readonly string[]) =>
    list.length === 0 ? none : list.map((name) => `\`${name}\``).join(', ');
  for (const surface of ordered) {
    lines.push(
      `| \`${surface.profile}\` | \`${surface.sandbox}\` | ${surface.platform} | ${names(surface.surface)} | ${names(surface.catalog)} |`,
    );
  }
  return lines.join('\n');
}

const LIMIT_LABELS: Readonly<Record<string, { readonly en: string; readonly zh: string }>> = {
  'model-result-bytes': {
    en: 'Largest result text the model sees (longer results are cut and kept whole)',
    zh: '模型能看到的单个结果文本上限（更长的结果会被截断，完整内容另存）',
  },
  'result-budget-shell': { en: 'Cut of an oversized shell result', zh: '超长 shell 结果的截取方式' },
  'result-budget-read': {
    en: 'Cut of an oversized `read_file` result (a prefix ending on a line)',
    zh: '超长 `read_file` 结果的截取方式（在行尾结束的前缀）',
  },
  'result-budget-search': {
    en: 'Cut of an oversized search result (`grep`, `glob`, `ls`)',
    zh: '超长搜索结果（`grep`、`glob`、`ls`）的截取方式',
  },
  'result-budget-default': { en: 'Cut of any other oversized result', zh: '其他超长结果的截取方式' },
  'page-default-bytes': {
    en: '`session:tool_result` page size when `limit` is omitted',
    zh: '省略 `limit` 时 `session:tool_result` 的分页大小',
  },
  'page-max-bytes': { en: 'Largest `session:tool_result` page', zh: '`session:tool_result` 单页上限' },
  'argument-violations': {
    en: 'Violations listed in one argument error',
    zh: '一条参数错误最多列出的违规项数',
  },
  'argument-error-bytes': {
    en: 'Longest argument error (cut with `[truncated]`)',
    zh: '参数错误的最大长度（超出时以 `[truncated]` 截断）',
  },
  'parallel-calls': {
    en: 'Read-only calls of one batch running at once',
    zh: '同一批次中同时运行的只读调用数',
  },
  'storm-threshold': {
    en: 'Equivalent all-failed batches in a row before the storm breaker speaks',
    zh: '风暴断路器发出提示前，连续等价的全失败批次数',
  },
  'hash-limit': {
    en: 'Files up to this size get a SHA-256 of their content in their version',
    zh: '不超过此大小的文件，其版本中包含内容的 SHA-256',
  },
  'content-limit': {
    en: 'Observed content kept per file, so a stale error can name changed lines',
    zh: '每个文件保留的已观察内容上限，用于在版本过期错误中指出变化的行',
  },
  'content-budget': {
    en: 'Observed content kept per store (oldest dropped first)',
    zh: '每个观察存储保留的内容总量（最旧的先丢弃）',
  },
  'window-lines': { en: 'Lines in a `read_file` window by default', zh: '`read_file` 窗口的默认行数' },
  'max-line-bytes': { en: 'Longest line a window shows', zh: '窗口中单行的最大长度' },
  'max-window-bytes': { en: 'Most text in one window', zh: '单个窗口的最大文本量' },
  'binary-sniff-bytes': {
    en: 'Bytes inspected for a NUL byte (binary detection)',
    zh: '检测 NUL 字节（判断二进制）时检查的字节数',
  },
  'encoding-sample-bytes': {
    en: 'Sample used to detect a legacy encoding',
    zh: '检测旧式编码时使用的样本大小',
  },
};

function formatBytes(bytes: number, language: DocLanguage): string {
  const exact = `${bytes} ${language === 'en' ? 'bytes' : '字节'}`;
  if (bytes >= 1024 && bytes % 1024 === 0) {
    const human = bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
    return language === 'en' ? `${human} (${exact})` : `${human}（${exact}）`;
  }
  return exact;
}

function formatLimit(limit: ContractLimit, language: DocLanguage): string {
  const { value } = limit;
  if (typeof value !== 'number') {
    if (value.tail === 0) {
      return language === 'en'
        ? `head ${formatBytes(value.head, language)}, no tail`
        : `头部 ${formatBytes(value.head, language)}，无尾部`;
    }
    return language === 'en'
      ? `head ${formatBytes(value.head, language)} + tail ${formatBytes(value.tail, language)}`
      : `头部 ${formatBytes(value.head, language)} + 尾部 ${formatBytes(value.tail, language)}`;
  }
  switch (limit.unit) {
    case 'bytes':
      return formatBytes(value, language);
    case 'lines':
      return language === 'en' ? `${value} lines` : `${value} 行`;
    case 'batches':
      return language === 'en' ? `${value} batches` : `${value} 个批次`;
    case 'count':
      return String(value);
  }
}

/** A limits table: label, value and the constant it is read from. */
export function renderLimitsTable(limits: readonly ContractLimit[], language: DocLanguage): string {
  const lines =
    language === 'en'
      ? ['| Limit | Value | Read from |', '| --- | --- | --- |']
      : ['| 限制 | 取值 | 来源 |', '| --- | --- | --- |'];
  for (const limit of limits) {
    const label = LIMIT_LABELS[limit.id];
    if (!label) throw new Error(`docs/src/render.ts has no label for the limit "${limit.id}"; add one`);
    lines.push(
      `| ${language === 'en' ? label.en : label.zh} | ${formatLimit(limit, language)} | ${limit.source} |`,
    );
  }
  return lines.join('\n');
}

function errorTexts(
  code: string,
  info: { readonly summary: string; readonly recovery: string },
  language: DocLanguage,
): { summary: string; recovery: string } {
  if (language === 'en') return { summary: info.summary, recovery: info.recovery };
  const entry = ERROR_CODES_ZH[code];
  return {
    summary: currentTranslation(entry?.summary, info.summary) ?? `${UNTRANSLATED_ZH}${info.summary}`,
    recovery: currentTranslation(entry?.recovery, info.recovery) ?? `${UNTRANSLATED_ZH}${info.recovery}`,
  };
}

/** The error-code table: one row per code of the closed set, in the set's order. */
export function renderErrorCodeTable(
  errorCodes: ContractSource['errorCodes'],
  language: DocLanguage,
  only?: readonly string[],
): string {
  const lines =
    language === 'en'
      ? ['| Code | Kind | Meaning | Recovery |', '| --- | --- | --- | --- |']
      : ['| 错误码 | 类别 | 含义 | 恢复方式 |', '| --- | --- | --- | --- |'];
  for (const [code, info] of Object.entries(errorCodes)) {
    if (only && !only.includes(code)) continue;
    const texts = errorTexts(code, info, language);
    lines.push(
      `| \`${code}\` | \`${info.kind}\` | ${escapeCell(texts.summary)} | ${escapeCell(texts.recovery)} |`,
    );
  }
  return lines.join('\n');
}

/** The codes `@toolhost/read-evidence` returns, with the contract's texts; a code outside the set is an error. */
export function renderEvidenceCodeTable(source: ContractSource, language: DocLanguage): string {
  for (const code of source.evidenceCodes) {
    if (!(code in source.errorCodes)) {
      throw new Error(`read-evidence returns "${code}", which is not a contract error code`);
    }
  }
  return renderErrorCodeTable(source.errorCodes, language, source.evidenceCodes);
}

/** Every generated region's body for one language. */
export function renderRegions(source: ContractSource, language: DocLanguage): Record<string, string> {
  const rows = contractTools(source.registry);
  return {
    'tool-table': renderToolTable(rows, language),
    'schema-fingerprints': renderFingerprintTable(rows, language),
    surfaces: renderSurfaceTable(source.surfaces, language),
    limits: renderLimitsTable(source.limits, language),
    'error-codes': renderErrorCodeTable(source.errorCodes, language),
    'evidence-limits': renderLimitsTable(source.evidenceLimits, language),
    'evidence-codes': renderEvidenceCodeTable(source, language),
  };
}

/** A document with every one of its generated regions re-rendered. */
export function renderDocument(spec: DocumentSpec, text: string, source: ContractSource): string {
  const all = renderRegions(source, spec.language);
  const bodies: Record<string, string> = {};
  for (const region of spec.regions) bodies[region] = all[region]!;
  return replaceRegions(text, bodies);
}

/**
 * The committed schema snapshot of one dialect: every listed built-in (both shells and
 * `use_capability` included) compiled by `getDialect(dialect).compileTools` with default options,
 * with the compile report, as pretty JSON ending in a newline.
 */
export function renderDialectSnapshot(source: ContractSource, dialect: string): string {
  const listed = source.registry
    .list({ visibility: 'listed' })
    .filter((tool) => tool.definition.source === 'builtin');
  const compiled = getDialect(dialect).compileTools(toModelTools(listed));
  const snapshot = {
    dialect: compiled.dialect,
    about: `Every listed built-in tool compiled by getDialect("${dialect}").compileTools with default options. A change here changes what providers receive: regenerate deliberately with \`${GEN_COMMAND}\`.`,
    tools: compiled.tools,
    report: compiled.report,
  };
  return `${JSON.stringify(snapshot, null, 2)}\n`;
}

/** Every dialect's snapshot text, keyed by dialect name. */
export function renderDialectSnapshots(source: ContractSource): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dialect of DIALECT_NAMES) out[dialect] = renderDialectSnapshot(source, dialect);
  return out;
}
