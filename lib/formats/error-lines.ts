import { Invalid, isDomainError } from "../errors";
import { fieldProblem } from "../validation";

/**
 * A domain error as the lines a command-line user reads: one problem per line, each naming its
 * field path once (fieldProblem), or the message. Anything else is a bug and is rethrown with its stack.
 */
export function errorLines(error: unknown): string[] {
  if (!isDomainError(error)) throw error;
  if (error instanceof Invalid && Object.keys(error.fieldErrors).length > 0) {
    return Object.entries(error.fieldErrors).flatMap(([field, messages]) => messages.map((message) => fieldProblem(field, message)));
  }
  return [error.message];
}
