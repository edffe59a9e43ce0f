/**
 * What a compile step did. `dropped`: a keyword or value removed; `rewritten`: replaced by an
 * equivalent or looser form; `inlined`: a `$ref` replaced by its target; `moved-to-description`:
 * a constraint the provider cannot take stated in the description instead (the host still
 * validates against the original schema); `merged`: combinator branches merged into one object;
 * `wrapped`: a non-object root wrapped in an object; `added`: a keyword the provider requires;
 * `stringified`: non-string enum values sent as strings (decoded back); `renamed`: a tool name
 * changed; `strict-fallback`: a tool compiled non-strict because strict mode cannot express it;
 * `quarantined`: a tool left out of the request because it cannot be made valid.
 */
export type ReportAction =
  | 'dropped'
  | 'rewritten'
  | 'inlined'
  | 'moved-to-description'
  | 'merged'
  | 'wrapped'
  | 'added'
  | 'stringified'
  | 'renamed'
  | 'strict-fallback'
  | 'quarantined';

/**
 * One lossy step of a compile. `tool` is the neutral tool name (`*` for the tool set as a whole),
 * `pointer` a JSON Pointer into the tool's input schema (`''` is the root), `keyword` the JSON
 * Schema keyword (or `name`, `tools`) the step is about.
 */
export interface ReportEntry {
  readonly tool: string;
  readonly pointer: string;
  readonly action: ReportAction;
  readonly keyword: string;
  readonly reason: string;
}

/** Collects report entries for one tool, dropping exact duplicates. */
export class Reporter {
  readonly entries: ReportEntry[] = [];
  readonly #seen = new Set<string>();

  constructor(readonly tool: string) {}

  add(pointer: string, action: ReportAction, keyword: string, reason: string): void {
    const key = JSON.stringify([pointer, action, keyword, reason]);
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.entries.push({ tool: this.tool, pointer, action, keyword, reason });
  }
}
