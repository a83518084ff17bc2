import "server-only";
import { isDomainError } from "../errors";
import { closeDatabase } from "../database";
import { usageError } from "./args";

export type Verbs = Record<string, (args: string[]) => Promise<number>>;

/**
 * `baton <command> <verb> …` (token, webhook): runs the verb, which reads its arguments and then
 * makes the database ready (ensureMigrated) before it uses it: its --help or a bad argument stores
 * nothing, and waits for no busy or absent database. An unknown verb prints the usage (exit 2); a
 * domain error prints its message (exit 1).
 */
export async function runVerb(command: string, usage: string, verbs: Verbs, args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === "--help" || verb === "-h") {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const run = verb && Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
  if (!run) return usageError(command, verb ? `unknown verb "${verb}"` : `give ${Object.keys(verbs).join(", ")}`, usage);
  try {
    return await run(rest);
  } catch (error) {
    if (!isDomainError(error)) throw error;
    process.stderr.write(`baton ${command}: ${error.message}\n`);
    return 1;
  } finally {
    await closeDatabase();
  }
}
