import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type DialectName, getDialect, type ModelResponse, type StreamEvent } from '../src/index.js';
import { testPath } from './helpers.js';

const root = testPath('fixtures', 'recorded');
const expected = JSON.parse(readFileSync(`${root}/expected.json`, 'utf8')) as Record<string, unknown>;

function outcome(response: ModelResponse) {
  return {
    stopReason: response.stopReason,
    rawStopReason: response.rawStopReason,
    text: response.message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(''),
    calls: response.message.content.flatMap((part) =>
      part.type === 'tool-call' ? [{ id: part.id, name: part.name, arguments: part.arguments }] : [],
    ),
    usage: response.usage,
  };
}

function parse(dialect: DialectName, file: string): ModelResponse {
  const text = readFileSync(`${root}/${file}`, 'utf8');
  let n = 0;
  const options = { generateId: () => `generated-${n++}` };
  if (file.endsWith('.json')) {
    const result = getDialect(dialect).parseResponse(JSON.parse(text), options);
    assert.ok(result.ok, file);
    return result.value;
  }
  const parser = getDialect(dialect).createStreamParser(options);
  const events: StreamEvent[] = [];
  for (const line of text.split('\n')) if (line.trim() !== '') events.push(...parser.push({ data: line }));
  events.push(...parser.end());
  const last = events.at(-1);
  assert.equal(last?.type, 'finish', file);
  return (last as { response: ModelResponse }).response;
}

const DIRS: Record<string, DialectName> = { anthropic: 'anthropic', gemini: 'gemini' };

describe('recorded provider traffic', () => {
  const files = Object.keys(DIRS).flatMap((dir) =>
    readdirSync(`${root}/${dir}`).map((file) => `${dir}/${file}`),
  );

  it('every recorded fixture has an expected outcome, and every expected outcome a fixture', () => {
    assert.deepEqual([...files].sort(), Object.keys(expected).sort());
  });

  for (const file of files) {
    it(`parses ${file} to its expected neutral outcome`, () => {
      const dialect = DIRS[file.split('/')[0]!]!;
      assert.deepEqual(outcome(parse(dialect, file)), expected[file]);
    });
  }

  it('the body and the stream of each recorded scenario agree on the stop reason and the calls', () => {
    const stems = new Set(files.map((file) => file.replace(/\.(json|chunks\.txt)$/, '')));
    for (const stem of stems) {
      const dialect = DIRS[stem.split('/')[0]!]!;
      const body = outcome(parse(dialect, `${stem}.json`));
      const stream = outcome(parse(dialect, `${stem}.chunks.txt`));
      assert.equal(stream.stopReason, body.stopReason, stem);
      assert.deepEqual(
        stream.calls.map(({ name, arguments: args }) => ({ name, args })),
        body.calls.map(({ name, arguments: args }) => ({ name, args })),
        stem,
      );
    }
  });
});
