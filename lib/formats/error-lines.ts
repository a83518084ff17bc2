import { Invalid, isDomainError } from "../errors";

/**
 * A domain error as the lines a command-line user reads: one `field.path: message` per problem,
 * or the message. Anything else is a bug and is rethrown with its stack.
 */
export function errorLines(error: unknown): string[] {
  if (!isDomainError(error)) throw error;
  if (error instanceof Invalid && Object.keys(error.fieldErrors).length > 0) {
    return Object.entries(error.fieldErrors).flatMap(([field, messages]) => messages.map((message) => `${field}: ${message}`));
  }
  return [error.message];
}
