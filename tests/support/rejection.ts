import { expect } from "vitest";

/** What `promise` rejects with, checked to be a `type` (a promise that resolves fails the test there). */
export async function rejectionOf<T extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}
