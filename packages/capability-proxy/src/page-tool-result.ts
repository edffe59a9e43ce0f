import { canonicalSchemaJson, errorResult, type ToolResult, textResult } from '@toolhost/contracts';
import type { SessionToolResultArguments } from './capability-arguments.js';
import { SESSION_TOOL_RESULT_ID } from './capability-ids.js';
import { sessionToolResultArgumentsSchema } from './capability-schemas.generated.js';
import { type FrontendContext, SESSION_TOOL_RESULT_DESCRIPTION } from './frontend-context.js';
import { callRecipe } from './render-capabilities.js';
import { unavailable } from './resolve-capability.js';
import { TOOL_RESULT_PAGE_DEFAULT_BYTES, TOOL_RESULT_PAGE_MAX_BYTES } from './result-store.js';

function noStore(): ToolResult {
  return errorResult(unavailable('session:tool_result has no result store in this context'));
}

/** `inspect` of `session:tool_result`: its description, bounds, schema and an example call. */
export function inspectToolResultPaging(context: FrontendContext): ToolResult {
  if (!context.resultStore) return noStore();
  return textResult(
    [
      `${SESSION_TOOL_RESULT_ID}: ${SESSION_TOOL_RESULT_DESCRIPTION}`,
      `limit_max: ${TOOL_RESULT_PAGE_MAX_BYTES}; limit_default: ${TOOL_RESULT_PAGE_DEFAULT_BYTES}`,
      `Schema (fingerprint ${context.shared.sessionSchemaHash.slice(0, 16)}): ${canonicalSchemaJson(sessionToolResultArgumentsSchema)}`,
      `Example: ${callRecipe(SESSION_TOOL_RESULT_ID, { tool_call_id: '<tool_call_id>', result_ref: '<result_ref>', offset: 0 })}`,
    ].join('\n'),
    { action: 'inspect', capabilityId: SESSION_TOOL_RESULT_ID, limitMax: TOOL_RESULT_PAGE_MAX_BYTES },
  );
}

/**
 * `call` of `session:tool_result`: validates the page request against its schema and returns one
 * page of the stored result (header line, then the text). Errors: `CAPABILITY_UNAVAILABLE` (no
 * store), `ARGUMENT_VALIDATION`, the store's `RESULT_NOT_FOUND` / `RESULT_RANGE_INVALID`.
 */
export function pageToolResult(context: FrontendContext, args: unknown): ToolResult {
  const store = context.resultStore;
  if (!store) return noStore();
  const checked = context.shared.validator.validate({
    toolName: SESSION_TOOL_RESULT_ID,
    source: 'builtin',
    schema: sessionToolResultArgumentsSchema,
    schemaHash: context.shared.sessionSchemaHash,
    arguments: args,
    invocation: { kind: 'capability', capabilityId: SESSION_TOOL_RESULT_ID },
  });
  if (!checked.ok) return errorResult(checked.error);
  const input = checked.value.arguments as unknown as SessionToolResultArguments;
  const page = store.page({
    toolCallId: input.tool_call_id,
    ...(input.result_ref === undefined ? {} : { resultRef: input.result_ref }),
    ...(input.offset === undefined ? {} : { offset: input.offset }),
    ...(input.limit === undefined ? {} : { limit: input.limit }),
  });
  if (!page.ok) return errorResult(page.error);
  const { header } = page.value;
  return textResult(page.value.text, {
    action: 'call',
    capabilityId: SESSION_TOOL_RESULT_ID,
    resultRef: header.result_ref,
    offset: header.offset,
    nextOffset: header.next_offset,
    totalBytes: header.total_bytes,
    complete: header.complete,
  });
}
