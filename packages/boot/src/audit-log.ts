import { closeSync, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

/** The event names, one per decision and step of a call (noun-verb). */
export type AuditEventType =
  | 'host-created'
  | 'host-restored'
  | 'config-resolved'
  | 'sessions-pruned'
  | 'session-opened'
  | 'session-resumed'
  | 'session-closed'
  | 'session-persist-failed'
  | 'batch-received'
  | 'call-received'
  | 'call-resolved'
  | 'call-validated'
  | 'permission-decided'
  | 'approval-requested'
  | 'approval-resolved'
  | 'call-started'
  | 'call-finished'
  | 'result-stored'
  | 'batch-finished'
  | 'loop-guard-noticed'
  | 'notes-drained'
  | 'subagent-started'
  | 'subagent-finished'
  | 'goal-round-started'
  | 'hook-decided'
  | 'extension-decided'
  | 'plan-approved'
  | 'host-closed';

/**
 * One audit record. Value-free by construction: it carries names, codes, decisions, resolved paths
 * and sizes, never argument values, file contents or tool output.
 */
export interface AuditEvent {
  readonly type: AuditEventType;
  /** ISO time. */
  readonly at: string;
  /** Increases by one per event of a host. */
  readonly seq: number;
  /** The session the event belongs to (absent on host-level events). */
  readonly sessionId?: string;
  readonly callId?: string;
  readonly batchId?: string;
  readonly toolName?: string;
  readonly [key: string]: unknown;
}

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  /** Called synchronously with every event; a throwing callback is reported once on stderr and ignored. */
  readonly onAudit?: ((event: AuditEvent) => void) | undefined;
  /** Appends every event as one JSON line (file mode 0600, parent created). */
  readonly file?: string | undefined;
}

/** Where a host's audit events go. */
export interface AuditLog {
  emit(type: AuditEventType, fields?: Omit<AuditEvent, 'type' | 'at' | 'seq'>): void;
  /** Flushes and closes the file. */
  close(): Promise<void>;
  readonly enabled: boolean;
}

/**
 * Creates the audit sink of a host. The JSONL file is written through one append stream, so events
 * keep their order without a synchronous write per event; `close()` waits until they are on disk.
 */
export function createAuditLog(options: AuditLogOptions): AuditLog {
  let seq = 0;
  let stream: WriteStream | undefined;
  let streamError: Error | undefined;
  let callbackFailed = false;
  if (options.file) {
    mkdirSync(dirname(options.file), { recursive: true, mode: 0o700 });
    // Opened synchronously so a path that cannot be written fails here, not on the first event.
    closeSync(openSync(options.file, 'a', 0o600));
    stream = createWriteStream(options.file, { flags: 'a', mode: 0o600 });
    stream.on('error', (error) => {
      streamError ??= error;
    });
  }
  const enabled = stream !== undefined || options.onAudit !== undefined;
  return {
    enabled,
    emit(type, fields = {}) {
      if (!enabled) return;
      const event: AuditEvent = { type, at: new Date().toISOString(), seq: ++seq, ...fields };
      if (options.onAudit) {
        try {
          options.onAudit(event);
        } catch (error) {
          if (!callbackFailed) {
            callbackFailed = true;
            process.stderr.write(
              `toolhost: the onAudit callback threw (further failures are not reported): ${String(error)}\n`,
            );
          }
        }
      }
      if (stream && !streamError) stream.write(`${JSON.stringify(event)}\n`);
    },
    async close() {
      if (!stream) return;
      const current = stream;
      stream = undefined;
      await new Promise<void>((resolve) => current.end(resolve));
      if (streamError) throw streamError;
    },
  };
}
