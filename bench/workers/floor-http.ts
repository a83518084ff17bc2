/**
 * The HTTP floor for `npm run bench -- speed`: bare node:http + better-sqlite3 doing Baton's
 * append transaction (floor-store.ts) behind floor-server.ts. Runs bundled, with plain Node.
 * Env: FLOOR_DATABASE, FLOOR_PORT.
 */
import { openFloorStore } from "./floor-store";
import { serveAppends } from "./floor-server";

const store = openFloorStore(process.env.FLOOR_DATABASE ?? "");
serveAppends(store.append);
