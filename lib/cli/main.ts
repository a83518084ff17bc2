/**
 * `baton <command> [args]`: the command-line door. Each command lives in lib/cli/commands/ and
 * is loaded only when called, so `baton mcp` starts without loading the others. Whatever a
 * command leaves unanswered ends here as one line (failureLine), never a stack trace.
 */
import "server-only";
import fs from "node:fs";
import path from "node:path";
import { quotedOneLine } from "../one-line";
import { isCheckout, projectRoot } from "../paths.mjs";
import { failureDetails, failureLine, logErrorsInOneLine } from "./failure";

type Command = { summary: string; load: () => Promise<{ run: (args: string[]) => Promise<number> }> };

const commands: Record<string, Command> = {
  mcp: { summary: "serve the MCP tools over stdio (--as code|chat)", load: () => import("./commands/mcp") },
  import: { summary: "import a handoff document (bundle, handoff.json, handoff.yaml)", load: () => import("./commands/import") },
  export: { summary: "export a thread: export <hof id> --format bundle|json|yaml [--cut N] [--out FILE]", load: () => import("./commands/export") },
  close: { summary: "close a handoff: close <hof id> [--archive] (keep it as a context bundle first)", load: () => import("./commands/close") },
  token: { summary: "manage access tokens: token create --name NAME --role operator|agent, token list, token revoke NAME", load: () => import("./commands/token") },
  webhook: { summary: "manage webhooks: webhook add <url> --events a,b [--types question,decision], webhook list, webhook remove <id>", load: () => import("./commands/webhook") },
  secrets: { summary: "find secrets stored before: secrets scan [--redact] (replaces them with [redacted: <kind>])", load: () => import("./commands/secrets") },
  hook: { summary: "Claude Code's hooks: hook session-start|stop (reads the hook's JSON on stdin; see baton setup claude-code)", load: () => import("./commands/hook") },
  setup: { summary: "set Claude Code up to pick up handoffs: setup claude-code [--user] [--print] [--remove]", load: () => import("./commands/setup") },
  link: { summary: "tie this repository to a project's handoffs: link [--project NAME | --unlink | --list]", load: () => import("./commands/link") },
  "copy-data": { summary: "move this desk to a team server: copy-data --to postgresql://… (an empty database; verified)", load: () => import("./commands/copy-data") },
  checkpoint: { summary: "save or update .flow-guardian/handoff.yaml for this project (--push mirrors it)", load: () => import("./commands/checkpoint") },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(11)} ${command.summary}`);
  // The package's `baton` alone serves the desk (lib/package/entry.mjs); a checkout serves with `npm start`.
  const start = isCheckout() ? [] : [`  ${"start".padEnd(11)} serve the desk on http://127.0.0.1:3000 (HOST, PORT), as \`baton\` alone does`];
  return ["usage: baton <command> [options]", "", "commands:", ...start, ...lines, "", `  ${"--version".padEnd(11)} print Baton's version`].join("\n");
}

export async function run(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  // Asked for, the usage is the answer (stdout, 0); given instead of a command, a refusal (stderr, 2).
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (!name) {
    process.stderr.write(`${usage()}\n`);
    return 2;
  }
  if (name === "--version" || name === "-v") {
    const { version } = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`baton: unknown command ${quotedOneLine(name)}\n\n${usage()}\n`);
    return 2;
  }
  logErrorsInOneLine();
  try {
    return await (await command.load()).run(args);
  } catch (error) {
    process.stderr.write(`baton ${name}: ${failureLine(error)}\n`);
    const details = failureDetails(error);
    if (details) process.stderr.write(`${details}\n`);
    return 1;
  }
}
