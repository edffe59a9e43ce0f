// Argument types of web_fetch. The JSDoc here is what the model reads as each parameter's
// description, so each description is one line. `pnpm --filter @toolhost/builtins gen:schemas`
// turns these types into src/web-schemas.generated.ts.

/** Arguments of `web_fetch`. */
export interface WebFetchArguments {
  /**
   * The http:// or https:// URL to fetch.
   * @minLength 1
   * @maxLength 8192
   */
  url: string;
  /**
   * Most bytes of the (decompressed) response body to read. Default 1048576 (1 MiB).
   * @TJS-type integer
   * @minimum 1024
   * @maximum 10485760
   */
  max_bytes?: number;
}
