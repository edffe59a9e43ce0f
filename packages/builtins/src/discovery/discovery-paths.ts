/**
 * Orders two names: case-insensitively first (so `README.md` sits between `package.json` and
 * `src`), then by UTF-16 code units, which makes the order total and the same on every machine
 * (no locale tables involved).
 */
export function compareNames(left: string, right: string): number {
  const foldedLeft = left.toLowerCase();
  const foldedRight = right.toLowerCase();
  if (foldedLeft !== foldedRight) return foldedLeft < foldedRight ? -1 : 1;
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

/**
 * Orders two `/`-separated paths name by name with {@link compareNames}, so a directory's entries
 * stay together and the order equals a depth-first walk that visits siblings in name order.
 */
export function comparePaths(left: string, right: string): number {
  if (left === right) return 0;
  const leftNames = left.split('/');
  const rightNames = right.split('/');
  const shared = Math.min(leftNames.length, rightNames.length);
  for (let index = 0; index < shared; index += 1) {
    const order = compareNames(leftNames[index]!, rightNames[index]!);
    if (order !== 0) return order;
  }
  return leftNames.length - rightNames.length;
}

/** Joins a real absolute directory and a relative `/`-separated path without normalising anything. */
export function joinRealPath(directory: string, relative: string): string {
  if (relative === '') return directory;
  return directory.endsWith('/') ? `${directory}${relative}` : `${directory}/${relative}`;
}

/**
 * Sorts paths in {@link comparePaths} order; for long lists, as it splits and folds each path once
 * instead of on every comparison.
 */
export function sortPaths(paths: readonly string[]): string[] {
  const keyed = paths.map((original) => {
    const names = original.split('/');
    return { original, names, folded: names.map((name) => name.toLowerCase()) };
  });
  keyed.sort((left, right) => {
    const shared = Math.min(left.names.length, right.names.length);
    for (let index = 0; index < shared; index += 1) {
      const foldedLeft = left.folded[index]!;
      const foldedRight = right.folded[index]!;
      if (foldedLeft !== foldedRight) return foldedLeft < foldedRight ? -1 : 1;
      const nameLeft = left.names[index]!;
      const nameRight = right.names[index]!;
      if (nameLeft !== nameRight) return nameLeft < nameRight ? -1 : 1;
    }
    return left.names.length - right.names.length;
  });
  return keyed.map((entry) => entry.original);
}
