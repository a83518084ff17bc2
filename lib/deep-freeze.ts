/**
 * Freezes `value` and everything it holds, for objects handed out again and again (remembered
 * reads): a caller that tried to change one would throw instead of changing every later answer.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
