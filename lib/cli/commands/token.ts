import "server-only";
import { createToken, listTokens, revokeToken } from "../../auth";
import { ensureMigrated } from "../../database/migrate";
import { oneLine } from "../../one-line";
import { parseCommandArgs, usageError } from "../args";
import { runVerb } from "../verbs";

const USAGE = `usage: baton token create --name NAME --role operator|agent
       baton token list
       baton token revoke NAME

Manages the named access tokens of this machine's Baton (the database in the data folder).
create prints the new token alone on standard output, once: capture it, it is stored only as a
hash. operator tokens reach everything; agent tokens reach /api/mcp and the thread and agent API.
revoke takes effect on the next request.`;

async function create(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("token", USAGE, args, { options: { name: { type: "string" }, role: { type: "string" } } });
  if (typeof parsed === "number") return parsed;
  if (!parsed.values.name || !parsed.values.role) return usageError("token", "create needs --name and --role", USAGE);
  await ensureMigrated();
  const { token, view } = await createToken({ name: parsed.values.name, role: parsed.values.role });
  process.stdout.write(`${token}\n`);
  process.stderr.write(`created ${view.role} token "${view.name}"; it is shown only this once\n`);
  return 0;
}

async function list(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("token", USAGE, args, { options: {} });
  if (typeof parsed === "number") return parsed;
  await ensureMigrated();
  const tokens = await listTokens();
  if (tokens.length === 0) process.stderr.write("no tokens; create one with `baton token create --name NAME --role operator`\n");
  for (const token of tokens) {
    // A connector's name is what its registration sent (line breaks and tabs kept): escaped, it stays in its column.
    const connector = token.connector ? `\t${oneLine(token.connector.label)}` : "";
    process.stdout.write(`${token.name}\t${token.role}\tcreated ${token.createdAt}\tlast used ${token.lastUsedAt ?? "never"}${connector}\n`);
  }
  return 0;
}

async function revoke(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("token", USAGE, args, { allowPositionals: true, options: {} });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1) return usageError("token", "revoke takes one token name", USAGE);
  await ensureMigrated();
  await revokeToken({ name: parsed.positionals[0] });
  process.stderr.write(`revoked "${parsed.positionals[0]}"\n`);
  return 0;
}

export function run(args: string[]): Promise<number> {
  return runVerb("token", USAGE, { create, list, revoke }, args);
}
