import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
