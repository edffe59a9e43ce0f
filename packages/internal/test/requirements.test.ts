import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'INT-[A-Z0-9]+-\\d+',
  minIds: 11,
  minNamedFiles: 3,
});
