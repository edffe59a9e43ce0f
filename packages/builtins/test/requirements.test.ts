import path from 'node:path';
import { describeRequirementGate } from '../../../scripts/requirements-gate.js';

describeRequirementGate({
  packageDir: path.resolve(import.meta.dirname, '..'),
  id: '(?:ST|SH|PS|JO|JK|LG|READ|WRITE|EDIT|MEDIT|DEL|MOVE|FILE|DISC|GLOB|GREP|LS)-\\d+',
  minIds: 60,
  minNamedFiles: 10,
});
