import "server-only";
import { isDomainError } from "../../errors";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { closeHandoff } from "../../formats";
import { domainErrorText } from "../failure";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton close <hof id> [--archive]

Closes a handoff: deletes its entries and marks it completed (closing again changes nothing).
--archive first keeps the whole thread as a context bundle in the artifact store and prints
its artifact id.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("close", USAGE, args, { allowPositionals: true, options: { archive: { type: "boolean" } } });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1) return usageError("close", "give one handoff ID", USAGE);
  try {
    await ensureMigrated();
    const { handoff, artifactId } = await closeHandoff({ id: parsed.positionals[0], archive: parsed.values.archive ?? false });
    process.stdout.write(`closed ${handoff.id}${artifactId ? `; kept bundle ${artifactId}` : ""}\n`);
    return 0;
  } catch (error) {
    // Anything else is the CLI's to say in one line (lib/cli/failure.ts).
    if (!isDomainError(error)) throw error;
    process.stderr.write(domainErrorText("close", "refused; nothing was changed", error));
    return 1;
  } finally {
    await closeDatabase();
  }
}
