/**
 * Serving: Baton's HTTP server (http-server.ts) and its router (app.ts: the guard, the API in
 * api.ts, then Next for pages). `npm start` (scripts/serve.ts, compiled by
 * scripts/build-server.ts) and the end-to-end server use it; tests serve the API alone with
 * `createBatonHttpServer` on a real socket.
 */
import "server-only";

export { createBatonApp, type BatonAppOptions, type PagesHandler } from "./app";
export { createBatonHttpServer, dropBatonHeaders, startBatonServer, startRefusal, type BatonServer, type BatonServerOptions } from "./http-server";
