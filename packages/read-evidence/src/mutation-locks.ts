/**
 * In-process mutation locks keyed by string (a real path or a file identity). A task holding several
 * keys takes them in sorted order, so two tasks that need overlapping sets cannot deadlock.
 */
export interface MutationLocks {
  /**
   * Runs `task` while holding every key (duplicates ignored), releasing them when it settles, whether
   * it resolved or threw. Waiters are served first come, first served.
   */
  withLocks<T>(keys: readonly string[], task: () => Promise<T>): Promise<T>;
  /** Number of keys currently held or awaited. */
  readonly pending: number;
}

/** Creates an independent set of mutation locks. */
export function createMutationLocks(): MutationLocks {
  const tails = new Map<string, Promise<void>>();

  async function acquire(key: string): Promise<() => void> {
    const previous = tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => held);
    tails.set(key, tail);
    await previous;
    return () => {
      release();
      if (tails.get(key) === tail) tails.delete(key);
    };
  }

  return {
    get pending() {
      return tails.size;
    },
    async withLocks<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
      const ordered = [...new Set(keys)].sort();
      const releases: Array<() => void> = [];
      try {
        for (const key of ordered) releases.push(await acquire(key));
        return await task();
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
  };
}

let shared: MutationLocks | undefined;

/**
 * The process-wide mutation locks. Every agent's file tools in one process should share them (the
 * default of the builtins), so two agents cannot interleave writes to one file.
 */
export function sharedMutationLocks(): MutationLocks {
  shared ??= createMutationLocks();
  return shared;
}
