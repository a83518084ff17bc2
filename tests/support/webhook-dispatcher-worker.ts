/**
 * Another instance's webhook dispatcher, in an OS process of its own on the test file's
 * database, for the tests of delivering once across instances. argv: <DispatcherOptions as
 * JSON>. Prints "ready" once it follows the change feed; stops (handing back what it claimed)
 * when its stdin closes. A SIGKILL leaves its claims to their lease.
 */
import { closeDatabase } from "../../lib/database";
import { startWebhookDispatcher } from "../../lib/webhooks";

const dispatcher = startWebhookDispatcher(JSON.parse(process.argv[2] ?? "{}"));
await dispatcher.ready;
process.stdout.write("ready\n");
process.stdin.resume();
process.stdin.on("end", async () => {
  await dispatcher.stop();
  await closeDatabase();
  process.exit(0);
});
