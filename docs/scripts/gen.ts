// `pnpm --filter @toolhost/docs gen`: renders every generated table of the contract documents and the
// per-dialect schema snapshots from the registry of a real host, then reports what is still wrong
// (missing translations, schema problems) and exits non-zero if anything is.
import { checkContractDocs, formatProblems } from '../src/check-contract-docs.js';
import { loadContractSource } from '../src/contract-source.js';
import { DOCS_DIR, readContractDocFiles, writeContractDocFiles } from '../src/docs-files.js';

const source = await loadContractSource();
const changed = writeContractDocFiles(source);
console.log(
  changed.length === 0
    ? 'docs: every generated region and snapshot is up to date'
    : `docs: updated ${changed.map((file) => `docs/${file}`).join(', ')}`,
);
const problems = checkContractDocs({ source, ...readContractDocFiles(DOCS_DIR) });
if (problems.length > 0) {
  console.error(formatProblems(problems));
  process.exitCode = 1;
}
