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

/** Where --out FILE is written: opened before anything is exported, finished once the text is ready. */
type Out = { finish: (text: string) => void; discard: () => void };

/**
 * --out FILE, opened before the export runs, so a FILE that cannot be written (no such folder, a
 * folder, no permission) is refused before a bundle is kept as an artifact (it was kept, and the
 * command said only that it could not write). FILE is written whole: into a new file beside it,
 * renamed over it once every byte is on disk, so a full disk or a failure midway leaves FILE as it
 * was (written in place, an export onto a full disk truncated the previous file and left half a
 * document under its name). A link is followed (its target is replaced). What is not a plain file
 * (/dev/stdout, a FIFO) cannot be replaced and is written as it is, as is a file in a folder that
 * takes no new files.
 */
function openOut(file: string): Out {
  const existing = fs.statSync(file, { throwIfNoEntry: false });
  if (existing?.isDirectory()) throw Object.assign(new Error("EISDIR: illegal operation on a directory"), { code: "EISDIR" });
  const inPlace = (target: string): Out => {
    fs.accessSync(target, fs.constants.W_OK);
    return { finish: (text) => fs.writeFileSync(target, text), discard: () => undefined };
  };
  if (existing && !existing.isFile()) return inPlace(file);
  const target = existing ? fs.realpathSync(file) : file;
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  let descriptor: number | null;
  try {
    descriptor = fs.openSync(temporary, "wx", 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (existing && (code === "EACCES" || code === "EPERM" || code === "EROFS")) return inPlace(target);
    throw error;
  }
  const discard = () => {
    if (descriptor === null) return;
    fs.closeSync(descriptor);
    descriptor = null;
    fs.rmSync(temporary, { force: true });
  };
  const finish = (text: string) => {
    if (descriptor === null) throw new Error("the output was already closed");
    try {
      // The file keeps its mode (a private 600 stays so).
      if (existing) fs.fchmodSync(descriptor, existing.mode & 0o7777);
      fs.writeFileSync(descriptor, text);
      fs.fsyncSync(descriptor);
      fs.closeSync(descriptor);
      descriptor = null;
      fs.renameSync(temporary, target);
    } catch (error) {
      discard();
      fs.rmSync(temporary, { force: true });
      throw error;
    }
  };
  return { finish, discard };
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
  const cannotWrite = (file: string, error: unknown) => {
    process.stderr.write(`baton export: cannot write ${oneLine(file)}: ${oneLine(withoutPath(error as NodeJS.ErrnoException))}\n`);
    return 1;
  };
  let out: Out | undefined;
  try {
    out = values.out === undefined ? undefined : openOut(values.out);
  } catch (error) {
    return cannotWrite(values.out!, error);
  }
  try {
    await ensureMigrated();
    const exported = await exportHandoff({ id: positionals[0], format: values.format, cut: cut?.value, cutAtEntry: cutAtEntry?.value });
    if (out && values.out !== undefined) {
      try {
        out.finish(exported.text);
      } catch (error) {
        return cannotWrite(values.out, error);
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
    out?.discard();
    await closeDatabase();
  }
}
