import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";

/**
 * A page's own HTTP status. Next's App Router answers every page it renders 200 (only notFound()
 * and redirects have statuses of their own), so a page that shows a refusal (the OAuth consent
 * page for a request that cannot be used) says so with answerPageWith, and the 200 Next writes
 * becomes that status. The response is kept like the caller (lib/caller.ts): one store for the
 * whole process, since Next's server bundle and Baton's own server each load this module.
 */
const storeKey = Symbol.for("baton.page-response.store");
type PageResponseGlobal = { [storeKey]?: AsyncLocalStorage<ServerResponse> };
const holder = globalThis as PageResponseGlobal;
const store = (holder[storeKey] ??= new AsyncLocalStorage<ServerResponse>());

/** Runs Next's handler for one request with its response at hand (lib/server/app.ts). */
export function servingPage<T>(outgoing: ServerResponse, serve: () => Promise<T>): Promise<T> {
  return store.run(outgoing, serve);
}

/**
 * Answers the page being rendered with `status` where Next would answer 200; its body is still
 * the page. Outside Baton's server (no response at hand) or once the head is sent, nothing changes.
 */
export function answerPageWith(status: number): void {
  const outgoing = store.getStore();
  if (!outgoing || outgoing.headersSent) return;
  const writeHead = outgoing.writeHead;
  // Node writes an implicit head through writeHead too (the first write or end without one).
  outgoing.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    return Reflect.apply(writeHead, this, [code === 200 ? status : code, ...rest]) as ServerResponse;
  } as ServerResponse["writeHead"];
}
