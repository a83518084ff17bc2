import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseFile, databaseUrl, dataDir } from "../config";
import { engineOf } from "../database";
import { applyEdits, format, modify } from "jsonc-parser";
import { Invalid } from "../errors";
import { readRepositoryIdentity } from "../git/read-state";
import { withoutCredentials } from "../url-credentials";
import { defaultDataDir } from "../paths.mjs";
import { batonBinFile } from "./baton-command";

/**
 * `baton setup claude-code`: registers Baton's MCP server for Claude Code and adds its hooks
 * (SessionStart: pickup; Stop: the unanswered-question reminder; PreCompact: the checkpoint),
 * keeping every setting and entry already there. A second run changes nothing; `remove` takes
 * out exactly what setup adds. Files are JSON, written whole through a temporary file.
 *
 * Project scope: `.mcp.json` and `.claude/settings.json` at the repository's top folder (Claude
 * Code asks once before it starts a project's .mcp.json server). User scope: `~/.claude.json`'s
 * `mcpServers` and `~/.claude/settings.json`, for every folder.
 */
export type SetupScope = "project" | "user";
type Json = Record<string, unknown>;

/** The MCP server's name in Claude Code: its tools are `mcp__baton__…`. */
export const SERVER_NAME = "baton";

export type PlannedFile = {
  file: string;
  /** The file's text now (null: it does not exist) and what setup would leave. */
  before: string | null;
  after: string;
  /** What changes, in words; empty when nothing does. */
  changes: string[];
};

const shellQuoted = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/**
 * The data folder and database the hooks and the server must use when they are not the
 * checkout's default (a session's hook runs with Claude Code's environment, not the one setup
 * ran in).
 */
function pinnedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  const folder = dataDir();
  if (folder !== defaultDataDir()) env.BATON_DATA_DIR = folder;
  const url = databaseUrl();
  if (engineOf(url) === "postgres") {
    // Never its password: these files are often committed. pg takes it from PGPASSWORD or ~/.pgpass.
    env.DATABASE_URL = withoutCredentials(url, { keepUserName: true });
    return env;
  }
  // Only a database moved away from its data folder; a relative URL is pinned as absolute.
  const database = databaseFile(url);
  if (database !== path.join(folder, "baton.db")) env.DATABASE_URL = `file:${database}`;
  return env;
}

function commandLine(args: string[]): string {
  const env = Object.entries(pinnedEnvironment()).map(([name, value]) => `${name}=${shellQuoted(value)} `);
  return `${env.join("")}node ${shellQuoted(batonBinFile())} ${args.join(" ")}`;
}

/** Baton's hooks: the event, the entry. */
const HOOKS = [
  { event: "SessionStart", matcher: "startup|resume|clear|compact", args: ["hook", "session-start"], timeout: 30 },
  { event: "Stop", matcher: null, args: ["hook", "stop"], timeout: 30 },
  { event: "PreCompact", matcher: "manual|auto", args: ["checkpoint", "--hook", "--push"], timeout: 60 },
] as const;

/**
 * Whether `command` is one setup wrote for `args`, from any checkout, install or data folder:
 * exactly commandLine()'s form (pinned variables, `node`, a `…/bin/baton.mjs` path, the
 * arguments), never a loose match: a user's own `~/bin/notify-baton hook stop` is not Baton's.
 */
function isBatonCommand(command: string, args: readonly string[]): boolean {
  const assignment = String.raw`[A-Z][A-Z0-9_]*=(?:'[^']*'|[^\s']+) `;
  const bin = String.raw`(?:'[^']*/bin/baton\.mjs'|[^\s']*/bin/baton\.mjs)`;
  const tail = args.map((arg) => arg.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join(" ");
  return new RegExp(`^(?:${assignment})*node ${bin} ${tail}$`).test(command);
}

type HookCommand = { type?: unknown; command?: unknown; timeout?: unknown };
type HookGroup = { matcher?: unknown; hooks?: unknown };

function readJson(file: string): { text: string | null; json: Json } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { text: null, json: {} };
    if (code === "EISDIR") throw new Invalid(`${file} is a folder where Claude Code expects a file; move it away, then run setup again: nothing was written`);
    throw new Invalid(`cannot read ${file} (${code ?? (error as Error).message}); nothing was written`);
  }
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new Invalid(`${file} is not valid JSON (${(error as Error).message}); fix or move it, then run setup again: nothing was written`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Invalid(`${file} does not hold a JSON object; nothing was written`);
  return { text, json: json as Json };
}

const asObject = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {});

const FORMATTING = { tabSize: 2, insertSpaces: true, eol: "\n" };

/**
 * The file's text with the value at `path` set (undefined: removed), every other byte as it was:
 * jsonc-parser edits the text instead of reparsing and printing it, so untouched keys keep their
 * formatting and numbers (a reprinted 12345678901234567890 became 12345678901234567000). Only the
 * inserted value is laid out, two spaces a level; a new or empty file is written whole.
 */
function withValue(text: string | null, path: [string, string], value: unknown): string {
  if (text === null || /^\s*(?:\{\s*\})?\s*$/.test(text)) {
    return `${JSON.stringify(value === undefined ? {} : { [path[0]]: { [path[1]]: value } }, null, 2)}\n`;
  }
  const edits = modify(text, path, value, {});
  const edited = applyEdits(text, edits);
  if (value === undefined || edits.length !== 1) return edited;
  const [edit] = edits;
  return applyEdits(edited, format(edited, { offset: edit.offset, length: edit.content.length }, FORMATTING));
}

/** Each hook command of `event` in the settings, with where it sits. */
function hookCommands(hooks: Json, event: string): { group: HookGroup; entry: HookCommand; index: number }[] {
  const groups = Array.isArray(hooks[event]) ? (hooks[event] as HookGroup[]) : [];
  return groups.flatMap((group) =>
    Array.isArray(group?.hooks) ? (group.hooks as HookCommand[]).map((entry, index) => ({ group, entry, index })).filter(({ entry }) => typeof entry?.command === "string") : [],
  );
}

function planSettings(file: string, remove: boolean): PlannedFile {
  const { text, json } = readJson(file);
  const settings = structuredClone(json);
  const changes: string[] = [];
  if (settings.hooks !== undefined && (typeof settings.hooks !== "object" || settings.hooks === null || Array.isArray(settings.hooks))) {
    throw new Invalid(`${file}: "hooks" is not an object; nothing was written`);
  }
  const hooks = asObject(settings.hooks);
  for (const hook of HOOKS) {
    const command = commandLine([...hook.args]);
    const found = hookCommands(hooks, hook.event).filter(({ entry }) => isBatonCommand(String(entry.command), hook.args));
    if (remove) {
      for (const { group, entry } of found) group.hooks = (group.hooks as HookCommand[]).filter((other) => other !== entry);
      if (found.length > 0) changes.push(`removed the ${hook.event} hook (${found.map(({ entry }) => entry.command).join("; ")})`);
      continue;
    }
    if (found.length > 0) {
      const [first] = found;
      if (first.entry.command !== command) {
        changes.push(`updated the ${hook.event} hook: ${command} (was: ${first.entry.command})`);
        first.entry.command = command;
      }
      continue;
    }
    const groups = Array.isArray(hooks[hook.event]) ? (hooks[hook.event] as HookGroup[]) : [];
    groups.push({ ...(hook.matcher !== null && { matcher: hook.matcher }), hooks: [{ type: "command", command, timeout: hook.timeout }] });
    hooks[hook.event] = groups;
    changes.push(`added the ${hook.event} hook: ${command}`);
  }
  if (remove) {
    // Groups and events left empty by the removal go too; others' entries stay as they were.
    for (const hook of HOOKS) {
      if (!Array.isArray(hooks[hook.event])) continue;
      const groups = (hooks[hook.event] as HookGroup[]).filter((group) => !Array.isArray(group?.hooks) || (group.hooks as unknown[]).length > 0);
      if (groups.length > 0) hooks[hook.event] = groups;
      else delete hooks[hook.event];
    }
  }
  let after = text ?? "{}\n";
  // Only the events setup touched are rewritten; the rest of the file stays byte for byte.
  if (changes.length > 0) for (const hook of HOOKS) after = withValue(after, ["hooks", hook.event], hooks[hook.event]);
  return { file, before: text, after, changes };
}

function planServer(file: string, remove: boolean): PlannedFile {
  const { text, json } = readJson(file);
  const config = structuredClone(json);
  if (config.mcpServers !== undefined && (typeof config.mcpServers !== "object" || config.mcpServers === null || Array.isArray(config.mcpServers))) {
    throw new Invalid(`${file}: "mcpServers" is not an object; nothing was written`);
  }
  const servers = asObject(config.mcpServers);
  const changes: string[] = [];
  const env = pinnedEnvironment();
  const wanted = { type: "stdio", command: "node", args: [batonBinFile(), "mcp", "--as", "code"], ...(Object.keys(env).length > 0 && { env }) };
  const existing = servers[SERVER_NAME];
  if (remove) {
    if (existing !== undefined) {
      delete servers[SERVER_NAME];
      changes.push(`removed the MCP server "${SERVER_NAME}"`);
    }
  } else if (JSON.stringify(existing) !== JSON.stringify(wanted)) {
    servers[SERVER_NAME] = wanted;
    const shown = `${wanted.command} ${wanted.args.join(" ")}`;
    changes.push(existing === undefined ? `added the MCP server "${SERVER_NAME}": ${shown}` : `updated the MCP server "${SERVER_NAME}": ${shown} (was: ${JSON.stringify(existing)})`);
  }
  const after = changes.length > 0 ? withValue(text, ["mcpServers", SERVER_NAME], servers[SERVER_NAME]) : (text ?? "{}\n");
  return { file, before: text, after, changes };
}

/** Where setup writes for `scope`, for the repository around `folder` (project scope). */
export async function setupTargets(scope: SetupScope, folder: string): Promise<{ settings: string; servers: string; root: string | null }> {
  if (scope === "user") {
    const home = os.homedir();
    return { settings: path.join(home, ".claude", "settings.json"), servers: path.join(home, ".claude.json"), root: null };
  }
  const identity = await readRepositoryIdentity(folder);
  if (!identity) {
    throw new Invalid(`${folder} is not inside a git repository (or git is not installed): run setup in the repository Claude Code works in, or use --user for every folder`);
  }
  return { settings: path.join(identity.root, ".claude", "settings.json"), servers: path.join(identity.root, ".mcp.json"), root: identity.root };
}

/**
 * The file setup really writes for `file`: itself, or the target of a symbolic link (dotfiles
 * often link ~/.claude/settings.json), written through so the link stays a link. In a
 * repository, a link that leads outside it is refused: writing through would change a file
 * elsewhere, and replacing it would copy that file (secrets included) into the work tree.
 */
function writtenFile(file: string, root: string | null): string {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isSymbolicLink()) return file;
  const target = path.resolve(path.dirname(file), fs.readlinkSync(file));
  const resolved = fs.existsSync(target) ? fs.realpathSync(target) : target;
  if (root !== null) {
    const realRoot = fs.realpathSync(root);
    if (path.relative(realRoot, resolved).startsWith("..") || path.isAbsolute(path.relative(realRoot, resolved))) {
      throw new Invalid(`${file} is a link to ${resolved}, outside the repository; setup neither writes through it nor replaces it: add Baton there yourself, or replace the link with a file: nothing was written`);
    }
  }
  return resolved;
}

/** A file whose permissions say nobody may write it is the user's decision: setup leaves it alone. */
function refuseReadOnly(file: string): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isFile() && (stat.mode & 0o222) === 0) throw new Invalid(`${file} is read-only; setup leaves it alone: make it writable to let setup add Baton: nothing was written`);
}

/** What setup (or `remove`) would write; reads the files, writes nothing. */
export async function planSetup(options: { scope: SetupScope; folder: string; remove?: boolean }): Promise<{ root: string | null; files: PlannedFile[] }> {
  const targets = await setupTargets(options.scope, options.folder);
  const remove = options.remove ?? false;
  const servers = writtenFile(targets.servers, targets.root);
  const settings = writtenFile(targets.settings, targets.root);
  const files = [planServer(servers, remove), planSettings(settings, remove)];
  for (const planned of files) if (planned.changes.length > 0) refuseReadOnly(planned.file);
  return { root: targets.root, files };
}

/** Writes the planned files that change, each whole through a temporary file beside it (keeping its mode). */
export function applySetup(files: PlannedFile[]): void {
  for (const planned of files) {
    if (planned.changes.length === 0) continue;
    fs.mkdirSync(path.dirname(planned.file), { recursive: true });
    const mode = fs.statSync(planned.file, { throwIfNoEntry: false })?.mode;
    const temporary = `${planned.file}.baton-${process.pid}.tmp`;
    fs.writeFileSync(temporary, planned.after, mode === undefined ? undefined : { mode: mode & 0o777 });
    fs.renameSync(temporary, planned.file);
  }
}
