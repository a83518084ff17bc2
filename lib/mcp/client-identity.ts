import { Invalid } from "../errors";
import { CLIENT_SIDES, type ClientSide } from "../handoffs/schemas";
import { quotedField } from "../validation";

export type StdioOptions = { defaultClient: ClientSide; help: boolean };

function sideOf(value: string, source: string): ClientSide {
  const side = CLIENT_SIDES.find((candidate) => candidate === value.trim().toLowerCase());
  // Quoted cut and escaped: an argument or a variable may be anything, 100 KB of it.
  if (!side) throw new Invalid(`${source} must be "chat" or "code", got "${quotedField(value)}"`);
  return side;
}

/**
 * `baton mcp` arguments: `--as code|chat` (or `--as=code`) sets the identity of calls that omit
 * `as_client`; without it BATON_CLIENT does; without both it is chat, as in the seed.
 */
export function parseStdioArgs(args: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): StdioOptions {
  let flag: string | undefined;
  let help = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--help" || arg === "-h") help = true;
    else if (arg === "--as") {
      flag = args[++index];
      if (flag === undefined) throw new Invalid('--as needs a value: "chat" or "code"');
    } else if (arg.startsWith("--as=")) flag = arg.slice("--as=".length);
    else throw new Invalid(`unknown argument "${quotedField(arg)}"`);
  }
  if (flag !== undefined) return { defaultClient: sideOf(flag, "--as"), help };
  if (env.BATON_CLIENT) return { defaultClient: sideOf(env.BATON_CLIENT, "BATON_CLIENT"), help };
  return { defaultClient: "chat", help };
}

export const STDIO_USAGE = [
  "usage: baton mcp [--as chat|code]",
  "",
  "Serves Baton's MCP tools over stdio (stdout carries only MCP messages; logs go to stderr).",
  "--as code   calls without as_client count as Claude Code (default: BATON_CLIENT, else chat)",
].join("\n");
