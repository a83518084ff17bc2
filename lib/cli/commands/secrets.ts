import "server-only";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { scanStored } from "../../jobs/secrets-sweep";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton secrets scan [--redact]

Scans what this Baton stored before (titles, entries, imported documents, shift documents and
artifact blobs in the data folder) for secrets, with the rules that guard every write. Prints
each finding's place, kind, line and column (never the value) and a count by kind; exits 1 when
something was found and not redacted. --redact replaces each secret with [redacted: <kind>]:
rows and shift documents in place, blobs under their new hash (references follow, the old blob
is deleted), then rebuilds the database's files without the old text (on PostgreSQL a VACUUM
FULL, which locks the rewritten tables while it runs). Blobs and shift document files live in
each machine's data folder: with several machines on one PostgreSQL, run it on each.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("secrets", USAGE, args, { allowPositionals: true, options: { redact: { type: "boolean" } } });
  if (typeof parsed === "number") return parsed;
  const [sub, ...extra] = parsed.positionals;
  if (sub !== "scan" || extra.length > 0) return usageError("secrets", "the command is `baton secrets scan [--redact]`", USAGE);
  const redact = parsed.values.redact ?? false;
  try {
    await ensureMigrated();
    const scan = await scanStored({ redact });
    for (const finding of scan.findings) process.stdout.write(`${finding.place}\t${finding.kind}\tline ${finding.line}, column ${finding.column}\n`);
    const kinds = Object.entries(scan.byKind).map(([kind, count]) => `${kind} ${count}`).join(", ");
    if (scan.findings.length === 0) process.stderr.write("no secrets found\n");
    else process.stderr.write(`${scan.findings.length} secret${scan.findings.length === 1 ? "" : "s"} found (${kinds})${redact ? `; redacted in ${scan.cleaned} place${scan.cleaned === 1 ? "" : "s"}` : "; run with --redact to clean them"}\n`);
    return scan.findings.length > 0 && !redact ? 1 : 0;
  } finally {
    await closeDatabase();
  }
}
