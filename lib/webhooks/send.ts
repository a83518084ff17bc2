import "server-only";
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { addressProblem, webhookUrlProblem } from "./addresses";
import type { Due } from "./queue";
import { signatureHeader } from "./signature";

/** A delivery Baton will not make: retrying cannot help, the operator must change the hook. */
export class RefusedDestination extends Error {}

/**
 * Resolves as the system does and refuses a name any of whose addresses lib/webhooks/addresses
 * refuses. It runs inside the connection itself, so the address checked is the address connected
 * to (no window for a DNS answer to change in between). Node skips it for IP literals, which
 * `webhookUrlProblem` has judged already.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "");
    for (const { address } of addresses) {
      const problem = addressProblem(address);
      if (problem) return callback(new RefusedDestination(`${hostname} resolves to ${address}, ${problem}`), "");
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * POSTs `body` to `url` once and answers the HTTP status, never following a redirect and reading
 * no more than the status line and headers. Throws RefusedDestination for a URL or resolved
 * address the rules refuse, before anything is sent; otherwise the network's error (an
 * AbortError after `timeoutMs`, or when `signal` aborts). node:http rather than fetch: fetch
 * offers no hook on the address it connects to.
 */
export function postOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  const problem = webhookUrlProblem(url);
  if (problem) return Promise.reject(new RefusedDestination(problem));
  const target = new URL(url);
  const transport = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup,
        // A connection of its own: no pooled socket another part of the process opened unchecked.
        agent: false,
        signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        // Only the status matters: a receiver that keeps talking keeps nothing open.
        response.destroy();
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const ERROR_TEXT_MAX = 300;

const clip = (text: string) => (text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text);

export type AttemptResult = {
  status: number | null;
  ms: number;
  error: string | null;
  /** Refused before sending: no retry can help. */
  refused?: boolean;
};

/** One signed POST of a claimed delivery, and how it went (never a throw). */
export async function attempt(due: Due, timeoutMs: number, signal: AbortSignal): Promise<AttemptResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // The delivery's id inside the signed body, as X-Baton-Delivery says it: a receiver dropping
    // repeats by it also drops a request someone captured and sends again within the timestamp's
    // tolerance under another X-Baton-Delivery (no header is signed).
    const body = JSON.stringify({ id: due.id, ...(JSON.parse(due.payload) as object) });
    const headers = {
      "content-type": "application/json",
      "user-agent": "Baton-Webhook/1",
      "x-baton-event": due.event,
      "x-baton-delivery": String(due.id),
      "x-baton-signature": signatureHeader(due.secret, timestamp, body),
    };
    // Only the registered URL is ever contacted: a redirect is an answer, not an instruction.
    const status = await postOnce(due.url, body, headers, timeoutMs, signal);
    const ok = status >= 200 && status < 300;
    return { status, ms: elapsed(), error: ok ? null : `answered HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}` };
  } catch (error) {
    if (error instanceof RefusedDestination) return { status: null, ms: elapsed(), error: clip(`not sent: ${error.message}`), refused: true };
    const { name, code, message } = error as NodeJS.ErrnoException;
    const reason = name === "AbortError" ? `no answer within ${timeoutMs / 1000} s` : (code ?? message);
    return { status: null, ms: elapsed(), error: clip(String(reason)) };
  }
}

