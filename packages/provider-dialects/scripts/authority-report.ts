// Counts violations of the providers' own request definitions (test/authorities/) for the
// request scenarios and the compiled corpus tools, per dialect and mode:
//   pnpm --filter @toolhost/provider-dialects authority:report
import { compileTools } from '../src/index.js';
import { violations } from '../test/authority-validators.js';
import { corpusTools, MODES, scenarios } from '../test/request-scenarios.js';

const all = scenarios();
for (const mode of MODES) {
  const dialect = mode.options.dialect;
  const built = all.filter((scenario) => scenario.label.startsWith(`${mode.label}: `));
  const badRequests = built.filter((scenario) => violations(dialect, scenario.built.body).length > 0).length;
  const compiled = compileTools(corpusTools(), mode.options);
  const tools = compiled.tools.flatMap((tool) =>
    dialect === 'gemini' && Array.isArray(tool.functionDeclarations)
      ? tool.functionDeclarations.map((declaration) => ({ functionDeclarations: [declaration] }))
      : [tool],
  );
  const bodyWith = (tool: object) =>
    dialect === 'gemini'
      ? { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [tool] }
      : dialect === 'anthropic'
        ? { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }], tools: [tool] }
        : dialect === 'openai-chat'
          ? { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [tool] }
          : { model: 'm', input: 'hi', tools: [tool] };
  const badTools = tools.filter((tool) => violations(dialect, bodyWith(tool)).length > 0).length;
  console.log(
    `${mode.label.padEnd(24)} requests ${badRequests}/${built.length} violating, tools ${badTools}/${tools.length} violating`,
  );
}
