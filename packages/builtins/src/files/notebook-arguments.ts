// Argument types of notebook_edit. The JSDoc here is what the model reads as each parameter's
// description, so each description is one line. `pnpm --filter @toolhost/builtins gen:schemas`
// turns these types into src/notebook-schemas.generated.ts.

/** Arguments of `notebook_edit`. */
export interface NotebookEditArguments {
  /**
   * The Jupyter notebook (.ipynb) to edit, relative to the project root.
   * @minLength 1
   */
  path: string;
  /**
   * The id of the cell to replace or delete, or to insert after (read_file of the notebook shows each cell's number and id).
   * @minLength 1
   * @maxLength 64
   */
  cell_id?: string;
  /**
   * The 0-based number of the cell to replace or delete, or to insert after (-1: insert at the start).
   * @TJS-type integer
   * @minimum -1
   */
  cell_number?: number;
  /** The new source of the cell (replace, insert); a code cell's outputs and execution count are cleared when its source is replaced. */
  new_source?: string;
  /** The type of the new cell (required for insert); for replace, converts the cell to this type. */
  cell_type?: 'code' | 'markdown' | 'raw';
  /** replace (default) the selected cell, insert a new cell after it (at the end when no cell is selected), or delete it. */
  edit_mode?: 'replace' | 'insert' | 'delete';
}
