import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";
import { withCaller, type Caller } from "../caller";
import { Unavailable } from "../errors";
import { UNAVAILABLE_RETRY_AFTER_S } from "../http";
import { actionRefusalText } from "./action-refusal";
import { clientAddressOf } from "./client-address";
import { oauthUrls, publicBaseUrl } from "../oauth";
import type { GuardPolicy } from "./policy";
import { reentryCallerOf } from "./reentry";
import { screenRequest, type Verdict } from "./screen";

/**
 * What Baton's router knows about every request: Node's request and response (Hono's
 * @hono/node-server bindings), and, once the guard admitted it, its caller.
 */
export type BatonEnv = { Bindings: HttpBindings; Variables: { caller: Caller; clientAddress: string } };

const jsonRpcPaths = new Set(["/api/mcp"]);

/**
 * The page sign-in returns to: `url` without the `_rsc` Next adds to a client-side navigation or
 * a live refresh (the request that meets an ended session), which would stay in the address bar.
 */
function signInReturn(url: string): string {
  const target = new URL(url, "http://baton.invalid");
  if (!target.searchParams.has("_rsc")) return url;
  target.searchParams.delete("_rsc");
  return target.pathname + target.search;
}

/**
 * A request the guard could not decide because the database refused for now (a credential's check
 * met a busy, stopped or unreachable database): nothing was done, and the same request may be
 * sent again, as every door says of Unavailable.
 */
type Undecided = { ok: false; status: 503; reason: string; signIn?: undefined; invalidToken?: undefined };

function refusal(path: string, url: string, host: string | null, verdict: Exclude<Verdict, { ok: true }> | Undecided, serverAction: boolean): Response {
  if (verdict.status === 401 && verdict.signIn) {
    return new Response(null, { status: 303, headers: { location: `/sign-in?next=${encodeURIComponent(signInReturn(url))}`, "cache-control": "no-store" } });
  }
  // A dashboard form's post: text its form can read (action-refusal.ts), exactly text/plain as Next's client requires.
  if (serverAction && !path.startsWith("/api/")) {
    return new Response(actionRefusalText(verdict.status, verdict.reason), { status: verdict.status, headers: { "content-type": "text/plain", "cache-control": "no-store" } });
  }
  const body = jsonRpcPaths.has(path)
    ? { jsonrpc: "2.0", error: { code: -32000, message: verdict.reason }, id: null }
    : { error: { code: verdict.status === 401 ? "UNAUTHENTICATED" : verdict.status === 503 ? "UNAVAILABLE" : "REFUSED", message: verdict.reason } };
  const headers = new Headers({ "content-type": "application/json", "cache-control": "no-store" });
  if (verdict.status === 503) headers.set("retry-after", String(UNAVAILABLE_RETRY_AFTER_S));
  if (verdict.status === 401) {
    // RFC 6750 §3: a presented token that failed is invalid_token, so a client refreshes or re-authorizes.
    const challenge = ['Bearer realm="baton"'];
    if (verdict.invalidToken) challenge.push('error="invalid_token"', 'error_description="the access token is unknown, expired or revoked"');
    // On the MCP endpoint, the 401 tells a connector where its OAuth discovery starts (RFC 9728 §5.1).
    if (jsonRpcPaths.has(path)) challenge.push(`resource_metadata="${oauthUrls(publicBaseUrl(host)).protectedResourceMetadata}"`);
    headers.set("www-authenticate", challenge.join(", "));
  }
  // A body left unread (413, 411) keeps the connection open: @hono/node-server drains it after the
  // answer (up to 64 MiB within 500 ms, then closes), so a client still sending reads the refusal.
  // `connection: close` here reset such clients before they read it.
  return new Response(JSON.stringify(body), { status: verdict.status, headers });
}

/** Requests whose client waits for 100 Continue before sending its body (Node's `checkContinue`), with what to do once it is sent. */
const awaitingContinue = new WeakMap<IncomingMessage, () => void>();

/**
 * For the server's `checkContinue`: Node would have answered `Expect: 100-continue` with 100
 * Continue before any check, and the client would have sent a body the guard then refused. The
 * guard sends it once it has admitted the request (askForBody), so a refusal (413, 401, 403 …)
 * goes out before a byte of the body is sent; `sent` runs then (the body's clock starts: the
 * client could not send before).
 */
export function holdContinue(incoming: IncomingMessage, sent: () => void): void {
  awaitingContinue.set(incoming, sent);
}

function askForBody(incoming: IncomingMessage, outgoing: ServerResponse): void {
  const sent = awaitingContinue.get(incoming);
  if (!sent) return;
  awaitingContinue.delete(incoming);
  outgoing.writeContinue();
  sent();
}

/**
 * The guard as the router's first middleware: screens the request (lib/guard/screen.ts), refuses
 * it, or sets its caller (`c.var.caller`) and where it came from (`c.var.clientAddress`, through
 * trusted proxies) on the context and runs everything after it (routes,
 * and Next for pages and server actions) with that caller current (lib/caller.ts), so domain
 * functions see the same value.
 */
export function guard(policy: GuardPolicy): MiddlewareHandler<BatonEnv> {
  return async (c, next) => {
    const incoming = c.env.incoming;
    c.set("clientAddress", clientAddressOf(incoming, policy.trustProxy));
    const reentry = reentryCallerOf(incoming);
    if (reentry) {
      c.set("caller", reentry);
      askForBody(incoming, c.env.outgoing);
      return withCaller(reentry, next);
    }
    const url = incoming.url ?? "/";
    const refuse = (refused: Exclude<Verdict, { ok: true }> | Undecided) =>
      refusal(url.split("?")[0], url, incoming.headers.host ?? null, refused, incoming.headers["next-action"] !== undefined);
    let verdict: Verdict;
    try {
      verdict = await screenRequest(policy, incoming);
    } catch (error) {
      // The database refused the credential's check for now: said as every door says it, with no stack.
      if (error instanceof Unavailable) return refuse({ ok: false, status: 503, reason: error.message });
      console.error("baton: the guard failed", error);
      return c.json({ error: { code: "UNAVAILABLE", message: "Baton could not check this request; see the server log" } }, 503);
    }
    if (!verdict.ok) return refuse(verdict);
    c.set("caller", verdict.caller);
    askForBody(incoming, c.env.outgoing);
    await withCaller(verdict.caller, next);
  };
}
