/**
 * The message of a caught value: `error.message` for an `Error`, else `String(error)`. For the
 * `catch (error)` sites that put a cause into their own message.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
