import { Invalid, isDomainError } from "../errors";
import { describeFieldErrors } from "../validation";

/** Domain field names → the tools' argument names (the rest are plain snake_case). */
const ARGUMENT_NAMES: Record<string, string> = { asClient: "as_client", agentId: "agent", personaSlug: "persona" };

/**
 * A domain field's name as the tool's caller wrote it: the tool's own name for it first (a field
 * the tool takes under another name, or flattened: `successor.tmuxTarget` is trigger_handoff's
 * `successor_tmux_target`), else the shared names, else snake_case.
 */
const argumentName = (field: string, toolNames: Readonly<Record<string, string>>) =>
  Object.hasOwn(toolNames, field)
    ? toolNames[field]
    : field
        .split(".")
        .map((part) => (Object.hasOwn(ARGUMENT_NAMES, part) ? ARGUMENT_NAMES[part] : part.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)))
        .join(".");

/**
 * The text of a failed tool call: what happened and what to do, for the model reading it.
 * Domain errors carry such messages already; bad input names every field by the tool's own
 * argument names; anything unexpected is logged in full and summed up in one line, never a stack.
 */
export function toolErrorText(tool: string, error: unknown, log: (line: string) => void, toolNames: Readonly<Record<string, string>> = {}): string {
  // A field-by-field message (from parseInput) is re-said with argument names; a written one stays.
  if (error instanceof Invalid && error.message === describeFieldErrors(error.fieldErrors)) {
    const problems = Object.entries(error.fieldErrors).flatMap(([field, messages]) => {
      const name = argumentName(field, toolNames);
      return messages.map((message) => (message.includes(name) || message.startsWith('"') ? message : `${name}: ${message}`));
    });
    return `${tool} was refused: ${problems.join("; ")}. Fix the arguments and call it again.`;
  }
  if (isDomainError(error)) return error.message;
  // Some driver errors carry only a name or a code: never answer with an empty reason.
  const code = error instanceof Error && "code" in error ? ` (${String((error as { code: unknown }).code)})` : "";
  const detail = error instanceof Error ? `${error.message.split("\n")[0] || error.name}${code}` : String(error);
  log(`${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return `Baton could not finish ${tool}: ${detail}. Try again; if it keeps failing, ask the user to check the Baton server's log.`;
}
