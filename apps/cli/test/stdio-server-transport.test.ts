import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createJsonRpcIdScanner } from '../src/json-rpc-limits.js';
import { createStdioServerTransport } from '../src/stdio-server-transport.js';

function scan(text: string, chunk = text.length): unknown {
  const scanner = createJsonRpcIdScanner();
  const bytes = Buffer.from(text, 'utf8');
  for (let start = 0; start < bytes.length; start += chunk)
    scanner.feed(bytes.subarray(start, start + chunk));
  return scanner.id();
}

describe('createJsonRpcIdScanner', () => {
  const cases: [string, string, unknown][] = [
    ['a number id first', '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{}}', 42],
    [
      'a string id last, after a nested "id"',
      '{"params":{"arguments":{"id":7}},"method":"x","id":"abc"}',
      'abc',
    ],
    ['an escaped string id', '{"id":"a\\"b\\u00e9","method":"x"}', 'a"bé'],
    ['a negative fraction', '{"id": -1.5 ,"method":"x"}', -1.5],
    ['no id', '{"method":"notifications/initialized"}', null],
    ['a null id', '{"id":null,"method":"x"}', null],
    ['an object id', '{"id":{"a":1},"method":"x"}', null],
    ['a batch (array root)', '[{"id":1,"method":"x"}]', null],
    ['an id in a string value', '{"method":"say \\"id\\":5","id":6}', 6],
    ['a 300-byte id', `{"id":"${'i'.repeat(300)}","method":"x"}`, null],
    ['a key that starts with id', '{"idx":1,"id":2}', 2],
  ];
  for (const [label, text, expected] of cases) {
    it(`finds ${label}, whatever the chunking`, () => {
      for (const chunk of [1, 3, 7, text.length])
        assert.deepEqual(scan(text, chunk), expected, `chunk ${chunk}`);
    });
  }
});

describe('createStdioServerTransport', () => {
  it('answers requests past the in-flight cap busy at once and takes new ones once answers go out', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: JSONRPCMessage[] = [];
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) written.push(JSON.parse(line));
    });
    const transport = createStdioServerTransport({ stdin, stdout, maxRequestsInFlight: 4 });
    const delivered: JSONRPCMessage[] = [];
    transport.onmessage = (message) => delivered.push(message);
    await transport.start();
    const request = (id: number) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } })}\n`;
    stdin.write([1, 2, 3, 4, 5, 6].map(request).join(''));
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })}\n`,
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      delivered.map((message) => ('id' in message ? message.id : 'method' in message ? message.method : '?')),
      [1, 2, 3, 4, 'notifications/cancelled'],
      'notifications still reach the server while it is busy',
    );
    assert.deepEqual(
      written.map((message) => [
        'id' in message ? message.id : null,
        'error' in message ? message.error.code : 0,
      ]),
      [
        [5, -32000],
        [6, -32000],
      ],
    );
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    stdin.write(request(7));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(
      (delivered.at(-1) as { id?: unknown }).id,
      7,
      'a slot freed by an answer takes the next request',
    );
    await transport.close();
  });
});
