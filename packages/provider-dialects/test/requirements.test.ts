import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'PD-[A-Z]+-\\d+',
  minIds: 6,
  minNamedFiles: 2,
});
