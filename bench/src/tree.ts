import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The regular files under a directory (not following symbolic links) and their total size. */
export function listTree(root: string): { files: string[]; bytes: number } {
  const files: string[] = [];
  let bytes = 0;
  const stack = [root];
  while (stack.length > 0) {
    const directory = stack.pop()!;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) {
        files.push(path);
        bytes += lstatSync(path).size;
      }
    }
  }
  return { files, bytes };
}

/** How many regular files a directory holds, and their total size. */
export function countTree(root: string): { files: number; bytes: number } {
  const { files, bytes } = listTree(root);
  return { files: files.length, bytes };
}
