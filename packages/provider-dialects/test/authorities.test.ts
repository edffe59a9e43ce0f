import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileTools } from '../src/index.js';
import { violations } from './authority-validators.js';
import { corpusTools, MODES, scenarios } from './request-scenarios.js';

describe("requests held to the providers' own definitions", () => {
  it('every request the dialects build in the scenarios validates against its definition', () => {
    const all = scenarios();
    assert.ok(all.length >= 60, `${all.length} scenarios`);
    const failures = all.flatMap((scenario) =>
      violations(scenario.dialect, scenario.built.body).map((violation) => `${scenario.label}: ${violation}`),
    );
    assert.deepEqual(failures, []);
  });

  it('every compiled tool of the corpus validates in every dialect and mode (Responses strict and Gemini OpenAPI included)', () => {
    for (const mode of MODES) {
      const compiled = compileTools(corpusTools(), mode.options);
      const dialect = mode.options.dialect;
      for (const [index, tool] of compiled.tools.entries()) {
        const body =
          dialect === 'gemini'
            ? { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [tool] }
            : dialect === 'anthropic'
              ? { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }], tools: [tool] }
              : dialect === 'openai-chat'
                ? { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [tool] }
                : { model: 'm', input: 'hi', tools: [tool] };
        assert.deepEqual(violations(dialect, body), [], `${mode.label} tool #${index}`);
      }
      assert.ok(compiled.tools.length > 0);
    }
  });

  it('the definitions are strict enough to catch the shapes issue 22 found', () => {
    // Responses: an image without detail, and output_text parts in an input message.
    assert.notDeepEqual(
      violations('openai-responses', {
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png;base64,AA' }] }],
      }),
      [],
    );
    assert.notDeepEqual(
      violations('openai-responses', {
        model: 'm',
        input: [{ role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }],
      }),
      [],
    );
    // Gemini: a declaration without description, a lowercase or missing Schema type.
    const gemini = (declaration: object) =>
      violations('gemini', { contents: [], tools: [{ functionDeclarations: [declaration] }] });
    assert.notDeepEqual(gemini({ name: 'a' }), []);
    assert.notDeepEqual(gemini({ name: 'a', description: 'A.', parameters: { type: 'object' } }), []);
    assert.notDeepEqual(
      gemini({
        name: 'a',
        description: 'A.',
        parameters: { type: 'OBJECT', properties: { x: { anyOf: [{ type: 'STRING' }] } } },
      }),
      [],
    );
    assert.deepEqual(
      gemini({
        name: 'a',
        description: 'A.',
        parameters: { type: 'OBJECT', properties: { x: { type: 'STRING' } } },
      }),
      [],
    );
    // Anthropic: an unknown request field.
    assert.notDeepEqual(violations('anthropic', { model: 'm', max_tokens: 1, messages: [], toolz: [] }), []);
  });
});
