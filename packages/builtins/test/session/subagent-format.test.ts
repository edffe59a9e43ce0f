import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  fairShares,
  renderSubagentResults,
  type SubagentStatus,
  type SubagentSummary,
} from '../../src/session/subagent-format.js';

const BUDGET = 32 * 1024 - 1024;

function summary(answer: string, index: number, status: SubagentStatus = 'completed'): SubagentSummary {
  return {
    reference: `sa_${index.toString(16).padStart(24, '0')}`,
    description: `part ${index} of the investigation`,
    status,
    retryable: status !== 'completed',
    readOnly: true,
    answer,
    answerSha256: createHash('sha256').update(answer).digest('hex'),
    runs: 1,
  };
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('fairShares', () => {
  it('gives short demands what they need and splits the rest equally (max-min fair)', () => {
    assert.deepEqual(fairShares([100, 10_000, 10_000], 6_100, 16_384), [100, 3_000, 3_000]);
    assert.deepEqual(fairShares([5, 5], 100, 16_384), [5, 5]);
    assert.deepEqual(fairShares([50_000], 100_000, 16_384), [16_384]);
    assert.deepEqual(fairShares([10, 10], -5, 100), [0, 0]);
  });

  it('never hands out more than is available, nor more than a demand or the cap', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 200_000 }), { minLength: 1, maxLength: 8 }),
        fc.nat({ max: 40_000 }),
        fc.integer({ min: 1, max: 20_000 }),
        (demands, available, cap) => {
          const shares = fairShares(demands, available, cap);
          assert.ok(shares.reduce((sum, share) => sum + share, 0) <= available);
          shares.forEach((share, index) => {
            assert.ok(share <= Math.min(demands[index]!, cap));
          });
          // Fair: a demand that got less than it asked got at least as much as any other share.
          const max = Math.max(...shares);
          shares.forEach((share, index) => {
            if (share < Math.min(demands[index]!, cap)) assert.ok(max - share <= 1, `${shares}`);
          });
        },
      ),
    );
  });
});

describe('renderSubagentResults', () => {
  it('fits four 20 KB answers into the budget with four fair previews and a read-on call each', () => {
    const answers = [0, 1, 2, 3].map((index) => `answer ${index}: ${'é'.repeat(10_000)}`);
    const text = renderSubagentResults(
      answers.map((answer, index) => summary(answer, index)),
      { budgetBytes: BUDGET, previewMaxBytes: 16_384 },
    );
    assert.ok(bytes(text) <= BUDGET, `${bytes(text)} bytes`);
    const shown = [...text.matchAll(/--- answer \(first (\d+) of (\d+) bytes\) ---/g)].map((match) =>
      Number(match[1]),
    );
    assert.equal(shown.length, 4);
    assert.ok(Math.max(...shown) - Math.min(...shown) <= 2, `fair shares: ${shown}`);
    assert.ok(Math.min(...shown) > 6_000, 'most of the budget goes to previews');
    for (let index = 0; index < 4; index++) {
      const reference = summary('', index).reference;
      assert.match(text, new RegExp(`Subagent reference: ${reference}`));
      assert.match(
        text,
        new RegExp(
          `read them with use_capability\\(action="call", capability_id="tool:read_subagent_result", arguments=\\{"reference":"${reference}","offset":\\d+\\}\\)`,
        ),
      );
    }
    assert.match(text, /^4 subagents: 4 completed\./);
  });

  it('shows a short answer whole and gives the others what it does not need', () => {
    const text = renderSubagentResults([summary('short', 0), summary('x'.repeat(60_000), 1)], {
      budgetBytes: BUDGET,
      previewMaxBytes: 16_384,
    });
    assert.match(text, /--- answer \(complete\) ---\nshort/);
    assert.match(text, /--- answer \(first 16384 of 60000 bytes\) ---/);
  });

  it('states status, retryable and how to continue a partial subagent, and an empty answer', () => {
    const text = renderSubagentResults([summary('', 0, 'partial')], {
      budgetBytes: BUDGET,
      previewMaxBytes: 16_384,
    });
    assert.match(text, /status: partial; retryable: true; read_only: true/);
    assert.match(text, /task with continue_from="sa_0{24}"/);
    assert.match(text, /--- no answer ---/);
  });

  it('stays within the budget for any mix of answers, statuses and multi-byte text', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            answer: fc.oneof(
              fc.string({ maxLength: 200 }),
              fc.string({ unit: 'grapheme', maxLength: 3_000 }),
            ),
            repeat: fc.integer({ min: 1, max: 40 }),
            status: fc.constantFrom<SubagentStatus>('completed', 'partial', 'failed', 'cancelled'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (children) => {
          const summaries = children.map((child, index) =>
            summary(child.answer.repeat(child.repeat), index, child.status),
          );
          const text = renderSubagentResults(summaries, { budgetBytes: BUDGET, previewMaxBytes: 16_384 });
          assert.ok(bytes(text) <= BUDGET, `${bytes(text)} bytes`);
          assert.ok(!text.includes('\uFFFD') || summaries.some((entry) => entry.answer.includes('\uFFFD')));
        },
      ),
      { numRuns: 60 },
    );
  });
});
