import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'JOB-[A-Z]+-\\d+|SB-MAC-\\d+|SB-\\d+|PS-\\d+',
  minIds: 40,
  minNamedFiles: 0,
});
