import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link createBoundedEventStore}. */
export interface BoundedEventStoreOptions {
  /** Events kept for replay, oldest dropped first; default 1000. */
  readonly maxEvents?: number;
  /** Bytes of serialised events kept, oldest dropped first; default 4 MiB. */
  readonly maxBytes?: number;
}

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

/**
 * The event store of one MCP session's Streamable HTTP transport: with it the transport opens every
 * event stream with a priming event (an id and the `retry` interval) and replays what a client missed
 * when it reconnects with `Last-Event-ID`. Bounded by count and bytes, in memory only (a session's
 * events do not outlive its process). Event ids are `<stream id>_<sequence>`, so the stream of a
 * replayed id is known without a lookup.
 */
export function createBoundedEventStore(options: BoundedEventStoreOptions = {}): EventStore {
  const maxEvents = options.maxEvents ?? 1000;
  const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
  const events: StoredEvent[] = [];
  let bytes = 0;
  let sequence = 0;
  const index = new Map<string, number>();
  let dropped = 0;
  const trim = () => {
    while (events.length > 0 && (events.length > maxEvents || bytes > maxBytes)) {
      const first = events.shift() as StoredEvent;
      bytes -= first.bytes;
      index.delete(first.id);
      dropped++;
    }
  };
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}_${++sequence}`;
      const size = Buffer.byteLength(JSON.stringify(message));
      index.set(id, dropped + events.length);
      events.push({ id, streamId, message, bytes: size });
      bytes += size;
      trim();
      return id;
    },
    async getStreamIdForEventId(eventId) {
      const position = index.get(eventId);
      return position === undefined ? undefined : events[position - dropped]?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const position = index.get(lastEventId);
      if (position === undefined) return '';
      const stored = events[position - dropped] as StoredEvent;
      for (const event of events.slice(position - dropped + 1)) {
        // A priming event stores an empty message; there is nothing to replay for it.
        if (event.streamId === stored.streamId && Object.keys(event.message).length > 0) {
          await send(event.id, event.message);
        }
      }
      return stored.streamId;
    },
  };
}
