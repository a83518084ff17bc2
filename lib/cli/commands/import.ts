import "server-only";
import { isDomainError } from "../../errors";
import fs from "node:fs";
import path from "node:path";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { domainErrorText } from "../failure";
import { parseCommandArgs, usageError } from "../args";
import { FORMAT_LABELS, importDocument, MAX_IMPORT_BYTES } from "../../formats";
import { oneLine, quotedOneLine } from "../../one-line";
import { redactionLines } from "../../secrets";
import { readBounded } from "../read-bounded";

const USAGE = `usage: baton import <file | -> [--format bundle|json|yaml] [--project TAG]
       baton import --artifact <artifact id> [--project TAG]

Imports a rip context bundle, a handoff.json or a flow-guardian handoff.yaml as a new handoff
(the format is detected unless --format is given; "-" reads standard input). Prints the new
handoff's ID; on bad input prints every error with its field path and exits 1.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("import", USAGE, args, {
    allowPositionals: true,
    options: {
      format: { type: "string" },
      project: { type: "string" },
      artifact: { type: "string" },
    },
  });
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const [file, ...extra] = positionals;
  if ((!file && !values.artifact) || extra.length > 0 || (file && values.artifact)) {
    return usageError("import", "give one file (or - for standard input), or --artifact <id>", USAGE);
  }
  let text: string | undefined;
  if (file) {
    try {
      // Read no further than the first chunk past what an import may hold: a larger document is
      // refused by the import's own check. `baton import /dev/zero` once read until it held all
      // 24 GB of the bench machine's memory.
      text = (await readBounded(file === "-" ? process.stdin : fs.createReadStream(file), MAX_IMPORT_BYTES)).text;
    } catch (error) {
      process.stderr.write(`baton import: cannot read ${oneLine(file)}: ${oneLine((error as Error).message)}\n`);
      return 1;
    }
  }
  try {
    await ensureMigrated();
    const imported = await importDocument({
      text,
      artifactId: values.artifact,
      fileName: file && file !== "-" ? path.basename(file) : undefined,
      format: values.format,
      project: values.project,
      // The current folder's repository state is recorded with the handoff (lib/git).
    }, { repoPath: process.cwd() });
    process.stdout.write(`${imported.handoff.id}\n`);
    const parent = imported.parentId ? `, child of ${imported.parentId}` : "";
    process.stderr.write(`imported ${FORMAT_LABELS[imported.format]} as ${quotedOneLine(imported.handoff.title)} (${imported.entries.length} ${imported.entries.length === 1 ? "entry" : "entries"}${parent})\n`);
    for (const warning of imported.warnings) process.stderr.write(`warning: ${warning.field}: ${warning.message}\n`);
    for (const line of redactionLines(imported.redactions)) process.stderr.write(`${line}\n`);
    return 0;
  } catch (error) {
    // Anything else is the CLI's to say in one line (lib/cli/failure.ts).
    if (!isDomainError(error)) throw error;
    process.stderr.write(domainErrorText("import", `refused${file ? ` ${oneLine(file)}` : ""}; nothing was stored`, error));
    return 1;
  } finally {
    await closeDatabase();
  }
}
