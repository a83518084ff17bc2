import { Invalid, isDomainError } from "../errors";

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The text of a failed tool call: what happened and what to do, for the model reading it.
 * Domain errors carry such messages already; bad input names every field in the tool's own
 * snake_case; anything unexpected is logged in full and summed up in one line, never a stack.
 */
export function toolErrorText(tool: string, error: unknown, log: (line: string) => void): string {
  if (error instanceof Invalid && Object.keys(error.fieldErrors).length > 0) {
    const problems = Object.entries(error.fieldErrors).flatMap(([field, messages]) =>
      messages.map((message) => (message.includes(snakeCase(field)) || message.startsWith('"') ? message : `${snakeCase(field)}: ${message}`)),
    );
    return `${tool} was refused: ${problems.join("; ")}. Fix the arguments and call it again.`;
  }
  if (isDomainError(error)) return error.message;
  const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
  log(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return `Baton could not finish ${tool}: ${detail}. Try again; if it keeps failing, ask the user to check the Baton server's log.`;
}
