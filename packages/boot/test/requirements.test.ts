import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'BT-[A-Z]+-\\d+',
  minIds: 25,
  minNamedFiles: 8,
});
