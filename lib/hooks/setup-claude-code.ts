import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseFile, databaseUrl, dataDir } from "../config";
import { engineOf } from "../database";
import { applyEdits, format, modify, visit, type JSONPath } from "jsonc-parser";
import { Invalid } from "../errors";
import { oneLine } from "../one-line";
import { formatPath, quotedField, visibleControls } from "../validation";
import { readRepositoryIdentity, runGit } from "../git/read-state";
import { withoutCredentials } from "../url-credentials";
import { defaultDataDir } from "../paths.mjs";
import { batonBinFile } from "./baton-command";

/**
 * `baton setup claude-code`: registers Baton's MCP server for Claude Code and adds its hooks
 * (SessionStart: pickup; Stop: the unanswered-question reminder; PreCompact: the checkpoint),
 * keeping every setting and entry already there. A second run changes nothing; `remove` takes
 * out exactly what setup adds. Files are JSON, written whole through a temporary file.
 *
 * Local scope (the default): the server in `~/.claude.json` under `projects[<project
 * folder>].mcpServers` (what `claude mcp add --scope local` writes) and the hooks in the project's
 * `.claude/settings.local.json`: private to the user, because what setup writes is this machine's
 * (paths, data folder, database). An earlier setup wrote them into `.mcp.json` and
 * `.claude/settings.json`, which Claude Code shares through git; setup takes them out of there.
 * User scope: `~/.claude.json`'s `mcpServers` and `~/.claude/settings.json`, for every folder.
 */
export type SetupScope = "local" | "user";
type Json = Record<string, unknown>;

/** The MCP server's name in Claude Code: its tools are `mcp__baton__…`. */
export const SERVER_NAME = "baton";

export type PlannedFile = {
  /** The file's real path: every symbolic link on the way followed. */
  file: string;
  /** The file's text now (null: it does not exist) and what setup would leave (null: the file goes). */
  before: string | null;
  after: string | null;
  /** What changes, in words; empty when nothing does. */
  changes: string[];
  /** The mode a file setup creates gets (an existing one keeps its own); the umask's default when unset. */
  newFileMode?: number;
  /** A file Claude Code shares through git, where an earlier setup wrote: setup only takes its own entries out. */
  shared?: true;
  /**
   * What `--print` shows of the file: Baton's entries alone, as setup would leave them, never the
   * whole file (~/.claude.json holds the account and every project's servers with their env
   * tokens; a settings file may hold the user's env and keys).
   */
  shown: string;
};

/** A word the shell reads as it is. */
const PLAIN_WORD = String.raw`[\w@%+=:,./-]+`;
/** A word between single quotes, each `'` inside written `'\''` (close, an escaped quote, reopen). */
const QUOTED_WORD = String.raw`'[^']*'(?:\\''[^']*')*`;

const shellQuoted = (text: string) => (new RegExp(`^${PLAIN_WORD}$`).test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** shellQuoted's inverse, for a word it wrote. */
const unquoted = (word: string) => (word.startsWith("'") ? word.slice(1, -1).replaceAll(`'\\''`, "'") : word);

const ASSIGNMENT = /^[A-Z][A-Z0-9_]*=/;

/**
 * The words of `command` as they stand (quotes kept) when it has commandLine()'s form: words
 * shellQuoted wrote (a variable's name before one), one space apart; null for anything else.
 */
function commandWords(command: string): string[] | null {
  const word = new RegExp(`(?:[A-Z][A-Z0-9_]*=)?(?:${QUOTED_WORD})|${PLAIN_WORD}`, "y");
  const words: string[] = [];
  while (word.lastIndex < command.length) {
    if (words.length > 0 && command[word.lastIndex++] !== " ") return null;
    const match = word.exec(command);
    if (!match) return null;
    words.push(match[0]);
  }
  return words;
}

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
    // Never its password: dotfiles are shared and an earlier setup's files were committed. pg takes it from PGPASSWORD or ~/.pgpass.
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
 * arguments), read with the quoting shellQuoted writes, never a loose match: a user's own
 * `~/bin/notify-baton hook stop` is not Baton's.
 */
function isBatonCommand(command: string, args: readonly string[]): boolean {
  const words = commandWords(command);
  if (!words) return false;
  const assignments = words.findIndex((word) => !ASSIGNMENT.test(word));
  if (assignments < 0) return false;
  const [node, bin, ...rest] = words.slice(assignments);
  return node === "node" && bin !== undefined && !ASSIGNMENT.test(bin) && unquoted(bin).endsWith("/bin/baton.mjs") && rest.join(" ") === args.join(" ");
}

type HookCommand = { type?: unknown; command?: unknown; timeout?: unknown };
type HookGroup = { matcher?: unknown; hooks?: unknown };

/**
 * The path of the first key an object in `text` holds twice, or null: JSON.parse (and Claude
 * Code) keep the last, where jsonc-parser would edit the first.
 */
function firstDuplicateKey(text: string): string | null {
  const keysOfOpenObjects: Set<string>[] = [];
  let duplicate: JSONPath | null = null;
  visit(text, {
    onObjectBegin: () => void keysOfOpenObjects.push(new Set()),
    onObjectEnd: () => void keysOfOpenObjects.pop(),
    onObjectProperty: (property, _offset, _length, _line, _character, pathOf) => {
      const keys = keysOfOpenObjects.at(-1);
      if (duplicate === null && keys?.has(property)) duplicate = [...pathOf(), property];
      keys?.add(property);
    },
  });
  return duplicate === null ? null : quotedField(formatPath(duplicate));
}

/**
 * The file's text and JSON (an empty object when it does not exist). Opened without following
 * a link (the path is already real: one that appeared since is refused) and without blocking
 * (a FIFO would wait for a writer).
 */
function readJson(file: string): { text: string | null; json: Json } {
  let text: string;
  try {
    const descriptor = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    try {
      const stat = fs.fstatSync(descriptor);
      if (stat.isDirectory()) throw Object.assign(new Error(`${file} is a folder`), { code: "EISDIR" });
      if (!stat.isFile()) throw new Invalid(`${file} is not a plain file; setup leaves it alone: nothing was written`);
      // Claude Code reads a file that starts with a byte order mark (Windows editors write one); JSON.parse does not.
      text = fs.readFileSync(descriptor, "utf8").replace(/^\uFEFF/, "");
    } finally {
      fs.closeSync(descriptor);
    }
  } catch (error) {
    if (error instanceof Invalid) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { text: null, json: {} };
    if (code === "EISDIR") throw new Invalid(`${file} is a folder where Claude Code expects a file; move it away, then run setup again: nothing was written`);
    if (code === "ELOOP") throw new Invalid(`${file} became a symbolic link while setup ran; run setup again: nothing was written`);
    throw new Invalid(`cannot read ${file} (${code ?? (error as Error).message}); nothing was written`);
  }
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    // V8's message may quote the file, line breaks and all.
    throw new Invalid(`${file} is not valid JSON (${oneLine((error as Error).message)}); fix or move it, then run setup again: nothing was written`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Invalid(`${file} does not hold a JSON object; nothing was written`);
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== null) {
    throw new Invalid(`${file} holds the key "${duplicate}" more than once (JSON keeps the last one, an edit would change the first); keep one, then run setup again: nothing was written`);
  }
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
function withValue(text: string | null, path: string[], value: unknown): string {
  if (text === null || /^\s*(?:\{\s*\})?\s*$/.test(text)) {
    return `${JSON.stringify(value === undefined ? {} : path.reduceRight((inner, key) => ({ [key]: inner }), value), null, 2)}\n`;
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

/**
 * `after` with `key` taken out when the removal left it an empty object, and null (the file goes)
 * when the file then holds nothing at all and may go (`deleteWhenEmpty`): setup made it, nobody
 * else wrote into it.
 */
function withoutEmptyLeftovers(after: string, key: string, deleteWhenEmpty: boolean): string | null {
  const json = JSON.parse(after) as Json;
  const value = json[key];
  if (typeof value !== "object" || value === null || Array.isArray(value) || Object.keys(value).length > 0) return after;
  const without = withValue(after, [key], undefined);
  return deleteWhenEmpty && Object.keys(JSON.parse(without) as Json).length === 0 ? null : without;
}

function planSettings(file: string, options: { remove: boolean; deleteWhenEmpty: boolean }): PlannedFile {
  const { remove } = options;
  const { text, json } = readJson(file);
  const settings = structuredClone(json);
  const changes: string[] = [];
  if (settings.hooks !== undefined && (typeof settings.hooks !== "object" || settings.hooks === null || Array.isArray(settings.hooks))) {
    throw new Invalid(`${file}: "hooks" is not an object; nothing was written`);
  }
  const hooks = asObject(settings.hooks);
  for (const hook of HOOKS) {
    // Claude Code's form is a list of groups; setup changes nothing it cannot keep whole.
    if (hooks[hook.event] !== undefined && !Array.isArray(hooks[hook.event])) {
      throw new Invalid(`${file}: "hooks.${hook.event}" is not a list of hook groups ([{"hooks": [...]}]); fix it, then run setup again: nothing was written`);
    }
  }
  for (const hook of HOOKS) {
    const command = commandLine([...hook.args]);
    const found = hookCommands(hooks, hook.event).filter(({ entry }) => isBatonCommand(String(entry.command), hook.args));
    if (remove) {
      for (const { group, entry } of found) group.hooks = (group.hooks as HookCommand[]).filter((other) => other !== entry);
      // The commands as the file holds them, escaped: a shared file comes with the repository, written by anyone.
      if (found.length > 0) changes.push(`removed the ${hook.event} hook (${found.map(({ entry }) => oneLine(String(entry.command))).join("; ")})`);
      continue;
    }
    if (found.length > 0) {
      const [first] = found;
      if (first.entry.command !== command) {
        changes.push(`updated the ${hook.event} hook: ${command} (was: ${oneLine(String(first.entry.command))})`);
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
  let after: string | null = text ?? "{}\n";
  if (changes.length > 0) {
    // Only the events setup touched are rewritten; the rest of the file stays byte for byte.
    for (const hook of HOOKS) after = withValue(after, ["hooks", hook.event], hooks[hook.event]);
    if (remove) after = withoutEmptyLeftovers(after, "hooks", options.deleteWhenEmpty);
  }
  return { file, before: text, after, changes, shown: batonHooksShown(hooks) };
}

/** Baton's hook entries in `hooks`, each with its group's matcher: what --print shows of a settings file. */
function batonHooksShown(hooks: Json): string {
  return HOOKS.map((hook) => {
    const own = hookCommands(hooks, hook.event).filter(({ entry }) => isBatonCommand(String(entry.command), hook.args));
    const shown = own.map(({ group, entry }) => JSON.stringify({ ...(typeof group.matcher === "string" && { matcher: group.matcher }), hooks: [entry] }, null, 2));
    return `hooks.${hook.event}: ${shown.length > 0 ? shown.join(",\n") : "(none of Baton's)"}`;
  }).join("\n");
}

/** A JSON path as JavaScript writes it: `projects["/home/alice/shop"].mcpServers`. */
const jsonPathShown = (keys: string[]) =>
  keys.map((key, index) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${index > 0 ? "." : ""}${key}` : `[${visibleControls(JSON.stringify(key))}]`)).join("");

/**
 * Whether `server` is the entry setup wrote, from any checkout, install or data folder: `node
 * …/bin/baton.mjs mcp --as code` with at most its pinned variables. A team's own "baton" in a
 * shared .mcp.json (a desk's address, say) is not setup's.
 */
function isBatonServer(server: unknown): boolean {
  const { type, command, args, env, ...rest } = asObject(server);
  const pinnedOnly = env === undefined || Object.entries(asObject(env)).every(([name, value]) => ["BATON_DATA_DIR", "DATABASE_URL"].includes(name) && typeof value === "string");
  return (
    Object.keys(rest).length === 0 &&
    type === "stdio" &&
    command === "node" &&
    Array.isArray(args) &&
    args.length === 4 &&
    typeof args[0] === "string" &&
    args[0].endsWith("/bin/baton.mjs") &&
    args.slice(1).join(" ") === "mcp --as code" &&
    pinnedOnly
  );
}

/**
 * A server entry as its command line or address, without its env or headers: an entry of that
 * name setup replaces may be the user's own, with a token in them.
 */
function serverCommandShown(server: unknown): string {
  const { command, args, url } = asObject(server);
  if (typeof command === "string") return oneLine([command, ...(Array.isArray(args) ? args.map(String) : [])].join(" "));
  if (typeof url !== "string") return "an entry of another kind";
  // Neither credentials nor a query, which may carry a token.
  return URL.canParse(url) ? `${new URL(url).origin}${new URL(url).pathname}` : "an address";
}

/**
 * Plans the server entry at `serversAt` (the JSON path of an `mcpServers` object). `onlyOwn`:
 * removes the entry only in the form setup writes.
 */
function planServer(file: string, serversAt: string[], options: { remove: boolean; deleteWhenEmpty: boolean; onlyOwn?: boolean }): PlannedFile {
  const { remove } = options;
  const { text, json } = readJson(file);
  let servers: Json = json;
  for (const [depth, key] of serversAt.entries()) {
    const value = servers[key];
    if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
      throw new Invalid(`${file}: ${jsonPathShown(serversAt.slice(0, depth + 1))} is not an object; nothing was written`);
    }
    servers = asObject(value);
  }
  const changes: string[] = [];
  const env = pinnedEnvironment();
  const wanted = { type: "stdio", command: "node", args: [batonBinFile(), "mcp", "--as", "code"], ...(Object.keys(env).length > 0 && { env }) };
  const existing = servers[SERVER_NAME];
  const entryAt = [...serversAt, SERVER_NAME];
  // A project's own servers sit under its folder in ~/.claude.json.
  const where = serversAt.length > 1 ? ` (local scope, for ${visibleControls(serversAt[1])})` : "";
  let value: unknown = existing;
  if (remove) {
    if (existing !== undefined && (!options.onlyOwn || isBatonServer(existing))) {
      value = undefined;
      changes.push(`removed the MCP server "${SERVER_NAME}"${where}`);
    }
  } else if (JSON.stringify(existing) !== JSON.stringify(wanted)) {
    value = wanted;
    const command = serverCommandShown(wanted);
    changes.push(existing === undefined ? `added the MCP server "${SERVER_NAME}"${where}: ${command}` : `updated the MCP server "${SERVER_NAME}"${where}: ${command} (was: ${serverCommandShown(existing)})`);
  }
  let after: string | null = changes.length > 0 ? withValue(text, entryAt, value) : (text ?? "{}\n");
  if (remove && after !== null && changes.length > 0 && serversAt.length === 1) after = withoutEmptyLeftovers(after, serversAt[0], options.deleteWhenEmpty);
  // Only the entry: a server of that name that is not Baton's (the team's own, left alone) is not shown either.
  const shown = `${jsonPathShown(entryAt)}: ${value === undefined || (remove && !isBatonServer(value)) ? "(none of Baton's)" : JSON.stringify(value, null, 2)}`;
  return { file, before: text, after, changes, shown };
}

type SetupTargets = {
  settings: string;
  servers: string;
  /** The JSON path of the `mcpServers` object in `servers`. */
  serversAt: string[];
  /** The folder the settings file must stay inside (null: anywhere). */
  root: string | null;
  /** The files an earlier setup wrote into, which Claude Code shares through git; null for --user. */
  shared: { settings: string; servers: string; root: string } | null;
};

/**
 * The folder Claude Code keys a project by: its local-scope servers in ~/.claude.json, and the
 * `.claude/settings.local.json` it reads from any folder below. Tried with Claude Code 2.1's own
 * `claude mcp add --scope local`: from a subfolder and through a linked path it wrote under the
 * repository's real top folder; from a linked worktree, under the main worktree's; from a
 * submodule, under the submodule's.
 */
async function claudeProjectFolder(root: string): Promise<string> {
  const [gitDir, commonDir] = (await runGit(root, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]))?.split("\n") ?? [];
  const linkedWorktree = gitDir !== undefined && commonDir !== undefined && gitDir !== commonDir && path.basename(commonDir) === ".git";
  return fs.realpathSync(linkedWorktree ? path.dirname(commonDir) : root);
}

/** Where setup writes for `scope`, for the repository around `folder` (local scope). */
async function setupTargets(scope: SetupScope, folder: string): Promise<SetupTargets> {
  const home = os.homedir();
  if (scope === "user") {
    return { settings: path.join(home, ".claude", "settings.json"), servers: path.join(home, ".claude.json"), serversAt: ["mcpServers"], root: null, shared: null };
  }
  const identity = await readRepositoryIdentity(folder);
  if (!identity) {
    throw new Invalid(`${folder} is not inside a git repository (or git is not installed): run setup in the repository Claude Code works in, or use --user for every folder`);
  }
  const project = await claudeProjectFolder(identity.root);
  return {
    settings: path.join(project, ".claude", "settings.local.json"),
    servers: path.join(home, ".claude.json"),
    serversAt: ["projects", project, "mcpServers"],
    root: project,
    shared: { settings: path.join(identity.root, ".claude", "settings.json"), servers: path.join(identity.root, ".mcp.json"), root: identity.root },
  };
}

const MAX_LINKS_FOLLOWED = 40;

/**
 * `file` with every symbolic link on its way followed, its folders' too, also where the path
 * does not exist yet (a link to a file still to be written, a folder still to be made).
 */
function realLocation(file: string, linksFollowed = 0): string {
  try {
    return fs.realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat?.isSymbolicLink()) {
    if (linksFollowed >= MAX_LINKS_FOLLOWED) throw Object.assign(new Error(`too many symbolic links at ${file}`), { code: "ELOOP" });
    return realLocation(path.resolve(path.dirname(file), fs.readlinkSync(file)), linksFollowed + 1);
  }
  const parent = path.dirname(file);
  return parent === file ? file : path.join(realLocation(parent, linksFollowed), path.basename(file));
}

const isInside = (folder: string, file: string) => {
  const relative = path.relative(folder, file);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
};

/**
 * The file setup really writes for `file`: its real path, every symbolic link on the way
 * followed, the file's and its folders' (dotfiles often link ~/.claude/settings.json or
 * ~/.claude itself), so a link stays a link. In a repository, a path that leads outside it is
 * refused: writing through would change a file elsewhere (a linked `.claude` once led setup into
 * the user's own ~/.claude/settings.json), and replacing the link would copy that file (secrets
 * included) into the work tree. A file where the folder should be is refused too.
 */
function writtenFile(file: string, root: string | null): string {
  const folder = path.dirname(file);
  let real: string;
  try {
    if (fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new Invalid(`${folder} is a file where Claude Code expects a folder; move it away, then run setup again: nothing was written`);
    }
    real = realLocation(file);
  } catch (error) {
    if (error instanceof Invalid) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new Invalid(`cannot follow the path to ${file} (${code ?? (error as Error).message}); nothing was written`);
  }
  if (root !== null && !isInside(fs.realpathSync(root), real)) {
    const [how, instead] = fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ? [`is a link to ${real}`, "a file"] : [`leads through a linked folder to ${real}`, "a folder"];
    throw new Invalid(`${file} ${how}, outside the repository; setup neither writes through it nor replaces it: add Baton there yourself, or replace the link with ${instead}: nothing was written`);
  }
  return real;
}

/** A file whose permissions say nobody may write it is the user's decision: setup leaves it alone. */
function refuseReadOnly(file: string, remove: boolean): void {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isFile() && (stat.mode & 0o222) === 0) {
    throw new Invalid(`${file} is read-only; setup leaves it alone: make it writable to let setup ${remove ? "take Baton out" : "add Baton"}: nothing was written`);
  }
}

/**
 * What setup (or `remove`) would write; reads the files, writes nothing. An earlier setup's
 * entries in the shared files are taken out on every run, setup's and --remove's alike.
 */
export async function planSetup(options: { scope: SetupScope; folder: string; remove?: boolean }): Promise<{ files: PlannedFile[]; ignoreRule: IgnoreRulePlan | null }> {
  const targets = await setupTargets(options.scope, options.folder);
  const remove = options.remove ?? false;
  const servers = writtenFile(targets.servers, null);
  const settings = writtenFile(targets.settings, targets.root);
  const files: PlannedFile[] = [
    // ~/.claude.json holds the account and servers' secrets: Claude Code makes it 600, and keeps the mode it finds.
    { ...planServer(servers, targets.serversAt, { remove, deleteWhenEmpty: false }), newFileMode: 0o600 },
    // A project's settings file left empty by --remove goes (setup made it); ~/.claude/settings.json is the user's.
    planSettings(settings, { remove, deleteWhenEmpty: targets.shared !== null }),
  ];
  if (targets.shared) {
    const { root } = targets.shared;
    files.push(
      { ...planServer(writtenFile(targets.shared.servers, root), ["mcpServers"], { remove: true, deleteWhenEmpty: true, onlyOwn: true }), shared: true },
      { ...planSettings(writtenFile(targets.shared.settings, root), { remove: true, deleteWhenEmpty: true }), shared: true },
    );
  }
  const twice = files.find((planned, index) => files.findIndex((other) => other.file === planned.file) !== index);
  if (twice) throw new Invalid(`${twice.file} is both where setup writes and a shared file it takes Baton out of (a link joins them); undo the link, then run setup again: nothing was written`);
  for (const planned of files) if (planned.changes.length > 0) refuseReadOnly(planned.file, remove || planned.shared === true);
  const ignoreRule = targets.root !== null && !remove ? await planIgnoreRule(targets.root, targets.settings) : null;
  return { files, ignoreRule };
}

/**
 * The line Claude Code adds to the user's global git ignore file when it first writes local
 * settings itself (seen in Claude Code 2.1's CLI): setup adds the same one.
 */
export const LOCAL_SETTINGS_RULE = "**/.claude/settings.local.json";

/** Where the rule keeping the local settings file out of commits goes, when git does not ignore that file yet. */
export type IgnoreRulePlan = {
  settings: string;
  /** The repository's `info/exclude` (the main worktree's for a linked one). */
  excludeFile: string;
  /** Committed already: no ignore rule applies to it. */
  tracked: boolean;
};

const ignoredByGit = async (root: string, file: string) => (await runGit(root, ["check-ignore", "-q", "--", path.relative(root, file)])) !== null;

/**
 * The rule the project needs so that git never offers the local settings file (this machine's
 * paths) for a commit, or null when git ignores it already. Claude Code only adds its rule once
 * it writes local settings itself, so on a new machine nothing may keep out the file setup writes.
 * The rule goes into the repository's `.git/info/exclude`, not Claude Code's global ignore file:
 * setup (local scope) is about this repository, git always reads that file whatever
 * `core.excludesFile` says, and nothing there is ever committed. Claude Code checks with git
 * before adding its own rule, so it adds none after this one.
 */
async function planIgnoreRule(root: string, settings: string): Promise<IgnoreRulePlan | null> {
  if (await ignoredByGit(root, settings)) return null;
  const excludeFile = await runGit(root, ["rev-parse", "--path-format=absolute", "--git-path", "info/exclude"]);
  if (excludeFile === null) return null;
  const tracked = (await runGit(root, ["ls-files", "--error-unmatch", "--", path.relative(root, settings)])) !== null;
  return { settings, excludeFile, tracked };
}

/**
 * Appends LOCAL_SETTINGS_RULE to the repository's exclude file unless a line holds it already
 * (nothing else in the file changes), and says in one line what it did, or why git still does not
 * ignore the file (committed earlier, or a rule of the repository brings it back).
 */
export async function applyIgnoreRule(plan: IgnoreRulePlan, shown: (file: string) => string): Promise<string> {
  const settings = shown(plan.settings);
  if (plan.tracked) {
    return `${settings} is committed in this repository, so no ignore rule applies to it: \`git rm --cached ${settings}\` keeps it (this machine's paths) out of the next commit`;
  }
  let text = "";
  try {
    text = fs.readFileSync(plan.excludeFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const present = text.split(/\r?\n/).some((line) => line.trim() === LOCAL_SETTINGS_RULE);
  if (!present) {
    fs.mkdirSync(path.dirname(plan.excludeFile), { recursive: true });
    fs.appendFileSync(plan.excludeFile, `${text === "" || text.endsWith("\n") ? "" : "\n"}${LOCAL_SETTINGS_RULE}\n`);
  }
  const root = path.dirname(path.dirname(plan.settings));
  if (!(await ignoredByGit(root, plan.settings))) {
    return `${settings} is still not ignored by git: a rule of the repository (a "!" line in a .gitignore) brings it back; keep it out of commits yourself`;
  }
  return present
    ? `${shown(plan.excludeFile)}: already holds ${LOCAL_SETTINGS_RULE}, nothing to change`
    : `${shown(plan.excludeFile)}: added ${LOCAL_SETTINGS_RULE}, so git never offers ${settings} for a commit (git's own list for this repository: no committed file changed)`;
}

/**
 * Writes the planned files that change, each whole through a temporary file beside it (keeping
 * its mode), or removes one left empty. Each folder is checked to be still the real one planned
 * before anything is written: a folder replaced by a link meanwhile would take the write elsewhere.
 */
export function applySetup(files: PlannedFile[]): void {
  const changing = files.filter((planned) => planned.changes.length > 0);
  for (const planned of changing) {
    const folder = path.dirname(planned.file);
    fs.mkdirSync(folder, { recursive: true });
    const real = fs.realpathSync(folder);
    if (real !== folder) throw new Invalid(`${folder} became a link to ${real} while setup ran; run setup again: nothing was written`);
  }
  for (const planned of changing) {
    if (planned.after === null) {
      fs.rmSync(planned.file, { force: true });
      continue;
    }
    const mode = fs.statSync(planned.file, { throwIfNoEntry: false })?.mode;
    const temporary = `${planned.file}.baton-${process.pid}.tmp`;
    // Made anew and never through a link: a link planted under the temporary name is not followed.
    const descriptor = fs.openSync(temporary, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode === undefined ? (planned.newFileMode ?? 0o666) : mode & 0o777);
    try {
      fs.writeFileSync(descriptor, planned.after);
    } finally {
      fs.closeSync(descriptor);
    }
    try {
      fs.renameSync(temporary, planned.file);
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
  }
}
