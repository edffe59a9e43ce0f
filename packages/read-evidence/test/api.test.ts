import path from 'node:path';
import { describeApiGate } from '../../../scripts/api-gate.js';

describeApiGate(path.resolve(import.meta.dirname, '..'));
