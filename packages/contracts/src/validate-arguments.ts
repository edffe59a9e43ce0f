import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalSchemaJson, sha256Hex } from './canonicalize-schema.js';
import { ToolhostError } from './errors.js';
import { isJsonObject, type JsonObject } from './json.js';
import { jsonDepthExceeds, MAX_SCHEMA_DEPTH } from './json-depth.js';
import { compileLinearRegExp } from './linear-regexp.js';
import type { Result } from './result.js';
import { boundedText } from './text.js';
import { utf8BoundaryBefore } from './utf8-prefix.js';
import type { ToolInvocation, ToolSource } from './tool.js';

/** At most this many violations are listed. */
export const MAX_ARGUMENT_VIOLATIONS = 8;
/** An argument-validation message (as the model sees it) is at most this many UTF-8 bytes. */
export const MAX_ARGUMENT_ERROR_BYTES = 4096;

/** One value-free violation: where, which keyword, what was expected. */
export interface ArgumentViolation {
  /** JSON pointer into the arguments, `/` for the root. */
  readonly path: string;
  readonly keyword: string;
  readonly expected: string;
}

/** Options of {@link ArgumentValidator.validate}. */
export interface ValidateArgumentsOptions {
  readonly toolName: string;
  readonly source: ToolSource;
  /** The tool's (preferably canonical) input schema. */
  readonly schema: JsonObject;
  /** Full SHA-256 hex of the canonical schema bytes, when the caller already has it (a registry does). */
  readonly schemaHash?: string;
  /** The supplied arguments: an object, a JSON string, or empty / `null` (meaning `{}`). */
  readonly arguments: unknown;
  /** How the call reached the tool; default direct. */
  readonly invocation?: ToolInvocation;
}

/** Arguments that passed validation. */
export interface ValidatedArguments {
  readonly arguments: Record<string, unknown>;
  /** False when the schema of an `mcp` / `dynamic` tool did not compile and validation was skipped. */
  readonly schemaValidated: boolean;
}

/** Validates tool arguments against cached compiled schemas. */
export interface ArgumentValidator {
  /**
   * Validates one call's arguments. Never coerces, fills defaults or unwraps. Failures are
   * `ARGUMENT_VALIDATION` (value-free, at most 8 violations, at most 4096 bytes, signature
   * `argument_validation:<tool>:<fp16>:<first keyword>`) or, for a built-in whose schema does not
   * compile, `HOST_CONFIGURATION` with keyword `schema`.
   */
  validate(options: ValidateArgumentsOptions): Result<ValidatedArguments, ToolhostError>;
  /** How many compiled schemas are cached. */
  readonly cacheSize: number;
}

/** Options of {@link createArgumentValidator}. */
export interface ArgumentValidatorOptions {
  /** Compiled schemas kept (least recently used evicted); default 4096. */
  readonly maxCacheEntries?: number;
}

type Engine = Ajv | Ajv2019 | Ajv2020;

interface CompiledSchema {
  readonly validate: ValidateFunction | undefined;
  /** The schema nests deeper than {@link MAX_SCHEMA_DEPTH}: never compiled, every call refused. */
  readonly tooDeep?: true;
  readonly engine: Engine | undefined;
  readonly compiled: object | undefined;
  /** A plain object schema (no combinators or `$ref` at the root) without an `arguments` property. */
  readonly wrapperHintEligible: boolean;
  /** The root declares an object `arguments` (an envelope such as use_capability's): undeclared keys belong inside it. */
  readonly envelope: boolean;
}

/** Parses raw arguments: empty, `null` or the text `null` mean `{}`; text must be exactly one JSON value. */
export function parseArguments(raw: unknown): Result<unknown, ArgumentViolation> {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  const text = raw.trim();
  if (text === '' || text === 'null') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: { path: '/', keyword: 'json', expected: 'one valid JSON value (an object)' } };
  }
}

/** Creates a validator with its own compiled-schema cache. */
export function createArgumentValidator(options: ArgumentValidatorOptions = {}): ArgumentValidator {
  const maxEntries = options.maxCacheEntries ?? 4096;
  const cache = new Map<string, CompiledSchema>();
  const hashes = new WeakMap<object, string>();
  let engines: { draft2020: Ajv2020; draft2019: Ajv2019; draft07: Ajv } | undefined;

  function getEngines() {
    // Formats are annotations in 2020-12 unless a schema opts into assertion; unknown keywords are
    // allowed because third-party schemas carry them; `$id`s are not registered so two MCP servers
    // that reuse one `$id` cannot collide.
    const ajvOptions = {
      allErrors: true,
      strict: false,
      coerceTypes: false,
      useDefaults: false,
      removeAdditional: false,
      validateFormats: false,
      addUsedSchema: false,
      verbose: true,
      logger: false,
      // `pattern` and `patternProperties` of third-party schemas run on model-supplied values on
      // the host's thread: with the linear-time engine, never V8's backtracking one.
      code: { regExp: linearPatternEngine },
    } as const;
    if (!engines) {
      const ajv = loadAjv();
      engines = {
        draft2020: new ajv.Ajv2020(ajvOptions),
        draft2019: new ajv.Ajv2019(ajvOptions),
        draft07: new ajv.Ajv(ajvOptions),
      };
    }
    return engines;
  }

  function hashOf(schema: JsonObject, given: string | undefined): string | undefined {
    if (given) return given;
    let hash = hashes.get(schema);
    if (!hash) {
      // Canonicalising refuses a schema nested past the limit; such a schema has no hash.
      if (jsonDepthExceeds(schema, MAX_SCHEMA_DEPTH)) return undefined;
      hash = sha256Hex(canonicalSchemaJson(schema));
      hashes.set(schema, hash);
    }
    return hash;
  }

  function compile(schema: JsonObject): CompiledSchema {
    // ajv compiles recursively: a schema past the depth limit would overflow the stack (and the
    // catch below would then dispatch third-party calls unvalidated). Refuse it before compiling.
    if (jsonDepthExceeds(schema, MAX_SCHEMA_DEPTH)) {
      return {
        validate: undefined,
        engine: undefined,
        compiled: undefined,
        wrapperHintEligible: false,
        envelope: false,
        tooDeep: true,
      };
    }
    const all = getEngines();
    const { $schema: declared, ...rest } = schema;
    const wrapperHintEligible =
      (rest.type === undefined || rest.type === 'object') &&
      !(
        'anyOf' in rest ||
        'oneOf' in rest ||
        'allOf' in rest ||
        '$ref' in rest ||
        'not' in rest ||
        'if' in rest
      ) &&
      !(isJsonObject(rest.properties) && 'arguments' in rest.properties);
    const envelope = isJsonObject(rest.properties) && isJsonObject(rest.properties.arguments);
    const candidates: Engine[] = [];
    if (typeof declared === 'string') {
      if (declared.includes('2020-12')) candidates.push(all.draft2020);
      else if (declared.includes('2019-09')) candidates.push(all.draft2019);
      else if (/draft-0[4-7]/.test(declared)) candidates.push(all.draft07);
      else candidates.push(all.draft2020, all.draft07);
    } else {
      candidates.push(all.draft2020, all.draft07);
    }
    for (const engine of candidates) {
      const compiled = structuredClone(rest);
      try {
        return { validate: engine.compile(compiled), engine, compiled, wrapperHintEligible, envelope };
      } catch {
        // try the next draft
      }
    }
    return { validate: undefined, engine: undefined, compiled: undefined, wrapperHintEligible, envelope };
  }

  function compiledFor(schema: JsonObject, hash: string): CompiledSchema {
    let entry = cache.get(hash);
    if (entry) {
      // Refresh recency only when the cache is under pressure; a Map keeps insertion order.
      if (cache.size >= maxEntries) {
        cache.delete(hash);
        cache.set(hash, entry);
      }
      return entry;
    }
    entry = compile(schema);
    cache.set(hash, entry);
    if (cache.size > maxEntries) {
      const oldest = cache.keys().next().value as string;
      const evicted = cache.get(oldest);
      cache.delete(oldest);
      if (evicted?.engine && evicted.compiled) evicted.engine.removeSchema(evicted.compiled);
    }
    return entry;
  }

  return {
    validate(options) {
      const hash = hashOf(options.schema, options.schemaHash);
      if (hash === undefined) return tooDeep(options.toolName, 'unknown');
      const fingerprint = hash.slice(0, 16);
      const invocation = options.invocation ?? { kind: 'direct' };
      const parsed = parseArguments(options.arguments);
      if (!parsed.ok) return failure(options.toolName, fingerprint, [parsed.error], invocation, undefined);
      const value = parsed.value;
      if (!isJsonObject(value)) {
        return failure(
          options.toolName,
          fingerprint,
          [{ path: '/', keyword: 'type', expected: 'a JSON object of named parameters' }],
          invocation,
          undefined,
        );
      }
      const entry = compiledFor(options.schema, hash);
      if (entry.tooDeep) return tooDeep(options.toolName, fingerprint);
      if (!entry.validate) {
        if (options.source === 'builtin' || options.source === 'hosted') {
          return {
            ok: false,
            error: new ToolhostError({
              code: 'HOST_CONFIGURATION',
              message: `host configuration error: tool "${boundedText(options.toolName)}" has an invalid argument schema (schema fingerprint ${fingerprint}); execution was not dispatched; the host schema must be fixed`,
              recovery: null,
              signature: `argument_validation:${options.toolName}:${fingerprint}:schema`,
              details: {
                toolName: options.toolName,
                schemaFingerprint: fingerprint,
                category: 'schema',
                remoteDispatched: false,
              },
            }),
          };
        }
        // A third-party schema that does not compile is not the model's fault: dispatch unvalidated.
        return { ok: true, value: { arguments: value, schemaValidated: false } };
      }
      // ajv's validate is a type guard; call it as a plain predicate so `value` keeps its type below.
      const validate = entry.validate as (data: unknown) => boolean;
      let refused: RefusedPattern | undefined;
      const check = (data: unknown): boolean => {
        try {
          return validate(data);
        } catch (error) {
          if (!(error instanceof RefusedPattern)) throw error;
          refused = error;
          return false;
        }
      };
      let valid: boolean;
      try {
        valid = check(value);
      } catch (error) {
        // A recursive schema ($ref to itself) walks the data as deep as it goes: arguments nested
        // tens of thousands of levels overflow the stack. That is the call's fault, not a crash.
        if (!(error instanceof RangeError)) throw error;
        return failure(
          options.toolName,
          fingerprint,
          [
            {
              path: '/',
              keyword: 'depth',
              expected: 'arguments nested less deeply (they exceed what the host validates)',
            },
          ],
          invocation,
          undefined,
        );
      }
      if (valid) return { ok: true, value: { arguments: value, schemaValidated: true } };
      if (refused !== undefined) {
        return failure(
          options.toolName,
          fingerprint,
          [
            {
              path: '/',
              keyword: 'pattern',
              expected: `a value the host can check, but a pattern of this tool's schema cannot be run safely: ${refused.message}. The host does not run such patterns on model-supplied values, so this call cannot be validated or sent; the tool's schema must change`,
            },
          ],
          invocation,
          undefined,
        );
      }
      const violations = violationsOf(entry.validate.errors ?? []);
      let wrapperHint = false;
      if (entry.wrapperHintEligible) {
        const keys = Object.keys(value);
        const inner = value.arguments;
        wrapperHint = keys.length === 1 && keys[0] === 'arguments' && isJsonObject(inner) && check(inner);
      }
      // Keys a caller put on an envelope that belong to what it calls: say where they go instead.
      const misplaced =
        entry.envelope &&
        violations.some(
          (violation) => violation.path === '/' && violation.keyword === 'additionalProperties',
        );
      return failure(
        options.toolName,
        fingerprint,
        violations,
        invocation,
        wrapperHint ? 'hint' : misplaced ? 'envelope' : undefined,
      );
    },
    get cacheSize() {
      return cache.size;
    },
  };
}

/** Thrown by a refused pattern's `test`, so validation stops and says why (see linearPatternEngine). */
class RefusedPattern extends Error {}

/**
 * ajv's regex engine (`code.regExp`): patterns run with contracts' linear-time engine. A pattern
 * that is not valid JavaScript throws, as `new RegExp` would (the schema then does not compile). One
 * that needs backtracking (look-around, backreferences) or is too large compiles to a matcher whose
 * `test` throws {@link RefusedPattern}: only calls whose values reach that keyword are refused, with
 * the reason, and every other keyword of the schema still applies.
 */
const linearPatternEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = compileLinearRegExp(pattern, flags);
    if (compiled.ok) return compiled.value;
    if (compiled.error.reason === 'syntax') throw new SyntaxError(compiled.error.problem);
    const problem = compiled.error.problem;
    return {
      test(): boolean {
        throw new RefusedPattern(problem);
      },
      toString: () => `/${pattern}/${flags} (refused)`,
    };
  },
  { code: 'linearPatternEngine' },
);

interface AjvClasses {
  readonly Ajv: typeof Ajv;
  readonly Ajv2019: typeof Ajv2019;
  readonly Ajv2020: typeof Ajv2020;
}

let ajvClasses: AjvClasses | undefined;

/**
 * Loads ajv on the first compile. Its three drafts cost about 60 ms to import, which every process
 * that only lists tools (`toolhost tools`) would otherwise pay at start-up; ajv is CommonJS, so a
 * synchronous require keeps `validate` synchronous.
 */
function loadAjv(): AjvClasses {
  if (!ajvClasses) {
    const require = createRequire(import.meta.url);
    ajvClasses = {
      Ajv: (require('ajv') as { Ajv: typeof Ajv }).Ajv,
      Ajv2019: (require('ajv/dist/2019.js') as { Ajv2019: typeof Ajv2019 }).Ajv2019,
      Ajv2020: (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020,
    };
  }
  return ajvClasses;
}

const defaultValidator = createArgumentValidator();

/**
 * The process-wide validator behind {@link validateArguments}. Hosts and proxies created per session
 * share it, so ajv's engines are built and each schema is compiled once per process; compiled
 * schemas are keyed by schema hash, so sharers never see each other's tools through it.
 */
export function sharedArgumentValidator(): ArgumentValidator {
  return defaultValidator;
}

/** Validates with the process-wide shared validator; see {@link ArgumentValidator.validate}. */
export function validateArguments(
  options: ValidateArgumentsOptions,
): Result<ValidatedArguments, ToolhostError> {
  return defaultValidator.validate(options);
}

/** A schema past the depth limit: refused for every source (an MCP tool's is never dispatched unvalidated). */
function tooDeep(toolName: string, fingerprint: string): { ok: false; error: ToolhostError } {
  const name = boundedText(toolName);
  return {
    ok: false,
    error: new ToolhostError({
      code: 'HOST_CONFIGURATION',
      message: `tool "${name}" has an input schema nested deeper than ${MAX_SCHEMA_DEPTH} levels (the limit for tool schemas); execution was not dispatched`,
      recovery: "use another tool; the tool's schema must be flattened by whoever provides it",
      signature: `argument_validation:${toolName}:${fingerprint}:schema_depth`,
      details: {
        toolName,
        schemaFingerprint: fingerprint,
        category: 'schema',
        reason: 'schema_too_deep',
        limit: MAX_SCHEMA_DEPTH,
        remoteDispatched: false,
      },
    }),
  };
}

function failure(
  toolName: string,
  fingerprint: string,
  violations: readonly ArgumentViolation[],
  invocation: ToolInvocation,
  wrapperHint: 'hint' | 'envelope' | undefined,
): { ok: false; error: ToolhostError } {
  const firstKeyword = violations[0]?.keyword ?? 'schema';
  const shown = violations.slice(0, MAX_ARGUMENT_VIOLATIONS);
  const name = boundedText(toolName);
  const signature = `argument_validation:${toolName}:${fingerprint}:${firstKeyword}`;
  const lines = [
    `argument validation failed for "${name}" (id ${boundedText(signature)}; schema fingerprint ${fingerprint}; remote_dispatched=false)`,
    ...shown.map((violation) => `- ${violation.path}: ${violation.keyword}; expected ${violation.expected}`),
  ];
  if (violations.length > shown.length) lines.push(`- (${violations.length - shown.length} more not shown)`);
  if (wrapperHint === 'hint') {
    lines.push(
      'Hint: the only key supplied is `arguments` and its contents match the schema; remove the redundant `arguments` wrapper and pass its contents directly.',
    );
  }
  if (wrapperHint === 'envelope') {
    lines.push(
      `The keys to remove are not parameters of "${name}" itself: the parameters of the capability you call go inside its \`arguments\` object, for example use_capability(action="call", capability_id="<id>", arguments={...}).`,
    );
  } else if (invocation.kind === 'capability') {
    const id = boundedText(invocation.capabilityId);
    lines.push(
      `Put the parameters of "${name}" inside \`arguments\` of the use_capability call: use_capability(action="call", capability_id="${id}", arguments={...}). To see its schema, call use_capability(action="inspect", capability_id="${id}").`,
    );
  } else {
    lines.push(`Put the parameters of "${name}" at the top level of the call's arguments object.`);
  }
  lines.push(
    'Nothing was executed; correct the parameters and call again. Normal permission checks still apply.',
  );
  const message = capModelText(lines.join('\n'), 'ARGUMENT_VALIDATION: ');
  return {
    ok: false,
    error: new ToolhostError({
      code: 'ARGUMENT_VALIDATION',
      message,
      recovery: null,
      signature,
      details: {
        toolName,
        schemaFingerprint: fingerprint,
        remoteDispatched: false,
        violations: shown.map(({ path, keyword }) => ({ path, keyword })),
      },
    }),
  };
}

/** Cuts a message so `prefix + message` is at most 4096 UTF-8 bytes, ending in `[truncated]` when cut. */
function capModelText(message: string, prefix: string): string {
  const budget = MAX_ARGUMENT_ERROR_BYTES - Buffer.byteLength(prefix);
  if (Buffer.byteLength(message) <= budget) return message;
  const marker = '\n[truncated]';
  const bytes = Buffer.from(message, 'utf8');
  const end = utf8BoundaryBefore(bytes, budget - Buffer.byteLength(marker));
  return bytes.subarray(0, end).toString('utf8') + marker;
}

function boundedList(items: readonly unknown[], max = 256): string {
  let out = '';
  for (const item of items) {
    const text = typeof item === 'string' ? item : JSON.stringify(item);
    const piece = text.length > 64 ? `${text.slice(0, 61)}...` : text;
    const next = out ? `${out}, ${piece}` : piece;
    if (next.length > max) return `${out}, ...`;
    out = next;
  }
  return out;
}

function describeBranch(schema: unknown): string {
  if (!isJsonObject(schema)) return schema === false ? 'nothing' : 'any value';
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  if ('const' in schema) return 'a constant';
  if (Array.isArray(schema.enum)) return 'an enumerated value';
  if ('$ref' in schema) return 'a referenced schema';
  return 'a schema';
}

/** Turns ajv errors into value-free violations: combinator children folded into their parent, `required` merged. */
function violationsOf(errors: readonly ErrorObject[]): ArgumentViolation[] {
  const combinators = errors
    .filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
    .map((error) => `${error.schemaPath}/`);
  const out: ArgumentViolation[] = [];
  const requiredAt = new Map<
    string,
    { violation: { path: string; keyword: string; expected: string }; names: string[] }
  >();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (combinators.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    const path = error.instancePath === '' ? '/' : error.instancePath;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      const name = String(params.missingProperty);
      const existing = requiredAt.get(path);
      if (existing) {
        existing.names.push(name);
        existing.violation.expected = `required properties: ${boundedList(existing.names, 512)}`;
      } else {
        const violation = {
          path,
          keyword: 'required',
          expected: `required properties: ${boundedList([name], 512)}`,
        };
        requiredAt.set(path, { violation, names: [name] });
        out.push(violation);
      }
      continue;
    }
    out.push({ path, keyword: error.keyword, expected: expectationOf(error, params) });
  }
  return out;
}

function expectationOf(error: ErrorObject, params: Record<string, unknown>): string {
  const schema = error.schema as unknown;
  switch (error.keyword) {
    case 'type':
      return `type ${Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)}`;
    case 'additionalProperties':
      return `only declared properties; remove: ${boundedList([params.additionalProperty])}`;
    case 'unevaluatedProperties':
      return `only declared properties; remove: ${boundedList([params.unevaluatedProperty])}`;
    case 'enum':
      return `one of: ${boundedList(Array.isArray(params.allowedValues) ? params.allowedValues : [])}`;
    case 'const':
      return `the constant ${boundedList([params.allowedValue])}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(params.comparison)} ${String(params.limit)}`;
    case 'multipleOf':
      return `a multiple of ${String(params.multipleOf)}`;
    case 'minLength':
      return `at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `at most ${String(params.limit)} characters`;
    case 'minItems':
      return `at least ${String(params.limit)} items`;
    case 'maxItems':
      return `at most ${String(params.limit)} items`;
    case 'minProperties':
      return `at least ${String(params.limit)} properties`;
    case 'maxProperties':
      return `at most ${String(params.limit)} properties`;
    case 'uniqueItems':
      return 'items without duplicates';
    case 'pattern':
      return `a string matching the pattern ${boundedList([String(params.pattern)])}`;
    case 'format':
      return `a string in format ${String(params.format)}`;
    case 'anyOf':
    case 'oneOf': {
      const branches = Array.isArray(schema) ? schema : [];
      const kinds = boundedList([...new Set(branches.map(describeBranch))]);
      const how = error.keyword === 'oneOf' ? 'exactly one' : 'at least one';
      return `a value matching ${how} of ${branches.length} alternatives (${kinds})`;
    }
    case 'not':
      return 'a value that does not match the excluded schema';
    case 'dependentRequired':
    case 'dependencies':
      return `property ${boundedList([params.property])} also requires: ${boundedList([params.missingProperty])}`;
    case 'propertyNames':
      return `property names matching the schema (invalid: ${boundedList([params.propertyName])})`;
    case 'contains':
      return 'an array containing a matching item';
    case 'false schema':
      return 'no value here';
    default:
      return `a value satisfying "${error.keyword}"`;
  }
}
