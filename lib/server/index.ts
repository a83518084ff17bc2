/**
 * Serving: Baton's HTTP server, which puts the guard (lib/guard) in front of Next's handler.
 * `npm start` (scripts/serve.ts) and the end-to-end server (scripts/e2e-server.ts) use it.
 */
import "server-only";

export { createGuardedServer, startBatonServer, startRefusal, type BatonServer, type BatonServerOptions } from "./http-server";
