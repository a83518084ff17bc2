import "server-only";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

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

/** The seed's `load_handoff`: nothing when the file is missing; unreadable YAML is reported, not thrown. */
export function loadHandoffFile(root: string): LoadedHandoffFile {
  let text: string;
  try {
    text = fs.readFileSync(handoffYamlPath(root), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw new Error(`cannot read ${handoffYamlPath(root)}: ${(error as Error).message}`);
  }
  try {
    const data: unknown = parseYaml(text, { maxAliasCount: 100 });
    if (data === null || data === undefined) return { state: "missing" };
    if (typeof data !== "object" || Array.isArray(data)) return { state: "invalid", reason: "it is not a YAML mapping (key: value pairs)" };
    return { state: "loaded", data: data as Record<string, unknown> };
  } catch (error) {
    return { state: "invalid", reason: `invalid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
}

/** Writes the file, creating `.flow-guardian/` as needed; permission errors say which path. */
export function writeProjectFile(file: string, text: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
}

export type GitState = { branch: string | null; uncommittedFiles: string[] };

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
}

/** The current branch and the files with uncommitted changes (flow-guardian's `git_state`); empty outside git. */
export function gitState(root: string): GitState {
  const branch = git(root, ["symbolic-ref", "--quiet", "--short", "HEAD"])?.trim() || null;
  const status = git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]) ?? "";
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
