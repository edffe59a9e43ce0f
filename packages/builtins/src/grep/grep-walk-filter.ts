import type { GitignoreMatcher, IgnoreLevel } from '../discovery/discovery-ignore.js';
import type { createProgramMatcher, GlobProgram } from '@toolhost/path-policy';

// Which walked entries the JS engine of grep searches: ripgrep's rules (the `ignore` crate's
// `Ignore::matched`, in order: `--glob` overrides, then .rgignore/.ignore/.gitignore/
// .git/info/exclude, then the `type` globs, then the hidden rule). The walk runs in the search
// workers, so the rules travel as data (compiled globs, see `wireMatcher`) and are applied by
// `createWalkFilter`, whose source the workers run: it must stay self-contained (no references to
// anything outside its body; the linear glob runtime is passed in). The ignore files themselves are compiled on the main thread by
// discovery-ignore.ts, the single place that reads gitignore syntax.

/** One compiled gitignore line, as data. */
export interface WireRule {
  readonly program: GlobProgram;
  readonly whitelist: boolean;
  readonly onlyDirectory: boolean;
}

/** One directory's ignore files, as data; `parent` is the id of the next level up, or -1. */
export interface WireLevel {
  readonly id: number;
  readonly directory: string;
  readonly parent: number;
  readonly rgignore: readonly WireRule[] | null;
  readonly ignore: readonly WireRule[] | null;
  readonly gitignore: readonly WireRule[] | null;
  readonly exclude: readonly WireRule[] | null;
  readonly hasGit: boolean;
}

/** The search-wide selection rules. */
export interface WalkFilterSpec {
  /** The real absolute search root. */
  readonly root: string;
  /** The `--glob` overrides (the caller's glob, then the hard excludes). */
  readonly overrides: readonly WireRule[];
  /** The `type` globs (matched against names, as picomatch does: equal, or the glob matches), or null. */
  readonly typeGlobs: ReadonlyArray<{
    readonly glob: string;
    readonly program: GlobProgram;
  }> | null;
  readonly includeHidden: boolean;
  readonly noIgnore: boolean;
}

/** The decision procedure built from a {@link WalkFilterSpec}. */
export interface WalkFilter {
  /** Registers levels (parents before children; a known id is ignored). */
  addLevels(levels: readonly WireLevel[]): void;
  /** Whether an entry of a directory whose ignore level is `levelId` (-1: none) is searched or walked. */
  includes(levelId: number, absolute: string, relative: string, name: string, isDirectory: boolean): boolean;
}

/** The rules of a compiled matcher, as data. */
export function wireMatcher(matcher: GitignoreMatcher | undefined): WireRule[] | null {
  if (matcher === undefined) return null;
  return matcher.rules.map((rule) => ({
    program: rule.matcher.program,
    whitelist: rule.whitelist,
    onlyDirectory: rule.onlyDirectory,
  }));
}

/** A level (without its parents) as data. */
export function wireLevel(level: IgnoreLevel, id: number, parent: number): WireLevel {
  return {
    id,
    directory: level.directory,
    parent,
    rgignore: wireMatcher(level.rgignore),
    ignore: wireMatcher(level.ignore),
    gitignore: wireMatcher(level.gitignore),
    exclude: wireMatcher(level.exclude),
    hasGit: level.hasGit,
  };
}

/**
 * Builds the selection rules of one search. Mirrors, step by step, discovery-ignore.ts
 * (`GitignoreMatcher.match`, `matchIgnoreLevels`) and the JS engine's per-entry decision; the
 * parity tests against ripgrep hold both to ripgrep. Self-contained: the workers run its source.
 */
export function createWalkFilter(spec: WalkFilterSpec, matcherOf: typeof createProgramMatcher): WalkFilter {
  type Rule = {
    matcher: ReturnType<typeof createProgramMatcher>;
    whitelist: boolean;
    onlyDirectory: boolean;
  };
  type Level = {
    directory: string;
    parent: Level | undefined;
    rgignore: Rule[] | undefined;
    ignore: Rule[] | undefined;
    gitignore: Rule[] | undefined;
    exclude: Rule[] | undefined;
    hasGit: boolean;
  };
  const compile = (rules: readonly WireRule[] | null): Rule[] | undefined =>
    rules === null
      ? undefined
      : rules.map((rule) => ({
          matcher: matcherOf(rule.program),
          whitelist: rule.whitelist,
          onlyDirectory: rule.onlyDirectory,
        }));
  // The last matching rule wins.
  const match = (rules: Rule[], relative: string, isDirectory: boolean): 'ignore' | 'whitelist' | 'none' => {
    for (let index = rules.length - 1; index >= 0; index -= 1) {
      const rule = rules[index]!;
      if (rule.onlyDirectory && !isDirectory) continue;
      if (rule.matcher.test(relative)) return rule.whitelist ? 'whitelist' : 'ignore';
    }
    return 'none';
  };
  const relativeTo = (directory: string, absolute: string): string | undefined => {
    if (directory === '/') return absolute.length > 1 ? absolute.slice(1) : undefined;
    if (absolute.length <= directory.length + 1 || !absolute.startsWith(directory)) return undefined;
    if (absolute.charCodeAt(directory.length) !== 0x2f) return undefined;
    return absolute.slice(directory.length + 1);
  };
  const matchLevels = (level: Level | undefined, absolute: string, isDirectory: boolean) => {
    let rgignore: 'ignore' | 'whitelist' | 'none' = 'none';
    let ignore: 'ignore' | 'whitelist' | 'none' = 'none';
    let gitignore: 'ignore' | 'whitelist' | 'none' = 'none';
    let exclude: 'ignore' | 'whitelist' | 'none' = 'none';
    let sawGit = false;
    for (let current = level; current !== undefined; current = current.parent) {
      const relative = relativeTo(current.directory, absolute);
      if (relative === undefined) continue;
      if (rgignore === 'none' && current.rgignore) rgignore = match(current.rgignore, relative, isDirectory);
      if (ignore === 'none' && current.ignore) ignore = match(current.ignore, relative, isDirectory);
      if (!sawGit) {
        if (gitignore === 'none' && current.gitignore)
          gitignore = match(current.gitignore, relative, isDirectory);
        if (exclude === 'none' && current.exclude) exclude = match(current.exclude, relative, isDirectory);
      }
      sawGit ||= current.hasGit;
    }
    if (rgignore !== 'none') return rgignore;
    if (ignore !== 'none') return ignore;
    if (gitignore !== 'none') return gitignore;
    return exclude;
  };

  const overrides = compile(spec.overrides) ?? [];
  const overrideIgnoreRules = spec.overrides.filter((rule) => !rule.whitelist).length;
  const typeGlobs = spec.typeGlobs?.map((type) => ({
    glob: type.glob,
    matcher: matcherOf(type.program),
  }));
  const levels = new Map<number, Level>();

  return {
    addLevels(wire) {
      for (const level of wire) {
        if (levels.has(level.id)) continue;
        levels.set(level.id, {
          directory: level.directory,
          parent: levels.get(level.parent),
          rgignore: compile(level.rgignore),
          ignore: compile(level.ignore),
          gitignore: compile(level.gitignore),
          exclude: compile(level.exclude),
          hasGit: level.hasGit,
        });
      }
    },
    includes(levelId, absolute, relative, name, isDirectory) {
      // Overrides (`--glob`) first: a glob is an ignore-file line whose meaning is inverted.
      const override = match(overrides, relative, isDirectory);
      if (override === 'ignore') return true;
      if (override === 'whitelist') return false;
      if (overrideIgnoreRules > 0 && !isDirectory) return false;
      let whitelisted = false;
      if (!spec.noIgnore) {
        const ignored = matchLevels(levels.get(levelId), absolute, isDirectory);
        if (ignored === 'ignore') return false;
        if (ignored === 'whitelist') whitelisted = true;
      }
      if (typeGlobs !== undefined && !isDirectory) {
        if (!typeGlobs.some((type) => name === type.glob || type.matcher.test(name))) return false;
        whitelisted = true;
      }
      if (!whitelisted && !spec.includeHidden && name.startsWith('.')) return false;
      return true;
    },
  };
}
