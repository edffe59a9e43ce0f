import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'CT-[A-Z]+-\\d+',
  minIds: 14,
  minNamedFiles: 4,
});
