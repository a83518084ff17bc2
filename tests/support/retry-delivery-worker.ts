/**
 * Another instance's Retry delivery (what the agent page's button runs), in an OS process of its
 * own on the test file's database and tmux server. argv: <agent id>. Prints `{"record":…}` or
 * `{"refused":"<message>"}` and exits.
 */
import { retryDelivery } from "../../lib/agents";
import { closeDatabase } from "../../lib/database";

try {
  process.stdout.write(`${JSON.stringify({ record: await retryDelivery({ agentId: process.argv[2] }) })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ refused: (error as Error).message })}\n`);
}
await closeDatabase();
