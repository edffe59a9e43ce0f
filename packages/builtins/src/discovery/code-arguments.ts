// Argument types of the syntax-tree tools (code_index, delete_symbol). The JSDoc here is what the
// model reads as each parameter's description, so each description is one line.
// `pnpm --filter @toolhost/builtins gen:schemas` turns these types into src/code-schemas.generated.ts.

/** A kind of definition (Go's func, var and const are accepted for function, variable and constant; type also matches struct, interface, enum, union and trait). */
export type SymbolKindArgument =
  | 'function'
  | 'method'
  | 'constructor'
  | 'class'
  | 'interface'
  | 'struct'
  | 'enum'
  | 'union'
  | 'trait'
  | 'type'
  | 'module'
  | 'namespace'
  | 'variable'
  | 'constant'
  | 'field'
  | 'property'
  | 'macro'
  | 'func'
  | 'var'
  | 'const';

/** Arguments of `code_index`. */
export interface CodeIndexArguments {
  /** symbols: find definitions whose name matches query (exact, prefix, word starts or fuzzy; all when query is absent); outline: every definition of the file at path; definition: where query (a name or Container.name) is defined. */
  action: 'symbols' | 'outline' | 'definition';
  /**
   * The name to look for (symbols, definition); Container.name narrows to one type's member.
   * @minLength 1
   * @maxLength 256
   */
  query?: string;
  /** A directory to search (default: the project root) or one file; required for outline. */
  path?: string;
  /** Only definitions of this kind (func, var and const are Go's words for function, variable and constant; type also matches struct, interface, enum, union and trait). */
  kind?: SymbolKindArgument;
  /**
   * Most definitions to return. Default 50 (outline 300).
   * @TJS-type integer
   * @minimum 1
   * @maximum 1000
   */
  limit?: number;
}

/** Arguments of `delete_symbol`. */
export interface DeleteSymbolArguments {
  /**
   * The source file to edit, relative to the project root (Go, TypeScript, JavaScript, Python, Rust, Java, C, C++).
   * @minLength 1
   */
  path: string;
  /**
   * The definition to delete: a name, or Container.name for a member (Go methods as Type.Method or (*Type).Method).
   * @minLength 1
   * @maxLength 256
   */
  symbol: string;
  /** Only a definition of this kind, to choose between definitions of one name (func, var and const are Go's words for function, variable and constant; type also matches struct, interface, enum, union and trait). */
  kind?: SymbolKindArgument;
}
