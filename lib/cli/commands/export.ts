import "server-only";
import { isDomainError } from "../../errors";
import fs from "node:fs";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { domainErrorText } from "../failure";
import { parseCommandArgs, usageError, wholeNumberArgument } from "../args";
import { exportHandoff } from "../../formats";

const USAGE = `usage: baton export <hof id> --format bundle|json|yaml [--cut-at-entry N | --cut SEQ] [--out FILE]

Writes the thread (cut at entry #N, as the desk and get_handoff number entries, or at the entry
whose seq is SEQ, as a bundle's refs.threads names it; default its last entry) as a rip context
bundle, a handoff.json or a handoff.yaml to standard output or FILE. A bundle is also stored under
<data folder>/artifacts/blobs/<sha256>; its artifact id is printed on standard error.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("export", USAGE, args, {
    allowPositionals: true,
    options: {
      format: { type: "string", short: "f" },
      cut: { type: "string" },
      "cut-at-entry": { type: "string" },
      out: { type: "string", short: "o" },
    },
  });
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || !values.format) {
    return usageError("export", "give one handoff ID and --format", USAGE);
  }
  if (values.cut !== undefined && values["cut-at-entry"] !== undefined) {
    return usageError("export", "give --cut-at-entry (an entry's #number) or --cut (its seq), not both", USAGE);
  }
  const numberAsSeq = values.cut === undefined ? undefined : /^\s*#(\d+)\s*$/.exec(values.cut)?.[1];
  if (numberAsSeq !== undefined) return usageError("export", `--cut takes an entry's seq, not its #number; for entry #${numberAsSeq} give --cut-at-entry ${numberAsSeq}`, USAGE);
  const cut = values.cut === undefined ? undefined : wholeNumberArgument("--cut", values.cut);
  if (cut && "refused" in cut) return usageError("export", cut.refused, USAGE);
  const cutAtEntry = values["cut-at-entry"] === undefined ? undefined : wholeNumberArgument("--cut-at-entry", values["cut-at-entry"]);
  if (cutAtEntry && "refused" in cutAtEntry) return usageError("export", cutAtEntry.refused, USAGE);
  try {
    await ensureMigrated();
    const exported = await exportHandoff({ id: positionals[0], format: values.format, cut: cut?.value, cutAtEntry: cutAtEntry?.value });
    if (values.out) {
      try {
        fs.writeFileSync(values.out, exported.text);
      } catch (error) {
        process.stderr.write(`baton export: cannot write ${values.out}: ${(error as Error).message}\n`);
        return 1;
      }
      process.stderr.write(`wrote ${values.out}${exported.cutNumber === null ? "" : ` (cut at entry #${exported.cutNumber})`}\n`);
    } else {
      process.stdout.write(exported.text);
    }
    if (exported.artifactId) process.stderr.write(`artifact ${exported.artifactId}\n`);
    return 0;
  } catch (error) {
    // Anything else is the CLI's to say in one line (lib/cli/failure.ts).
    if (!isDomainError(error)) throw error;
    process.stderr.write(domainErrorText("export", "refused", error));
    return 1;
  } finally {
    await closeDatabase();
  }
}
