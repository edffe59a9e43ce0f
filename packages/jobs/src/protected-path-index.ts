import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { type DirectoryChanges, DirectoryWatcher, type WatchTarget } from './directory-watcher.js';
import type { MissingProtectedPath, ProtectedPathPlan } from './protected-paths.js';
import {
  ALWAYS_PROTECTED_NAMES,
  byDepth,
  type CompiledList,
  compileList,
  DIRECTORY_NAMES,
  isInside,
  kindOf,
  matches,
  SKIPPED_DIRECTORIES,
} from './protected-patterns.js';

/** What identifies one file system entry: a replaced entry has another device/inode pair. */
export interface EntryIdentity {
  readonly dev: number;
  readonly ino: number;
  /** The inode change time (ms), which programs cannot set back (unlike the modification time). */
  readonly ctimeMs: number;
}

/** Options of {@link ProtectedPathIndex}. */
export interface ProtectedPathIndexOptions {
  /** Real roots that are writable in the sandbox: protected and secret paths are looked for. */
  readonly writableRoots: readonly string[];
  /** Real roots (or readable roots) shown read-only: only secret paths are looked for. */
  readonly readOnlyRoots: readonly string[];
  /** Protected patterns or absolute paths (path-policy syntax). */
  readonly protectedPaths: readonly string[];
  /** Secret patterns or absolute paths. */
  readonly secretPaths: readonly string[];
  /** Compare names case-sensitively. Default true. */
  readonly caseSensitive?: boolean;
  /** Directory entries one build or one refresh may read, at most. Default 200 000. */
  readonly maxEntries?: number;
  /** Protect (and reserve) `.git` and `.toolhost` under every writable root. Default true. */
  readonly includeAlwaysProtected?: boolean;
  /**
   * Watch the walked directories (Linux inotify, in a thread of its own) so an asynchronous refresh
   * looks only at those in which something happened, instead of one `lstat` per directory. Used once
   * the index knows `minDirectories` directories (default 512; below that the look at every directory
   * costs less than asking the thread). The watcher makes a private directory `<directoryPrefix>XXXXXX`.
   * Without it, or whenever the watcher cannot vouch for having seen everything, a refresh looks at
   * every directory as before.
   */
  readonly watch?: {
    readonly directoryPrefix: string;
    readonly minDirectories?: number;
    /** The inotify queue limit to assume (default: the kernel's `max_queued_events`). For tests. */
    readonly queueLimit?: number;
  };
}

/** What one build or refresh of a {@link ProtectedPathIndex} did. */
export interface IndexUpdate {
  /** Whether the index now covers every tree completely (false: the entry budget ran out). */
  readonly complete: boolean;
  /** Directory entries read. */
  readonly entries: number;
  /** Directories whose contents changed since the previous look (refresh only). */
  readonly changedDirectories: number;
  /**
   * Directories whose change time was read: every known one without a watcher (or when it could not
   * vouch for its answer), only those with events and those not settled yet with one (the roots'
   * identities are read as well, not counted); all walked ones for a build.
   */
  readonly lookedAt: number;
}

interface DirectoryRecord {
  readonly dev: number;
  readonly ino: number;
  ctimeMs: number;
  /** The change time is so close to when it was read that a later change may carry the same value. */
  racy: boolean;
  /** Names of the subdirectories that are walked (tracked by their own records). */
  subdirectories: Set<string>;
}

interface Tree {
  readonly root: string;
  readonly writable: boolean;
}

interface Budget {
  left: number;
  used: number;
  exhausted: boolean;
  /** The walk stopped because a root cannot be listed (not because the entries ran out). */
  unlistableRoot?: boolean;
}

/**
 * Timestamps come from a coarse kernel clock (one tick, at most 10 ms on common kernels): a change
 * made within this long of the moment a directory was read may carry the very change time that was
 * recorded, so such a directory is read again by the next refresh whatever its change time says.
 */
const RACY_MS = 50;
/**
 * How long a watched index goes at most without looking at every directory anyway (a backstop for
 * what inotify does not report, such as a file system mounted over a directory from outside).
 */
const FULL_LOOK_AFTER_MS = 60_000;

/**
 * How long after starting a watcher an index waits before starting another (one is closed each time
 * it cannot vouch for what it saw; meanwhile refreshes look at every directory).
 */
const WATCHER_RESTART_MS = 30_000;

/** Entries handled between two yields to the event loop in the asynchronous forms. */
const CHUNK_ENTRIES = 2048;

function identityOf(stats: Stats): EntryIdentity {
  return { dev: stats.dev, ino: stats.ino, ctimeMs: stats.ctimeMs };
}

function lstatOrUndefined(target: string): Stats | undefined {
  try {
    return lstatSync(target);
  } catch {
    return undefined;
  }
}

/**
 * The protected and secret paths of a set of roots, kept up to date cheaply (requirements SB-4,
 * SB-5, SB-12 and issue 25's "plan once per session"): built once by a bounded walk, then refreshed
 * by looking at the change time of every directory it walked and reading again only the directories
 * that changed (a new entry, a removal or a rename changes the parent's change time, which no program
 * can set back) and walking only the directories that are new. A refresh therefore costs one `lstat`
 * per known directory plus the changes, not a walk of the whole tree.
 *
 * The walk does not follow symbolic links, does not enter `node_modules` or `.git` (below a
 * writable root, `.git` is protected as a whole), and does not enter a matched directory (protected
 * or secret as a whole). A root nested in another root is walked as its own tree only.
 *
 * Both forms exist: `buildSync`/`refreshSync` for one-off plans, and `build`/`refresh`, which yield to
 * the event loop every couple of thousand entries so a large project never blocks the host for long.
 * A build or refresh that exceeds `maxEntries` leaves the index incomplete (`complete` false): the
 * sandbox then refuses to run commands rather than run them with a partial plan (SB-12).
 */
export class ProtectedPathIndex {
  readonly #protected: CompiledList;
  readonly #secret: CompiledList;
  readonly #trees: readonly Tree[];
  readonly #maxEntries: number;
  readonly #always: readonly string[];
  readonly #protectedLiterals: ReadonlyArray<{ readonly path: string; readonly directory: boolean }>;
  readonly #protectedAbsolute: readonly string[];
  readonly #secretAbsolute: readonly string[];
  readonly #directories = new Map<string, DirectoryRecord>();
  /** Existing protected files and directories of writable roots (bound read-only). */
  readonly #readOnly = new Map<string, EntryIdentity>();
  /**
   * Directories of writable roots that cannot be listed (what is in them is unknown, and a command may
   * make a directory unlistable to hide a `.git` or a secret from the walk): bound read-only and moved
   * away like protected entries. What the index knew below one stays known (still covered or bound).
   */
  readonly #unreadable = new Map<string, EntryIdentity>();
  /** Protected entries that cannot be bound (links, sockets, fifos): tracked by identity only. */
  readonly #unbound = new Map<string, EntryIdentity>();
  /** Targets inside a writable root of protected links, by the link that named them. */
  readonly #linkTargets = new Map<string, string>();
  readonly #hidden = new Map<string, 'directory' | 'file'>();
  /** Targets inside a root of secret links, by the link that named them. */
  readonly #hiddenTargets = new Map<string, { readonly path: string; readonly kind: 'directory' | 'file' }>();
  #built = false;
  #complete = false;
  #unlistableRoot = false;
  #version = 0;
  #cached: { readonly version: number; readonly plan: ProtectedPathPlan } | undefined;
  #running: Promise<IndexUpdate> | undefined;
  #queued: Promise<IndexUpdate> | undefined;
  readonly #watchOptions: ProtectedPathIndexOptions['watch'];
  #watcher: DirectoryWatcher | undefined;
  #watcherStartedAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  /** Directories whose watch exists and was in place when their change time was last checked. */
  readonly #watched = new Set<string>();
  /** Directories every refresh looks at whatever the watcher says: not (yet) watched, or racy. */
  readonly #unsettled = new Set<string>();
  #toWatch: string[] = [];
  #toUnwatch: string[] = [];
  #fullLookAt = 0;

  constructor(options: ProtectedPathIndexOptions) {
    const caseSensitive = options.caseSensitive ?? true;
    this.#always = options.includeAlwaysProtected === false ? [] : ALWAYS_PROTECTED_NAMES;
    const writable = [...new Set(options.writableRoots)];
    const readOnly = [...new Set(options.readOnlyRoots)].filter((root) => !writable.includes(root));
    const allRoots = [...writable, ...readOnly];
    this.#protected = compileList(
      [...this.#always.map((name) => `${name}/**`), ...options.protectedPaths],
      allRoots,
      caseSensitive,
    );
    this.#secret = compileList(options.secretPaths, allRoots, caseSensitive);
    this.#protectedLiterals = this.#protected.literalAnchored;
    this.#protectedAbsolute = this.#protected.absolute;
    this.#secretAbsolute = this.#secret.absolute;
    this.#trees = [
      ...writable.map((root) => ({ root, writable: true })),
      ...readOnly.map((root) => ({ root, writable: false })),
    ];
    this.#maxEntries = options.maxEntries ?? 200_000;
    this.#watchOptions = options.watch;
  }

  /** Whether a watcher currently tells refreshes which directories to look at. */
  get watching(): boolean {
    return this.#watcher?.open === true;
  }

  /** Stops the watcher (the index keeps working, looking at every directory). */
  close(): void {
    this.#closed = true;
    this.#stopWatching();
  }

  /** Whether a build has run. */
  get built(): boolean {
    return this.#built;
  }

  /** Whether the last build or refresh covered every tree (the plan is complete). */
  get complete(): boolean {
    return this.#complete;
  }

  /** Whether the index is incomplete because a root cannot be listed (not because of the entry budget). */
  get unlistableRoot(): boolean {
    return !this.#complete && this.#unlistableRoot;
  }

  /** The entry budget of one build or refresh. */
  get maxEntries(): number {
    return this.#maxEntries;
  }

  /** Walks every tree from scratch, synchronously. */
  buildSync(): IndexUpdate {
    return drain(this.#buildSteps());
  }

  /** Walks every tree from scratch, yielding to the event loop between chunks. */
  build(): Promise<IndexUpdate> {
    return this.#exclusive(async () => this.#afterUpdate(await drainAsync(this.#buildSteps())));
  }

  /** Brings the index up to date synchronously (a build when it has none or it is incomplete). */
  refreshSync(): IndexUpdate {
    return drain(this.#built && this.#complete ? this.#refreshSteps() : this.#buildSteps());
  }

  /**
   * Brings the index up to date (a build when it has none or it is incomplete). Refreshes do not
   * overlap: a call made while one runs gets the next one, which starts after it, so the answer always
   * reflects everything that happened before the call.
   */
  refresh(): Promise<IndexUpdate> {
    return this.#exclusive(async () => {
      if (!this.#built || !this.#complete) return this.#afterUpdate(await drainAsync(this.#buildSteps()));
      const changes = await this.#collect();
      return this.#afterUpdate(await drainAsync(this.#refreshSteps(changes)));
    });
  }

  /**
   * What the watcher saw since the last refresh, or `undefined` when every directory must be looked at
   * (no watcher, one that cannot vouch for its answer, or the backstop is due).
   */
  async #collect(): Promise<DirectoryChanges | undefined> {
    const watcher = this.#watcher;
    // Not started yet (its first moments): look at everything this time, keep it.
    if (!watcher?.ready) return undefined;
    const changes = await watcher.collect();
    if (!changes || this.#watcher !== watcher) {
      this.#stopWatching();
      return undefined;
    }
    for (const directory of changes.started)
      if (this.#directories.has(directory)) this.#watched.add(directory);
    for (const directory of changes.failed) {
      this.#watched.delete(directory);
      if (this.#directories.has(directory)) this.#unsettled.add(directory);
    }
    // Watches that ended (the directory moved, went, changed itself, or was not the one read): looked
    // at by this refresh, and watched again if it is still the directory the index knows.
    for (const directory of changes.lapsed) {
      this.#watched.delete(directory);
      if (this.#directories.has(directory)) {
        this.#unsettled.add(directory);
        this.#toWatch.push(directory);
      }
    }
    if (Date.now() >= this.#fullLookAt) return undefined;
    return changes;
  }

  /** Starts or feeds the watcher after a build or refresh (asynchronous forms only). */
  #afterUpdate(update: IndexUpdate): IndexUpdate {
    if (!this.#watchOptions || this.#closed) return update;
    if (!this.#watcher?.open) {
      this.#watcher = undefined;
      const enough = this.#directories.size >= (this.#watchOptions.minDirectories ?? 512);
      const due = Date.now() - this.#watcherStartedAt >= WATCHER_RESTART_MS;
      if (!update.complete || !enough || !due) return update;
      this.#watcher = DirectoryWatcher.start(
        this.#watchOptions.directoryPrefix,
        this.#watchOptions.queueLimit,
      );
      if (!this.#watcher) return update;
      this.#watcherStartedAt = Date.now();
      this.#watched.clear();
      this.#toUnwatch = [];
      this.#toWatch = [...this.#directories.keys()];
      for (const directory of this.#toWatch) this.#unsettled.add(directory);
      this.#fullLookAt = Date.now() + FULL_LOOK_AFTER_MS;
    }
    this.#watcher.remove(this.#toUnwatch);
    // Each watch is set up on the directory that was read (its device and inode), not on whatever
    // its path names by the time the thread gets to it.
    const targets: WatchTarget[] = [];
    for (const directory of new Set(this.#toWatch)) {
      const record = this.#directories.get(directory);
      if (record) targets.push({ path: directory, dev: record.dev, ino: record.ino });
    }
    this.#watcher.add(targets);
    this.#toUnwatch = [];
    this.#toWatch = [];
    return update;
  }

  #stopWatching(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#watched.clear();
    this.#unsettled.clear();
    this.#toWatch = [];
    this.#toUnwatch = [];
  }

  #exclusive(run: () => Promise<IndexUpdate>): Promise<IndexUpdate> {
    if (!this.#running) {
      const current = run().finally(() => {
        if (this.#running === current) this.#running = undefined;
      });
      this.#running = current;
      return current;
    }
    if (!this.#queued) {
      const next = this.#running
        .catch(() => undefined)
        .then(() => {
          this.#queued = undefined;
          const current = run().finally(() => {
            if (this.#running === current) this.#running = undefined;
          });
          this.#running = current;
          return current;
        });
      this.#queued = next;
    }
    return this.#queued;
  }

  /**
   * The protected entries that exist now in the writable roots, with their identities: the files and
   * directories bound read-only and the links and other entries that cannot be bound.
   */
  protectedEntries(): ReadonlyMap<string, EntryIdentity> {
    return new Map([...this.#readOnly, ...this.#unbound, ...this.#unreadable]);
  }

  /** Whether an absolute path of a writable root matches the protected patterns. */
  isProtectedPath(target: string): boolean {
    const tree = this.#treeOf(target);
    if (!tree?.writable || target === tree.root) return false;
    const relative = path.relative(tree.root, target).split(path.sep).join('/');
    return matches(this.#protected, relative, path.basename(target));
  }

  /** Forgets a protected entry that was moved away (it is found again by the next refresh if it returns). */
  forget(target: string): void {
    if (this.#readOnly.delete(target) || this.#unbound.delete(target)) this.#version += 1;
    this.#dropDirectory(target);
  }

  /**
   * The current plan: existing protected paths to bind read-only, missing literal ones to reserve,
   * secrets to cover and directories to pin. Cached until the index changes (the missing literals
   * are checked each time: a few `lstat` calls).
   */
  plan(): ProtectedPathPlan {
    const missing = this.#missing();
    const key = this.#version;
    if (this.#cached && this.#cached.version === key) {
      return { ...this.#cached.plan, missing, pinned: this.#pinned(this.#cached.plan, missing) };
    }
    const writableRoots = this.#trees.filter((tree) => tree.writable).map((tree) => tree.root);
    const insideWritable = (target: string) =>
      writableRoots.some((root) => isInside(root, target) && target !== root);
    const insideAny = (target: string) =>
      this.#trees.some((tree) => isInside(tree.root, target) && target !== tree.root);
    const readOnly = [
      ...new Set([...this.#readOnly.keys(), ...this.#linkTargets.values(), ...this.#unreadable.keys()]),
    ]
      .filter(insideWritable)
      .sort(byDepth);
    const hidden = new Map<string, 'directory' | 'file'>(this.#hidden);
    for (const target of this.#hiddenTargets.values()) hidden.set(target.path, target.kind);
    for (const absolute of this.#secretAbsolute) {
      const kind = kindOf(absolute);
      if (kind === 'file' || kind === 'directory') hidden.set(absolute, kind);
    }
    const hiddenList = [...hidden]
      .filter(([target]) => insideAny(target))
      .map(([target, kind]) => ({ path: target, kind }))
      .sort((a, b) => byDepth(a.path, b.path));
    const base: ProtectedPathPlan = {
      readOnly,
      missing: [],
      hidden: hiddenList,
      pinned: [],
      truncated: !this.#complete,
    };
    this.#cached = { version: key, plan: base };
    return { ...base, missing, pinned: this.#pinned(base, missing) };
  }

  #pinned(plan: ProtectedPathPlan, missing: readonly MissingProtectedPath[]): string[] {
    const writableRoots = this.#trees.filter((tree) => tree.writable).map((tree) => tree.root);
    const pinned = new Set<string>();
    const targets = [
      ...plan.readOnly,
      ...missing.map((entry) => entry.path),
      ...plan.hidden.map((h) => h.path),
    ];
    for (const target of targets) {
      const root = writableRoots
        .filter((candidate) => isInside(candidate, target))
        .sort(byDepth)
        .at(-1);
      if (!root) continue;
      for (let parent = path.dirname(target); parent !== root && isInside(root, parent); ) {
        pinned.add(parent);
        const next = path.dirname(parent);
        if (next === parent) break;
        parent = next;
      }
    }
    return [...pinned].sort(byDepth);
  }

  #missing(): MissingProtectedPath[] {
    const missing = new Map<string, 'directory' | 'file'>();
    const reserve = (target: string, root: string, wantsDirectory: boolean) => {
      // The first missing component is the placeholder: creating `a/b/c` needs `a` first.
      let current = target;
      let directory = wantsDirectory || DIRECTORY_NAMES.has(path.basename(target));
      for (;;) {
        const parent = path.dirname(current);
        if (parent === current || !isInside(root, parent) || kindOf(parent) !== undefined) break;
        current = parent;
        directory = true;
      }
      if (kindOf(current) === undefined) missing.set(current, directory ? 'directory' : 'file');
    };
    for (const tree of this.#trees) {
      if (!tree.writable) continue;
      for (const name of this.#always) reserve(path.join(tree.root, name), tree.root, true);
      for (const literal of this.#protectedLiterals) {
        reserve(path.join(tree.root, ...literal.path.split('/')), tree.root, literal.directory);
      }
      for (const absolute of this.#protectedAbsolute) {
        if (isInside(tree.root, absolute) && absolute !== tree.root) reserve(absolute, tree.root, false);
      }
    }
    return [...missing]
      .map(([target, kind]) => ({ path: target, kind }))
      .sort((a, b) => byDepth(a.path, b.path));
  }

  #treeOf(target: string): Tree | undefined {
    let best: Tree | undefined;
    for (const tree of this.#trees) {
      if (isInside(tree.root, target) && (!best || tree.root.length > best.root.length)) best = tree;
    }
    return best;
  }

  #relative(tree: Tree, target: string): string {
    return target === tree.root ? '' : path.relative(tree.root, target).split(path.sep).join('/');
  }

  *#buildSteps(): Generator<void, IndexUpdate> {
    // A new walk records every directory again; a watcher is started afresh for them.
    this.#stopWatching();
    this.#directories.clear();
    this.#readOnly.clear();
    this.#unreadable.clear();
    this.#unbound.clear();
    this.#linkTargets.clear();
    this.#hidden.clear();
    this.#hiddenTargets.clear();
    this.#version += 1;
    this.#built = true;
    this.#complete = false;
    const budget: Budget = { left: this.#maxEntries, used: 0, exhausted: false };
    // Without a pattern there is nothing to look for (literal and absolute paths need no walk).
    const walk = this.#protected.matchers.length > 0 || this.#secret.matchers.length > 0;
    for (const tree of this.#trees) {
      // Absolute protected paths that exist are bound whatever the walk finds.
      if (tree.writable) {
        for (const absolute of this.#protectedAbsolute) {
          if (!isInside(tree.root, absolute) || absolute === tree.root) continue;
          const stats = lstatOrUndefined(absolute);
          if (stats && (stats.isDirectory() || stats.isFile()))
            this.#readOnly.set(absolute, identityOf(stats));
        }
      }
      if (walk) yield* this.#walk(tree, tree.root, budget);
      if (budget.exhausted) break;
    }
    this.#complete = !budget.exhausted;
    this.#unlistableRoot = budget.unlistableRoot === true;
    this.#version += 1;
    return {
      complete: this.#complete,
      entries: budget.used,
      changedDirectories: 0,
      lookedAt: this.#directories.size,
    };
  }

  *#refreshSteps(changes?: DirectoryChanges): Generator<void, IndexUpdate> {
    const budget: Budget = { left: this.#maxEntries, used: 0, exhausted: false };
    const changed: string[] = [];
    let steps = 0;
    let lookedAt = 0;
    let now = Date.now();
    const full = changes === undefined;
    if (full && this.#watcher) this.#fullLookAt = now + FULL_LOOK_AFTER_MS;
    // Every directory, or (with a watcher's answer) those with events, those not settled yet and any
    // root that is not the directory it was: a watch follows its inode, and a root replaced by a
    // rename above it (outside the roots, where nothing is watched) sends no event.
    const candidates: Iterable<string> = full
      ? this.#directories.keys()
      : new Set([...changes.changed, ...this.#unsettled, ...this.#replacedRoots()]);
    // Deleting entries while iterating a Map is safe: dropped ones are not visited.
    for (const directory of candidates) {
      const record = this.#directories.get(directory);
      if (!record) continue;
      if ((steps & 255) === 0) now = Date.now();
      lookedAt += 1;
      const stats = lstatSync(directory, { throwIfNoEntry: false });
      if (!stats?.isDirectory() || stats.ino !== record.ino || stats.dev !== record.dev) {
        // Gone or replaced: its parent changed too and is read again below (a root stays known).
        this.#dropDirectory(directory);
        if (this.#trees.some((tree) => tree.root === directory)) changed.push(directory);
        continue;
      }
      if (stats.ctimeMs !== record.ctimeMs || record.racy) {
        record.ctimeMs = stats.ctimeMs;
        record.racy = stats.ctimeMs >= now - RACY_MS;
        changed.push(directory);
      }
      // Settled: watched since before this look, and its change time can be trusted.
      if (this.#watcher && this.#watched.has(directory) && !record.racy) this.#unsettled.delete(directory);
      else if (this.#watcher) this.#unsettled.add(directory);
      if (++steps % CHUNK_ENTRIES === 0) yield;
    }
    changed.sort(byDepth);
    for (const directory of changed) {
      const tree = this.#treeOf(directory);
      if (!tree) continue;
      if (!this.#directories.has(directory)) {
        // A root that was replaced: walk it again.
        if (directory === tree.root) yield* this.#walk(tree, directory, budget);
        continue;
      }
      yield* this.#rescan(tree, directory, budget);
      if (budget.exhausted) break;
    }
    this.#complete = !budget.exhausted;
    this.#unlistableRoot = budget.unlistableRoot === true;
    if (changed.length > 0) this.#version += 1;
    return { complete: this.#complete, entries: budget.used, changedDirectories: changed.length, lookedAt };
  }

  /** Roots whose path no longer names the directory that was walked (one `lstat` each). */
  #replacedRoots(): string[] {
    const replaced: string[] = [];
    for (const tree of this.#trees) {
      const record = this.#directories.get(tree.root);
      if (!record) continue;
      const stats = lstatOrUndefined(tree.root);
      if (!stats?.isDirectory() || stats.ino !== record.ino || stats.dev !== record.dev)
        replaced.push(tree.root);
    }
    return replaced;
  }

  /** Walks `start` (a directory of `tree`) and everything new below it. */
  *#walk(tree: Tree, start: string, budget: Budget): Generator<void> {
    const stack = [start];
    let sinceYield = 0;
    while (stack.length > 0) {
      const directory = stack.pop()!;
      const now = Date.now();
      // The change time is read before the listing: a change after it shows in the next refresh.
      let stats: Stats | undefined;
      try {
        stats = lstatSync(directory);
      } catch (error) {
        // Deeper than a path can name (PATH_MAX): nothing below can be looked at, so the directory
        // holding it counts as one that cannot be listed (bound, moved away when a command changed it).
        if ((error as NodeJS.ErrnoException).code === 'ENAMETOOLONG' && directory !== tree.root) {
          if (this.#unlistable(tree, path.dirname(directory), error, budget)) return;
        }
        continue;
      }
      if (!stats.isDirectory()) continue;
      const record: DirectoryRecord = {
        dev: stats.dev,
        ino: stats.ino,
        ctimeMs: stats.ctimeMs,
        racy: stats.ctimeMs >= now - RACY_MS,
        subdirectories: new Set(),
      };
      this.#directories.set(directory, record);
      if (this.#watcher) {
        this.#toWatch.push(directory);
        this.#unsettled.add(directory);
      }
      let entries: Dirent[];
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch (error) {
        if (this.#unlistable(tree, directory, error, budget)) return;
        continue;
      }
      const relative = this.#relative(tree, directory);
      for (const entry of entries) {
        if (budget.left <= 0) {
          budget.exhausted = true;
          return;
        }
        budget.left -= 1;
        budget.used += 1;
        if (this.#evaluate(tree, directory, relative, entry) === 'descend') {
          record.subdirectories.add(entry.name);
          stack.push(path.join(directory, entry.name));
        }
      }
      sinceYield += entries.length + 1;
      if (sinceYield >= CHUNK_ENTRIES) {
        sinceYield = 0;
        yield;
      }
    }
  }

  /** Reads a known directory again: its direct matches are re-evaluated, new subdirectories walked. */
  *#rescan(tree: Tree, directory: string, budget: Budget): Generator<void> {
    const record = this.#directories.get(directory)!;
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch (error) {
      // Unlistable: what was known below it stays (covered, bound), and it is bound itself.
      if (
        (error as NodeJS.ErrnoException).code !== 'ENOENT' &&
        (error as NodeJS.ErrnoException).code !== 'ENOTDIR'
      ) {
        this.#unlistable(tree, directory, error, budget);
        return;
      }
      entries = [];
    }
    if (this.#unreadable.delete(directory)) this.#version += 1;
    this.#forgetChildren(directory);
    const relative = this.#relative(tree, directory);
    const subdirectories = new Set<string>();
    const fresh: string[] = [];
    for (const entry of entries) {
      if (budget.left <= 0) {
        budget.exhausted = true;
        return;
      }
      budget.left -= 1;
      budget.used += 1;
      if (this.#evaluate(tree, directory, relative, entry) !== 'descend') continue;
      subdirectories.add(entry.name);
      // New, or known by name but dropped (replaced: a swap of two directories keeps both names, so
      // the name alone does not say the tree below it is still the one that was walked).
      const child = path.join(directory, entry.name);
      if (!record.subdirectories.has(entry.name) || !this.#directories.has(child)) fresh.push(child);
    }
    for (const name of record.subdirectories) {
      if (!subdirectories.has(name)) this.#dropDirectory(path.join(directory, name));
    }
    record.subdirectories = subdirectories;
    this.#version += 1;
    for (const start of fresh) {
      yield* this.#walk(tree, start, budget);
      if (budget.exhausted) return;
    }
  }

  /**
   * Records a directory that exists but cannot be listed (not one that went meanwhile: its parent's
   * change shows that). In a writable tree it is bound read-only and moved away when a command changed
   * it; an unlistable root leaves the plan incomplete (nothing in it can be known). Returns whether the
   * walk must stop.
   */
  #unlistable(tree: Tree, directory: string, error: unknown, budget: Budget): boolean {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    if (directory === tree.root) {
      budget.exhausted = true;
      budget.unlistableRoot = true;
      return true;
    }
    const stats = lstatOrUndefined(directory);
    if (tree.writable && stats?.isDirectory()) {
      this.#unreadable.set(directory, identityOf(stats));
      this.#version += 1;
    }
    return false;
  }

  /** Forgets the matches directly inside `directory` (before it is read again). */
  #forgetChildren(directory: string): void {
    const direct = (target: string) => path.dirname(target) === directory;
    for (const target of [...this.#readOnly.keys()]) if (direct(target)) this.#readOnly.delete(target);
    for (const target of [...this.#unbound.keys()]) if (direct(target)) this.#unbound.delete(target);
    for (const link of [...this.#linkTargets.keys()]) if (direct(link)) this.#linkTargets.delete(link);
    for (const target of [...this.#hidden.keys()]) if (direct(target)) this.#hidden.delete(target);
    for (const link of [...this.#hiddenTargets.keys()]) if (direct(link)) this.#hiddenTargets.delete(link);
  }

  /** Forgets a directory, everything known below it, and matches inside it. */
  #dropDirectory(directory: string): void {
    const record = this.#directories.get(directory);
    if (record) {
      this.#directories.delete(directory);
      if (this.#watcher) {
        this.#toUnwatch.push(directory);
        this.#watched.delete(directory);
        this.#unsettled.delete(directory);
      }
      for (const name of record.subdirectories) this.#dropDirectory(path.join(directory, name));
    }
    const inside = (target: string) => target !== directory && isInside(directory, target);
    this.#unreadable.delete(directory);
    for (const target of [...this.#unreadable.keys()]) if (inside(target)) this.#unreadable.delete(target);
    for (const target of [...this.#readOnly.keys()]) if (inside(target)) this.#readOnly.delete(target);
    for (const target of [...this.#unbound.keys()]) if (inside(target)) this.#unbound.delete(target);
    for (const link of [...this.#linkTargets.keys()]) if (inside(link)) this.#linkTargets.delete(link);
    for (const target of [...this.#hidden.keys()]) if (inside(target)) this.#hidden.delete(target);
    for (const link of [...this.#hiddenTargets.keys()]) if (inside(link)) this.#hiddenTargets.delete(link);
    this.#version += 1;
  }

  /** Classifies one directory entry and records it when it matches. */
  #evaluate(tree: Tree, directory: string, relativeDirectory: string, entry: Dirent): 'descend' | 'done' {
    const name = entry.name;
    const relative = relativeDirectory ? `${relativeDirectory}/${name}` : name;
    const absolute = path.join(directory, name);
    const isDirectory = entry.isDirectory();
    const isLink = entry.isSymbolicLink();
    if (isDirectory && this.#trees.some((other) => other.root === absolute && other !== tree)) return 'done';
    if (matches(this.#secret, relative, name)) {
      if (isDirectory || entry.isFile()) {
        this.#hidden.set(absolute, isDirectory ? 'directory' : 'file');
        return 'done';
      }
      if (isLink) {
        // Cover what the link points at when it lies in a root (outside, the host view decides).
        const target = this.#resolve(absolute);
        if (target && this.#treeOf(target)) {
          const kind = kindOf(target);
          if (kind === 'directory' || kind === 'file')
            this.#hiddenTargets.set(absolute, { path: target, kind });
        }
        return 'done';
      }
    }
    if (tree.writable && matches(this.#protected, relative, name)) {
      const stats = lstatOrUndefined(absolute);
      if (!stats) return 'done';
      if (stats.isDirectory() || stats.isFile()) {
        this.#readOnly.set(absolute, identityOf(stats));
        return 'done';
      }
      // A link cannot be bound over (a mount follows it): its target is bound when it lies in a
      // writable root, and the link itself is tracked by identity (a replaced one is noticed).
      this.#unbound.set(absolute, identityOf(stats));
      if (stats.isSymbolicLink()) {
        const target = this.#resolve(absolute);
        const targetTree = target ? this.#treeOf(target) : undefined;
        if (target && targetTree?.writable && target !== targetTree.root) {
          const kind = kindOf(target);
          if (kind === 'directory' || kind === 'file') this.#linkTargets.set(absolute, target);
        }
      }
      return 'done';
    }
    if (isDirectory && !SKIPPED_DIRECTORIES.has(name)) return 'descend';
    return 'done';
  }

  #resolve(link: string): string | undefined {
    try {
      return realpathSync.native(link);
    } catch {
      return undefined;
    }
  }
}

function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

async function drainAsync<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await yieldToLoop();
  }
}
