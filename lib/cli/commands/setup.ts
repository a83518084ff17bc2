import "server-only";
import path from "node:path";
import { isDomainError } from "../../errors";
import { prepareBatonCommand } from "../../hooks/baton-command";
import { applySetup, planSetup, SERVER_NAME, type SetupScope } from "../../hooks/setup-claude-code";
import { isCheckout } from "../../paths.mjs";
import { parseCommandArgs, usageError } from "../args";

const USAGE = `usage: baton setup claude-code [--user] [--print] [--remove]

Sets Claude Code up to pick up handoffs by itself, in the git repository around the current folder:
  .mcp.json              Baton's MCP server ("${SERVER_NAME}", baton mcp --as code)
  .claude/settings.json  hooks: SessionStart (baton hook session-start: handoffs waiting for this
                         repository come into the session), Stop (baton hook stop: a one-time
                         reminder of an unanswered question from chat), PreCompact (baton checkpoint
                         --hook --push)
Every setting and entry already in those files stays; a second run changes nothing.
  --user    write ~/.claude.json (mcpServers) and ~/.claude/settings.json instead, for every folder
  --print   show what would be written, write nothing
  --remove  take out what setup added (turns automatic pickup off), nothing else`;

const relative = (file: string) => path.relative(process.cwd(), file) || file;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("setup", USAGE, args, {
    allowPositionals: true,
    options: { user: { type: "boolean" }, print: { type: "boolean" }, remove: { type: "boolean" } },
  });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== "claude-code") return usageError("setup", 'name the client to set up: "claude-code"', USAGE);
  const scope: SetupScope = parsed.values.user ? "user" : "project";
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
      const after = file.after ?? "(removed: nothing else is left in it)";
      process.stdout.write(`# ${file.file}${file.changes.length ? "" : " (unchanged)"}\n${after}\n`);
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
    if (file.changes.length === 0) process.stdout.write(`${relative(file.file)}: ${remove ? "nothing of Baton's in it" : "already set up"}, nothing to change\n`);
    for (const change of file.changes) process.stdout.write(`${relative(file.file)}: ${change}\n`);
    if (file.changes.length > 0 && file.after === null) process.stdout.write(`${relative(file.file)}: removed the file, nothing else was left in it\n`);
  }
  if (remove) return 0;
  const approve =
    scope === "project"
      ? `Claude Code asks once before it starts a project's .mcp.json server: start \`claude\` here and choose to use "${SERVER_NAME}" (or approve it in /mcp).\n`
      : "";
  process.stdout.write(
    `\n${approve}Check: \`claude mcp list\` in this folder lists "${SERVER_NAME}" as connected; /hooks inside Claude Code lists the hooks.\n` +
      "The PreCompact hook updates .flow-guardian/handoff.yaml: save a first checkpoint by hand (`baton checkpoint --goal … --now …`).\n" +
      "Tie handoffs without a recorded repository (from claude.ai, say) to this one with `baton link --project NAME`.\n",
  );
  return 0;
}
