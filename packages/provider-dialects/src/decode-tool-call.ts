import type { JsonValue } from '@toolhost/contracts';
import type { CompiledTools } from './compile-tools.js';
import { type ArgumentChange, decodeArguments } from './decode-arguments.js';
import type { ToolCallPart } from './ir.js';
import { own, tryParseJson } from './json-utils.js';

/** A tool call mapped back to the neutral contract, ready for the host's resolver and validator. */
export interface DecodedToolCall {
  readonly id: string;
  /** The neutral tool name (unchanged when the name is not in the compiled tools). */
  readonly name: string;
  /** The name the provider used. */
  readonly wireName: string;
  /** Whether the name is one of the compiled function tools. Unknown names go to the resolver as they are. */
  readonly known: boolean;
  /**
   * The decoded arguments; the raw text when it is not JSON (the validator reports it as
   * `ARGUMENT_VALIDATION`); `{}` for empty text.
   */
  readonly arguments: JsonValue;
  /** The arguments text as the provider sent it. */
  readonly argumentsText: string;
  /** What decoding changed (null-to-absent, enum and JSON-string decoding, unwrapping). */
  readonly changes: readonly ArgumentChange[];
}

/**
 * Decodes one tool call of a parsed response: maps the name back through the compiled tools'
 * name map (a call parsed with `tools` already carries the neutral name; a wire name is mapped
 * too), parses the arguments and undoes the compile's argument changes (`decodeArguments`). Never
 * throws: malformed arguments are returned as text for the validator to reject.
 */
export function decodeToolCall(call: ToolCallPart, tools?: CompiledTools): DecodedToolCall {
  const map = tools?.nameMap;
  let name = call.name;
  let wireName = call.name;
  let known = false;
  const asNeutral = map ? own(map.toWire, call.name) : undefined;
  const asWire = map ? own(map.fromWire, call.name) : undefined;
  if (asNeutral !== undefined) {
    wireName = asNeutral;
    known = true;
  } else if (asWire !== undefined) {
    name = asWire;
    known = true;
  }
  if (known && tools?.hostedTools.includes(name)) known = false;
  const text = call.arguments;
  const parsed = text.trim() === '' ? {} : tryParseJson(text);
  if (parsed === undefined) {
    return { id: call.id, name, wireName, known, arguments: text, argumentsText: text, changes: [] };
  }
  const decoding = tools ? own(tools.decoding, wireName) : undefined;
  const decoded = decodeArguments(parsed, decoding);
  return {
    id: call.id,
    name,
    wireName,
    known,
    arguments: decoded.arguments,
    argumentsText: text,
    changes: decoded.changes,
  };
}
