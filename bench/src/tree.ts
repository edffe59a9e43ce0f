import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Regular files and their total size under a directory, without following symbolic links. */
export function countTree(root: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const stack = [root];
  while (stack.length > 0) {
    const directory = stack.pop()!;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) {
        files += 1;
        bytes += lstatSync(path).size;
      }
    }
  }
  return { files, bytes };
}
