import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIALECT_NAMES } from '@toolhost/provider-dialects';
import type { ContractSource } from './contract-source.js';
import { DOCUMENTS, renderDialectSnapshots, renderDocument, snapshotFile } from './render.js';

/** The `docs/` directory of this package. */
export const DOCS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The committed documents and snapshots, as {@link checkContractDocs} takes them. */
export interface ContractDocFiles {
  readonly documents: Record<string, string | undefined>;
  readonly snapshots: Record<string, string | undefined>;
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Reads every maintained document and every dialect snapshot from a docs directory (default this one). */
export function readContractDocFiles(docsDir: string = DOCS_DIR): ContractDocFiles {
  const documents: Record<string, string | undefined> = {};
  for (const spec of DOCUMENTS) documents[spec.file] = readIfExists(join(docsDir, spec.file));
  const snapshots: Record<string, string | undefined> = {};
  for (const dialect of DIALECT_NAMES)
    snapshots[dialect] = readIfExists(join(docsDir, snapshotFile(dialect)));
  return { documents, snapshots };
}

/**
 * Re-renders every generated region of every document and every dialect snapshot in a docs
 * directory, writing only files whose bytes change. Returns the changed files (relative to the
 * directory). Throws when a document is missing or has lost a region's markers: the generator fills
 * regions, it never invents a document.
 */
export function writeContractDocFiles(source: ContractSource, docsDir: string = DOCS_DIR): string[] {
  const changed: string[] = [];
  const write = (file: string, text: string) => {
    const path = join(docsDir, file);
    if (readIfExists(path) === text) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    changed.push(file);
  };
  for (const spec of DOCUMENTS) {
    const current = readIfExists(join(docsDir, spec.file));
    if (current === undefined) throw new Error(`docs/${spec.file} is missing; restore it from git first`);
    write(spec.file, renderDocument(spec, current, source));
  }
  for (const [dialect, text] of Object.entries(renderDialectSnapshots(source)))
    write(snapshotFile(dialect), text);
  return changed;
}
