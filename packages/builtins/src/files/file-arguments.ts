// Argument types of the file tools (read_file, write_file, edit_file, multi_edit, delete_range,
// move_file). The JSDoc here is what the model reads as each parameter's description, so each
// description is one line. `pnpm --filter @toolhost/builtins gen:schemas` turns these types into
// src/file-schemas.generated.ts.

/** Arguments of `read_file`. */
export interface ReadFileArguments {
  /**
   * The file to read, relative to the project root.
   * @minLength 1
   */
  path: string;
  /**
   * Number of lines to skip before the window (0-based); printed line numbers are 1-based, so offset=10 starts at line 11. Default 0.
   * @TJS-type integer
   * @minimum 0
   */
  offset?: number;
  /**
   * Most lines to return. Default 2000; a window is also cut at 8 MiB of text.
   * @TJS-type integer
   * @minimum 1
   */
  limit?: number;
  /** Navigation hint only: "inspect" (default), "range" (requires offset or limit), "full" (still one bounded window; nothing requires reading the rest). */
  intent?: 'inspect' | 'range' | 'full';
  /** Legacy continuation hint: a line offset such as "120" or "offset=120", used when offset is absent; prefer offset. */
  cursor?: string;
}

/** Arguments of `write_file`. */
export interface WriteFileArguments {
  /**
   * The file to create or replace, relative to the project root; missing parent directories are created.
   * @minLength 1
   */
  path: string;
  /** The complete new content of the file. */
  content: string;
}

/** Arguments of `edit_file`. */
export interface EditFileArguments {
  /**
   * The file to edit, relative to the project root.
   * @minLength 1
   */
  path: string;
  /**
   * The exact text to replace, copied from the file without read_file's line-number prefixes; it must occur exactly once, so include enough surrounding lines to make it unique.
   * @minLength 1
   */
  old_string: string;
  /** The text to put in its place (empty to delete it). */
  new_string: string;
}

/** One replacement: old_string becomes new_string. */
export interface MultiEditStep {
  /**
   * The exact text to replace in the result of the previous steps; it must occur exactly once unless replace_all is true.
   * @minLength 1
   */
  old_string: string;
  /** The text to put in its place (empty to delete it). */
  new_string: string;
  /** Replace every occurrence instead of requiring exactly one. Default false. */
  replace_all?: boolean;
}

/** Arguments of `multi_edit`. */
export interface MultiEditArguments {
  /**
   * The file to edit, relative to the project root.
   * @minLength 1
   */
  path: string;
  /**
   * Edits applied in order, each to the result of the previous one; either all apply or the file is left untouched.
   * @minItems 1
   * @maxItems 100
   */
  edits: MultiEditStep[];
}

/** Arguments of `delete_range`. */
export interface DeleteRangeArguments {
  /**
   * The file to edit, relative to the project root.
   * @minLength 1
   */
  path: string;
  /**
   * A whole line of the file (without its line-number prefix) that starts the range; it must occur exactly once.
   * @minLength 1
   */
  start_anchor: string;
  /**
   * A whole line of the file that ends the range; it must occur exactly once, at or after the start anchor.
   * @minLength 1
   */
  end_anchor: string;
  /** Delete the anchor lines too (true, the default) or only the lines between them (false). */
  inclusive?: boolean;
}

/** Arguments of `move_file`. */
export interface MoveFileArguments {
  /**
   * The file to move or rename, relative to the project root.
   * @minLength 1
   */
  source: string;
  /**
   * Its new path, relative to the project root; it must not exist yet (nothing is ever replaced) and missing parent directories are created.
   * @minLength 1
   */
  destination: string;
}
