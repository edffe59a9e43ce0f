import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelTool } from '@toolhost/contracts';
import { createParser } from 'eventsource-parser';
import type { SseEvent, StreamEvent, StreamParser } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Absolute path of a file under test/. */
export function testPath(...segments: string[]): string {
  return join(here, ...segments);
}

/** A recorded response body. */
export function readFixture(dialect: string, name: string): unknown {
  return JSON.parse(readFileSync(testPath('fixtures', dialect, name), 'utf8'));
}

/** A recorded SSE body split into events by eventsource-parser, as the agent loop will do. */
export function readSse(dialect: string, name: string, chunkSize = 7): SseEvent[] {
  const text = readFileSync(testPath('fixtures', dialect, name), 'utf8');
  return parseSseText(text, chunkSize);
}

/** Parses SSE text fed in small chunks (so events split across network reads are exercised). */
export function parseSseText(text: string, chunkSize = 7): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, data: event.data }) });
  for (let index = 0; index < text.length; index += chunkSize)
    parser.feed(text.slice(index, index + chunkSize));
  parser.reset({ consume: true });
  return events;
}

/** Feeds every event, then ends the stream; returns everything emitted. */
export function runStream(parser: StreamParser, events: readonly SseEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const event of events) out.push(...parser.push(event));
  out.push(...parser.end());
  return out;
}

/** The representative tool set (shapes real MCP servers send). */
export function representativeTools(): ModelTool[] {
  return JSON.parse(readFileSync(testPath('fixtures', 'representative-tools.json'), 'utf8')) as ModelTool[];
}

/** Freezes a value deeply, so a test fails if code under test mutates it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
