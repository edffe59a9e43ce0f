// Argument types of the discovery tools (ls, glob, grep, view_image). The JSDoc here is what the model
// reads as each parameter's description, so each description is one line (the generator keeps line
// breaks). `pnpm --filter @toolhost/builtins gen:schemas` turns these types into
// src/discovery-schemas.generated.ts.

/** Arguments of `ls`. */
export interface LsArguments {
  /** Directory to list, relative to the project root. Default: the project root. */
  path?: string;
  /** List the whole tree below the directory, shallowest entries first; honours .gitignore and skips node_modules. Default false. */
  recursive?: boolean;
  /**
   * Most entries to return. Default 200.
   * @TJS-type integer
   * @minimum 1
   * @maximum 2000
   */
  limit?: number;
}

/** Arguments of `glob`. */
export interface GlobArguments {
  /**
   * Glob relative to `path`: "*" and "?" stay within one name, "**" spans any number of directories (zero too), "{a,b}" lists alternatives; a pattern without "/" matches file names at any depth.
   * @minLength 1
   */
  pattern: string;
  /** Directory to search in, relative to the project root. Default: the project root. */
  path?: string;
  /**
   * Most paths to return. Default 200.
   * @TJS-type integer
   * @minimum 1
   * @maximum 2000
   */
  limit?: number;
  /** Order of the results: "path" (default) or "mtime" (most recently modified first). */
  sort?: 'path' | 'mtime';
  /** Let wildcards match names that start with a dot. Default false. */
  include_hidden?: boolean;
  /** Also return files excluded by .gitignore/.ignore files or inside node_modules. Default false. */
  no_ignore?: boolean;
}

/** Arguments of `grep`. */
export interface GrepArguments {
  /**
   * Regular expression in ripgrep (Rust) syntax, which is JavaScript syntax without look-around or backreferences; plain text when `literal` is true.
   * @minLength 1
   */
  pattern: string;
  /** File or directory to search, relative to the project root. Default: the project root. */
  path?: string;
  /**
   * Only search files matching this glob: "*.ts" or "*.{ts,tsx}" match names at any depth, a glob with "/" matches paths relative to `path`; a leading "!" excludes instead.
   * @minLength 1
   */
  glob?: string;
  /**
   * Only search files of this ripgrep type: js, ts, py, rust, go, java, c, cpp, cs, ruby, php, md, json, yaml, toml, html, css, sh, sql, ...
   * @minLength 1
   */
  type?: string;
  /** Match case-insensitively. Default false. */
  ignore_case?: boolean;
  /** Treat `pattern` as plain text, not a regular expression. Default false. */
  literal?: boolean;
  /** Let matches span lines; "." then also matches a line break. Default false. */
  multiline?: boolean;
  /**
   * Lines of context to show before and after each match (content mode). Default 0.
   * @TJS-type integer
   * @minimum 0
   * @maximum 10
   */
  context?: number;
  /** "content" (default): matching lines as `path:line: text`; "files_with_matches": paths of matching files; "count": `path:count` per matching file. */
  output_mode?: 'content' | 'files_with_matches' | 'count';
  /**
   * Most results to return: matching lines in content mode, files in the other modes. Default 200.
   * @TJS-type integer
   * @minimum 1
   * @maximum 2000
   */
  limit?: number;
  /** Also search hidden files and directories (names starting with a dot). Default false. */
  include_hidden?: boolean;
  /** Also search files excluded by .gitignore/.ignore files or inside node_modules. Default false. */
  no_ignore?: boolean;
}

/** Arguments of `view_image`. */
export interface ViewImageArguments {
  /**
   * Image file to view (PNG, JPEG, GIF or WebP, at most 3 MiB), relative to the project root.
   * @minLength 1
   */
  path: string;
}
