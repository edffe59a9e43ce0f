import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'CP-[A-Z]+-\\d+',
  minIds: 16,
  minNamedFiles: 5,
});
