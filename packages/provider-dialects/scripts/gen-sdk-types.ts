// Regenerates test/sdk-types.generated.ts (the scenario request bodies as literals that
// `satisfies` the official SDK request types; `tsc` checks them in the package typecheck):
//   pnpm --filter @toolhost/provider-dialects gen:sdk-types
import { writeFileSync } from 'node:fs';
import { testPath } from '../test/helpers.js';
import { sdkTypesSource } from '../test/sdk-types-source.js';

writeFileSync(testPath('sdk-types.generated.ts'), sdkTypesSource());
console.log('wrote test/sdk-types.generated.ts');
