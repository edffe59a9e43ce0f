import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createToolTelemetry } from '../src/telemetry.js';

describe('createToolTelemetry', () => {
  it('is off (undefined, nothing loaded) unless an OTLP endpoint variable is set, and honours OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none', async () => {
    assert.equal(await createToolTelemetry({ env: {} }), undefined);
    assert.equal(
      await createToolTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' },
      }),
      undefined,
    );
    assert.equal(
      await createToolTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_TRACES_EXPORTER: 'none' },
      }),
      undefined,
    );
  });

  it('falls back to http/protobuf with a warning for an unsupported protocol', async () => {
    const warnings: string[] = [];
    const telemetry = await createToolTelemetry({
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      },
      warn: (message) => warnings.push(message),
    });
    assert.ok(telemetry);
    assert.equal(telemetry.protocol, 'http/protobuf');
    assert.match(warnings[0] ?? '', /grpc is not supported/);
    // No span was started, so shutting down sends nothing (port 9 is never contacted).
    await telemetry.shutdown();
  });
});
