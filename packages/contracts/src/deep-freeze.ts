/**
 * Freezes a value and everything reachable from it (objects and arrays), in place, and returns it.
 * Already frozen parts are not walked again, so shared frozen subtrees cost nothing.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
