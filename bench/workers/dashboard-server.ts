/**
 * The dashboard as `npm start` serves it (Baton's own server, the guard in front of Next's
 * handler), from the production build in BATON_DIST_DIR, in a process of its own so the bench
 * can read its memory and its load does not share an event loop with the bench's clients.
 * Env: PORT (and the data folder's). Prints "ready <url>" once listening; SIGTERM stops it.
 */
import { startBatonServer } from "../../lib/server";

const projectRoot = new URL("../..", import.meta.url).pathname;
const server = await startBatonServer({ dir: projectRoot, host: "127.0.0.1", port: Number(process.env.PORT) });
process.stdout.write(`ready ${server.url}\n`);
process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
