import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseFile, databaseUrl, dataDir } from "../config";
import { engineOf } from "../database";
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

/** Baton's hooks: the event, how to recognise one setup added earlier (wherever the checkout was), the entry. */
const HOOKS = [
  { event: "SessionStart", matcher: "startup|resume|clear|compact", ours: /\bbaton(?:\.mjs)?'?\s+hook\s+session-start\b/, args: ["hook", "session-start"], timeout: 30 },
  { event: "Stop", matcher: null, ours: /\bbaton(?:\.mjs)?'?\s+hook\s+stop\b/, args: ["hook", "stop"], timeout: 30 },
  { event: "PreCompact", matcher: "manual|auto", ours: /\bbaton(?:\.mjs)?'?\s+checkpoint\b.*--hook\b/, args: ["checkpoint", "--hook", "--push"], timeout: 60 },
] as const;

type HookCommand = { type?: unknown; command?: unknown; timeout?: unknown };
type HookGroup = { matcher?: unknown; hooks?: unknown };

function readJson(file: string): { text: string | null; json: Json } {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: null, json: {} };
    throw error;
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
const toText = (json: Json) => `${JSON.stringify(json, null, 2)}\n`;

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
    const found = hookCommands(hooks, hook.event).filter(({ entry }) => hook.ours.test(String(entry.command)));
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
  if (Object.keys(hooks).length > 0 || settings.hooks !== undefined) settings.hooks = hooks;
  return { file, before: text, after: changes.length ? toText(settings) : (text ?? toText(settings)), changes };
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
  if (changes.length > 0) config.mcpServers = servers;
  return { file, before: text, after: changes.length ? toText(config) : (text ?? toText(config)), changes };
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

/** What setup (or `remove`) would write; reads the files, writes nothing. */
export async function planSetup(options: { scope: SetupScope; folder: string; remove?: boolean }): Promise<{ root: string | null; files: PlannedFile[] }> {
  const targets = await setupTargets(options.scope, options.folder);
  const remove = options.remove ?? false;
  return { root: targets.root, files: [planServer(targets.servers, remove), planSettings(targets.settings, remove)] };
}

/** Writes the planned files that change, each whole through a temporary file (keeping its mode). */
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
