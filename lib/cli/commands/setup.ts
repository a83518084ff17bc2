import "server-only";
import os from "node:os";
import path from "node:path";
import { isDomainError } from "../../errors";
import { prepareBatonCommand } from "../../hooks/baton-command";
import { applyIgnoreRule, applySetup, LOCAL_SETTINGS_RULE, planSetup, SERVER_NAME, type SetupScope } from "../../hooks/setup-claude-code";
import { isCheckout } from "../../paths.mjs";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton setup claude-code [--user] [--print] [--remove]

Sets Claude Code up to pick up handoffs by itself, in the git repository around the current folder,
privately (Claude Code's local scope: the commands name this machine's paths):
  ~/.claude.json               Baton's MCP server ("${SERVER_NAME}", baton mcp --as code), under this
                               repository in "projects" (as claude mcp add --scope local writes it)
  .claude/settings.local.json  hooks: SessionStart (baton hook session-start: handoffs waiting for
                               this repository come into the session), Stop (baton hook stop: a
                               one-time reminder of an unanswered question from chat), PreCompact
                               (baton checkpoint --hook --push)
Every setting and entry already in those files stays; a second run changes nothing. What an earlier
setup wrote into the shared .mcp.json and .claude/settings.json is taken out of them. When git does
not ignore .claude/settings.local.json yet, ${LOCAL_SETTINGS_RULE} is added to .git/info/exclude.
  --user    write ~/.claude.json (mcpServers) and ~/.claude/settings.json instead, for every folder
  --print   show Baton's entries as setup would leave them (nothing else of the files), write nothing
  --remove  take out what setup added (turns automatic pickup off), nothing else`;

/** A file as the user finds it from here: relative to this folder, else to the home folder (~/.claude.json). */
function relative(file: string): string {
  const fromHere = path.relative(process.cwd(), file);
  const fromHome = path.relative(os.homedir(), file);
  if (fromHere.startsWith("..") && !fromHome.startsWith("..") && !path.isAbsolute(fromHome)) return `~/${fromHome}`;
  return fromHere || file;
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("setup", USAGE, args, {
    allowPositionals: true,
    options: { user: { type: "boolean" }, print: { type: "boolean" }, remove: { type: "boolean" } },
  });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== "claude-code") return usageError("setup", 'name the client to set up: "claude-code"', USAGE);
  const scope: SetupScope = parsed.values.user ? "user" : "local";
  const remove = parsed.values.remove ?? false;
  let plan;
  try {
    plan = await planSetup({ scope, folder: process.cwd(), remove });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    process.stderr.write(`baton setup: ${error.message}\n`);
    return 1;
  }
  if (parsed.values.print) {
    for (const file of plan.files) {
      if (file.shared && file.changes.length === 0) continue;
      const after = file.after === null ? "(removed: nothing else is left in it)" : file.shown;
      process.stdout.write(`# ${file.file}${file.changes.length ? "" : " (unchanged)"}\n${after}\n\n`);
    }
    if (plan.ignoreRule !== null && !plan.ignoreRule.tracked) {
      process.stdout.write(`# ${plan.ignoreRule.excludeFile} (git does not ignore ${relative(plan.ignoreRule.settings)} yet: a line appended)\n${LOCAL_SETTINGS_RULE}\n`);
    }
    return 0;
  }
  if (!remove) {
    try {
      await prepareBatonCommand();
    } catch (error) {
      // From npx the commands would start a copy that is not there: write nothing. In a checkout only speed is lost.
      if (!isCheckout()) {
        process.stderr.write(`baton setup: could not copy Baton's runtime into the data folder (${(error as Error).message}); nothing was written\n`);
        return 1;
      }
      process.stderr.write(`baton setup: could not prebuild the hook (${(error as Error).message}); hooks still work, the first ones start more slowly\n`);
    }
  }
  try {
    applySetup(plan.files);
  } catch (error) {
    if (isDomainError(error)) process.stderr.write(`baton setup: ${error.message}\n`);
    else process.stderr.write(`baton setup: could not write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}: ${(error as Error).message.split("\n")[0]})\n`);
    return 1;
  }
  for (const file of plan.files) {
    if (file.shared && (file.changes.length === 0 || !remove)) continue;
    if (file.changes.length === 0) process.stdout.write(`${relative(file.file)}: ${remove ? "nothing of Baton's in it" : "already set up"}, nothing to change\n`);
    for (const change of file.changes) process.stdout.write(`${relative(file.file)}: ${change}\n`);
    if (file.changes.length > 0 && file.after === null) process.stdout.write(`${relative(file.file)}: removed the file, nothing else was left in it\n`);
  }
  if (remove) return 0;
  const moved = plan.files.filter((file) => file.shared && file.changes.length > 0);
  if (moved.length > 0) {
    const emptied = moved.filter((file) => file.after === null).map((file) => relative(file.file));
    process.stdout.write(
      `${moved.map((file) => relative(file.file)).join(", ")}: took out the server and hooks an earlier setup wrote there (files Claude Code shares through git, and they name this machine's paths); they are in the local files above now` +
        `${emptied.length > 0 ? `; removed ${emptied.join(" and ")}, nothing else was left in ${emptied.length > 1 ? "them" : "it"}` : ""}\n`,
    );
  }
  if (plan.ignoreRule !== null) {
    try {
      process.stdout.write(`${await applyIgnoreRule(plan.ignoreRule, relative)}\n`);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      process.stdout.write(`${relative(plan.ignoreRule.settings)} is not ignored by git, and ${relative(plan.ignoreRule.excludeFile)} could not be written (${code}): add ${LOCAL_SETTINGS_RULE} to it so the file is never committed\n`);
    }
  }
  process.stdout.write(
    `\nCheck: \`claude mcp list\` in this folder lists "${SERVER_NAME}" as connected; /hooks inside Claude Code lists the hooks.\n` +
      "The PreCompact hook updates .flow-guardian/handoff.yaml: save a first checkpoint by hand (`baton checkpoint --goal … --now …`).\n" +
      "Tie handoffs without a recorded repository (from claude.ai, say) to this one with `baton link --project NAME`.\n",
  );
  return 0;
}
