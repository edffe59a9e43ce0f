import path from 'node:path';
import { describeRequirementGate } from '../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: 'DOC-\\d+',
  minIds: 2,
  minNamedFiles: 1,
});
