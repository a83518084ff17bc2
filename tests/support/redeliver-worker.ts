/**
 * Another instance's Redeliver (what the desk's button runs), in an OS process of its own on the
 * test file's database. argv: <delivery id>. Prints `{"delivery":…}` or `{"refused":"<message>"}` and exits.
 */
import { closeDatabase } from "../../lib/database";
import { redeliver } from "../../lib/webhooks";

try {
  process.stdout.write(`${JSON.stringify({ delivery: await redeliver({ id: Number(process.argv[2]) }) })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ refused: (error as Error).message })}\n`);
}
await closeDatabase();
