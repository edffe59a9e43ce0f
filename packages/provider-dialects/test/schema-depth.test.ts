import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SCHEMA_DEPTH as CONTRACT_MAX_SCHEMA_DEPTH } from '@toolhost/contracts';
import { compileTools, DIALECT_NAMES, DialectError } from '../src/index.js';
import { MAX_SCHEMA_DEPTH } from '../src/schema-depth.js';

function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 0; level < levels; level++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('compileTools (schema depth limit)', () => {
  it('keeps the same depth limit as the contract', () => {
    assert.equal(MAX_SCHEMA_DEPTH, CONTRACT_MAX_SCHEMA_DEPTH);
  });

  for (const dialect of DIALECT_NAMES) {
    it(`refuses a schema nested 20,000 levels for ${dialect} with CONFIG_INVALID naming the tool and the limit, not a stack overflow`, () => {
      const tools = [
        { name: 'fine', description: 'ok', inputSchema: { type: 'object', properties: {} } },
        { name: 'deep', description: 'd', inputSchema: nestedSchema(20_000) },
      ];
      assert.throws(
        () => compileTools(tools as never, { dialect }),
        (error: unknown) => {
          assert.ok(DialectError.isInstance(error), String(error));
          assert.equal(error.code, 'CONFIG_INVALID');
          assert.equal(error.details.reason, 'schema_too_deep');
          assert.equal(error.details.index, 1);
          assert.match(error.message, /tool "deep"/);
          assert.match(error.message, new RegExp(`deeper than ${MAX_SCHEMA_DEPTH} levels`));
          return true;
        },
      );
      // A schema within the limit still compiles.
      const fits = compileTools([{ name: 'ok', description: 'o', inputSchema: nestedSchema(20) }] as never, {
        dialect,
      });
      assert.equal(fits.report.filter((entry) => entry.action === 'quarantined').length, 0);
    });
  }
});
