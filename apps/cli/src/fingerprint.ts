import { createHash } from 'node:crypto';

/**
 * The fingerprint of a JSON value as printed: the first 16 hex characters of SHA-256 of
 * `JSON.stringify(value)`. For the neutral surface this equals the host's `surfaceFingerprint()`.
 */
export function jsonFingerprint(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
