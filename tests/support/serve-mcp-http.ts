/**
 * Baton's HTTP API (the guard and the router, MCP included; tests/support/api-server.ts) as an OS
 * process of its own, so the crash-safety test and bench can SIGKILL it mid-request. Writes the
 * data folder's database named by DATABASE_URL / BATON_DATA_DIR; prints `listening <origin>` once
 * it accepts connections and serves until it is signalled.
 */
import { serveApi } from "./api-server";

const { origin } = await serveApi(process.env);
console.log(`listening ${origin}`);
