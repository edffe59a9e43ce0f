import { errorMessage } from '@toolhost/contracts';
import type { AuditEvent } from './audit-log.js';

/** A sink that turns a host's audit events into OpenTelemetry spans (see {@link createToolTelemetry}). */
export interface ToolTelemetry {
  /** Feed it every audit event (chain it with the host's `onAudit`). */
  readonly onAudit: (event: AuditEvent) => void;
  /** Ends open spans and flushes the exporter. Idempotent. */
  shutdown(): Promise<void>;
  /** The OTLP protocol in use. */
  readonly protocol: 'http/protobuf' | 'http/json';
}

/** Options of {@link createToolTelemetry}. */
export interface ToolTelemetryOptions {
  /** The environment the standard `OTEL_*` variables are read from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `service.name` when `OTEL_SERVICE_NAME` is not set; default `toolhost`. */
  readonly serviceName?: string;
  readonly serviceVersion?: string;
  /** Where a one-line warning goes when the configuration cannot be honoured (default stderr). */
  readonly warn?: (message: string) => void;
}

/** The events of a call that become span events (never values: the audit log is value-free). */
const CALL_EVENTS: ReadonlySet<string> = new Set([
  'call-validated',
  'permission-decided',
  'approval-requested',
  'approval-resolved',
  'hook-decided',
  'call-started',
  'result-stored',
]);

/** Audit fields kept on span events: names, decisions, codes and sizes only. */
const EVENT_FIELDS = [
  'ok',
  'code',
  'validationId',
  'schemaFingerprint',
  'schemaValidated',
  'decision',
  'source',
  'rule',
  'toolSource',
  'approved',
  'by',
  'event',
  'mode',
  'timeoutMs',
  'truncated',
  'originalBytes',
  'keptBytes',
] as const;

/**
 * Traces tool calls with OpenTelemetry when, and only when, the standard variables ask for it:
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` set, `OTEL_SDK_DISABLED` not
 * `true` and `OTEL_TRACES_EXPORTER` not `none`. Otherwise it resolves to `undefined` and loads nothing.
 *
 * One `execute_tool <tool>` span per call (kind INTERNAL) with the GenAI semantic conventions:
 * `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, plus
 * `toolhost.session.id`, `toolhost.tool.source` and the capability id a call went through; its
 * events are validation, the permission decision and its source, approvals, hooks, the start of the
 * handler and result shaping; a failure sets the status to ERROR with `error.type` = the error code.
 * A call that carried a W3C `traceparent` (an MCP client's `_meta.traceparent`) is a child of that
 * trace. Spans are built from the host's audit events, which are value-free by construction, so no
 * argument value, file content or output ever reaches a span. `OTEL_EXPORTER_OTLP_PROTOCOL` (or the
 * traces one) picks `http/protobuf` (default) or `http/json`; `grpc` is not supported and falls back
 * to `http/protobuf` with a warning. Endpoint, headers and timeouts are the exporters' own variables.
 */
export async function createToolTelemetry(
  options: ToolTelemetryOptions = {},
): Promise<ToolTelemetry | undefined> {
  const env = options.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return undefined;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return undefined;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`toolhost: ${message}\n`));
  const requested = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  )
    .trim()
    .toLowerCase();
  let protocol: 'http/protobuf' | 'http/json' = 'http/protobuf';
  if (requested === 'http/json') protocol = 'http/json';
  else if (requested !== 'http/protobuf') {
    warn(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${requested} is not supported for traces; sending http/protobuf instead`,
    );
  }
  // Loaded only now: a run without the variables never pays for (or runs) any of this.
  const [api, core, resources, traceBase, exporterModule] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter();
  const serviceName = env.OTEL_SERVICE_NAME || options.serviceName || 'toolhost';
  const provider = new traceBase.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': serviceName,
      ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
    }),
    spanProcessors: [new traceBase.BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('toolhost', options.serviceVersion);
  const propagator = new core.W3CTraceContextPropagator();
  type OpenSpan = ReturnType<typeof tracer.startSpan>;
  const open = new Map<string, OpenSpan>();
  const keyOf = (event: AuditEvent) => `${String(event.sessionId ?? '')}\u0000${String(event.callId)}`;
  let closed = false;

  const onAudit = (event: AuditEvent): void => {
    if (closed || event.callId === undefined) return;
    const key = keyOf(event);
    const at = Date.parse(event.at);
    if (event.type === 'call-received') {
      const traceparent = typeof event.traceparent === 'string' ? event.traceparent : undefined;
      const parent = traceparent
        ? propagator.extract(api.ROOT_CONTEXT, { traceparent }, api.defaultTextMapGetter)
        : api.ROOT_CONTEXT;
      const span = tracer.startSpan(
        'execute_tool',
        {
          kind: api.SpanKind.INTERNAL,
          startTime: at,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.call.id': event.callId,
            ...(event.sessionId ? { 'toolhost.session.id': String(event.sessionId) } : {}),
            ...(event.batchId ? { 'toolhost.batch.id': String(event.batchId) } : {}),
          },
        },
        parent,
      );
      open.set(key, span);
      return;
    }
    const span = open.get(key);
    if (!span) return;
    if (event.type === 'call-resolved') {
      if (event.ok === true && typeof event.toolName === 'string') {
        span.updateName(`execute_tool ${event.toolName}`);
        span.setAttribute('gen_ai.tool.name', event.toolName);
        if (typeof event.capabilityId === 'string')
          span.setAttribute('toolhost.capability.id', event.capabilityId);
        if (typeof event.via === 'string') span.setAttribute('toolhost.resolved.via', event.via);
      } else {
        span.addEvent(
          'resolution',
          { ok: false, ...(typeof event.code === 'string' ? { code: event.code } : {}) },
          at,
        );
      }
      return;
    }
    if (event.type === 'permission-decided' && typeof event.toolSource === 'string') {
      span.setAttribute('toolhost.tool.source', event.toolSource);
    }
    if (CALL_EVENTS.has(event.type)) {
      const attributes: Record<string, string | number | boolean> = {};
      for (const field of EVENT_FIELDS) {
        const value = event[field];
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          attributes[field] = value;
        }
      }
      span.addEvent(event.type, attributes, at);
      return;
    }
    if (event.type === 'call-finished') {
      open.delete(key);
      if (event.status === 'error') {
        const code = typeof event.code === 'string' ? event.code : 'EXECUTION_ERROR';
        span.setAttribute('error.type', code);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: code });
      } else {
        span.setStatus({ code: api.SpanStatusCode.OK });
      }
      if (typeof event.truncated === 'boolean')
        span.setAttribute('toolhost.result.truncated', event.truncated);
      span.end(at);
    }
  };

  let shutdown: Promise<void> | undefined;
  return {
    onAudit,
    protocol,
    shutdown() {
      shutdown ??= (async () => {
        closed = true;
        for (const span of open.values()) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'the host closed' });
          span.end();
        }
        open.clear();
        try {
          await provider.shutdown();
        } catch (error) {
          warn(`the traces could not be sent (${errorMessage(error)})`);
        }
      })();
      return shutdown;
    },
  };
}
