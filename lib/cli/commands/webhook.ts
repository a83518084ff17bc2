import "server-only";
import { createWebhook, listWebhooks, removeWebhook, WEBHOOK_EVENTS } from "../../webhooks";
import { ensureMigrated } from "../../database/migrate";
import { parseCommandArgs, usageError, wholeNumberArgument } from "../args";
import { runVerb } from "../verbs";

const USAGE = `usage: baton webhook add <url> --events a,b [--types question,decision]
       baton webhook list
       baton webhook remove <id>

Registers URLs that Baton POSTs signed JSON to when something happens. Events:
${WEBHOOK_EVENTS.join(", ")}. --types limits entry.created to those entry types (with
any other events alone it is refused: it would narrow nothing).
add prints the hook's signing secret alone on standard output, once: it is not shown again.
Deliveries are sent by the running server (npm start), retried for a day, and listed with
Redeliver, Pause and Resume at /settings/webhooks.`;

const list = (value: string | undefined) => (value ?? "").split(",").map((part) => part.trim()).filter(Boolean);

async function add(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("webhook", USAGE, args, { allowPositionals: true, options: { events: { type: "string" }, types: { type: "string" } } });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1) return usageError("webhook", "add takes one URL", USAGE);
  if (!parsed.values.events) return usageError("webhook", `add needs --events, among ${WEBHOOK_EVENTS.join(", ")}`, USAGE);
  await ensureMigrated();
  const { webhook, secret } = await createWebhook({ url: parsed.positionals[0], events: list(parsed.values.events), types: list(parsed.values.types) });
  process.stdout.write(`${secret}\n`);
  process.stderr.write(`added webhook ${webhook.id} for ${webhook.events.join(", ")}; the secret above is shown only this once\n`);
  return 0;
}

async function show(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("webhook", USAGE, args, { options: {} });
  if (typeof parsed === "number") return parsed;
  await ensureMigrated();
  const hooks = await listWebhooks();
  if (hooks.length === 0) process.stderr.write("no webhooks; add one with `baton webhook add <url> --events question.asked`\n");
  for (const hook of hooks) {
    const types = hook.types.length ? ` (types ${hook.types.join(",")})` : "";
    const failing = hook.consecutiveFailures ? `\t${hook.consecutiveFailures} failures in a row` : "";
    process.stdout.write(`${hook.id}\t${hook.status}\t${hook.url}\t${hook.events.join(",")}${types}${failing}\n`);
  }
  return 0;
}

async function remove(args: string[]): Promise<number> {
  const parsed = parseCommandArgs("webhook", USAGE, args, { allowPositionals: true, options: {} });
  if (typeof parsed === "number") return parsed;
  if (parsed.positionals.length !== 1) return usageError("webhook", "remove takes one webhook id", USAGE);
  const id = wholeNumberArgument("the webhook id", parsed.positionals[0]);
  if ("refused" in id) return usageError("webhook", id.refused, USAGE);
  await ensureMigrated();
  await removeWebhook({ id: id.value });
  process.stderr.write(`removed webhook ${id.value} and its deliveries\n`);
  return 0;
}

export function run(args: string[]): Promise<number> {
  return runVerb("webhook", USAGE, { add, list: show, remove }, args);
}
