import "server-only";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Invalid } from "../errors";
import { runGitSync } from "../git/read-state";
import { NotSmallFile, NotUtf8File, readSmallFile } from "../small-file";
import { MAX_IMPORT_BYTES, refuseManyYamlNodes, yamlValueOf } from "./schema-helpers";

/** What marks a project root, nearest first (the seed's list plus package.json). */
const ROOT_MARKERS = [".flow-guardian", ".git", "pyproject.toml", "package.json"];

/** The seed's `find_project_root`: the nearest folder up from `cwd` holding a marker, else `cwd`. */
export function findProjectRoot(cwd: string = process.cwd()): string {
  // turbopackIgnore: the folder is the user's project, chosen at run time; the build must not trace through it.
  const start = path.resolve(/*turbopackIgnore: true*/ cwd);
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (ROOT_MARKERS.some((marker) => fs.existsSync(path.join(/*turbopackIgnore: true*/ folder, marker)))) return folder;
    if (path.dirname(folder) === folder) return start;
  }
}

export function handoffYamlPath(root: string): string {
  return path.join(/*turbopackIgnore: true*/ root, ".flow-guardian", "handoff.yaml");
}

/** Where `--push` remembers the thread it mirrors into. */
export function mirrorStatePath(root: string): string {
  return path.join(/*turbopackIgnore: true*/ root, ".flow-guardian", "baton.json");
}

export type LoadedHandoffFile =
  | { state: "missing" }
  | { state: "invalid"; reason: string }
  | { state: "loaded"; data: Record<string, unknown> };

const refused = (message: string) => new Invalid(message, { "(file)": [message] });

/**
 * The project's `.flow-guardian` folder, when it is a plain folder (or not there yet). Its files
 * come with the repository: a cloned repository chooses what a symbolic link in it points at, and
 * Claude Code's PreCompact hook runs the checkpoint in any repository a session works in. Through
 * `.flow-guardian/baton.json -> ../../../.bashrc` a checkpoint once overwrote that file. So Baton
 * reads and writes there only plain files in a plain folder, never through a link.
 */
function projectFolderOf(file: string): string {
  const folder = path.dirname(file);
  const stat = fs.lstatSync(folder, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw refused(`${folder} is ${stat.isSymbolicLink() ? "a symbolic link" : "not a folder"}; Baton keeps checkpoints only in a plain folder`);
  return folder;
}

/** A file of the project's `.flow-guardian` folder, at most `maxBytes`; null when it is not there. */
export function readProjectFile(file: string, maxBytes: number): string | null {
  projectFolderOf(file);
  try {
    return readSmallFile(file, maxBytes, { followLinks: false });
  } catch (error) {
    if (error instanceof NotUtf8File) throw refused(`${error.message}; save it as UTF-8 (Baton would write it back so)`);
    if (error instanceof NotSmallFile) throw refused(`${error.message}; Baton reads and writes only plain files there`);
    throw refused(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The seed's `load_handoff`: nothing when the file is missing; unreadable YAML is reported, not thrown. */
export function loadHandoffFile(root: string): LoadedHandoffFile {
  const text = readProjectFile(handoffYamlPath(root), MAX_IMPORT_BYTES);
  if (text === null) return { state: "missing" };
  try {
    // A cloned repository's file, read by the PreCompact hook: bounded as an import is.
    refuseManyYamlNodes(text);
    const data: unknown = yamlValueOf(text, { exactIntegers: true });
    if (data === null || data === undefined) return { state: "missing" };
    if (typeof data !== "object" || Array.isArray(data)) return { state: "invalid", reason: "it is not a YAML mapping (key: value pairs)" };
    return { state: "loaded", data: data as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Invalid) return { state: "invalid", reason: error.message };
    return { state: "invalid", reason: `invalid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
}

/**
 * Writes a file of the project's `.flow-guardian` folder whole: into a new file beside it, then
 * renamed over it, which replaces a symbolic link there instead of writing where it points;
 * creates `.flow-guardian/` as needed, and a failure says which path.
 */
export function writeProjectFile(file: string, text: string): void {
  const folder = projectFolderOf(file);
  const temporary = path.join(/*turbopackIgnore: true*/ folder, `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`);
  try {
    fs.mkdirSync(folder, { recursive: true });
    projectFolderOf(file);
    const descriptor = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.writeFileSync(descriptor, text);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error instanceof Invalid ? error : refused(`cannot write ${file}: ${(error as Error).message}`);
  }
}

export type GitState = { branch: string | null; uncommittedFiles: string[] };

/** The current branch and the files with uncommitted changes (flow-guardian's `git_state`); empty outside git. */
export function gitState(root: string): GitState {
  const branch = runGitSync(root, ["symbolic-ref", "--quiet", "--short", "HEAD"])?.trim() || null;
  const status = runGitSync(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]) ?? "";
  const uncommittedFiles: string[] = [];
  const records = status.split("\0").filter(Boolean);
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index];
    const file = record.slice(3);
    // A rename's record is followed by its old path; skip that one.
    if (record[0] === "R" || record[0] === "C") index += 1;
    if (file && !file.startsWith(".flow-guardian/")) uncommittedFiles.push(file);
  }
  return { branch, uncommittedFiles: [...new Set(uncommittedFiles)].sort() };
}
