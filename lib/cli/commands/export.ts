import "server-only";
import { isDomainError } from "../../errors";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { closeDatabase } from "../../database";
import { ensureMigrated } from "../../database/migrate";
import { oneLine } from "../../one-line";
import { domainErrorText } from "../failure";
import { parseCommandArgs, usageError, wholeNumberArgument } from "../args";
import { exportHandoff } from "../../formats";

const USAGE = `usage: baton export <hof id> --format bundle|json|yaml [--cut-at-entry N | --cut SEQ] [--out FILE]

Writes the thread (cut at entry #N, as the desk and get_handoff number entries, or at the entry
whose seq is SEQ, as a bundle's refs.threads names it; default its last entry) as a rip context
bundle, a handoff.json or a handoff.yaml to standard output or FILE. A bundle is also stored under
<data folder>/artifacts/blobs/<sha256>; its artifact id is printed on standard error.`;

/**
 * --out FILE written whole: into a new file beside it, renamed over it once every byte is on
 * disk, so a full disk or a failure midway leaves FILE as it was (written in place, an export
 * onto a full disk truncated the previous file and left half a document under its name). A link
 * is followed (its target is replaced). What is not a plain file (/dev/stdout, a FIFO) cannot be
 * replaced and is written as it is, as is a file in a folder that takes no new files.
 */
function writeWhole(file: string, text: string): void {
  const existing = fs.statSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) return fs.writeFileSync(file, text);
  const target = existing ? fs.realpathSync(file) : file;
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  let descriptor: number;
  try {
    descriptor = fs.openSync(temporary, "wx", 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (existing && (code === "EACCES" || code === "EPERM" || code === "EROFS")) return fs.writeFileSync(target, text);
    throw error;
  }
  try {
    try {
      // The file keeps its mode (a private 600 stays so).
      if (existing) fs.fchmodSync(descriptor, existing.mode & 0o7777);
      fs.writeFileSync(descriptor, text);
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** A file system error's message without the path it names (the temporary file's, for one). */
const withoutPath = (error: NodeJS.ErrnoException) => (error.syscall ? error.message.replace(new RegExp(`, ${error.syscall}( '.*')?$`), "") : error.message);

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
        writeWhole(values.out, exported.text);
      } catch (error) {
        process.stderr.write(`baton export: cannot write ${oneLine(values.out)}: ${oneLine(withoutPath(error as NodeJS.ErrnoException))}\n`);
        return 1;
      }
      process.stderr.write(`wrote ${oneLine(values.out)}${exported.cutNumber === null ? "" : ` (cut at entry #${exported.cutNumber})`}\n`);
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
