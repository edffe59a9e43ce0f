/** Whether a path names a notebook (by its `.ipynb` extension). */
export function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb');
}
