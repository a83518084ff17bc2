import "server-only";
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { secureHeaders } from "hono/secure-headers";

/**
 * What every answer tells the browser. The API's JSON goes through Hono's secure-headers
 * middleware; pages are written by Next straight to Node's response, where no Hono middleware
 * can reach, so `pageSecurityHeaders` sets the same headers there, with the page's CSP.
 * Framing is refused everywhere (`frame-ancestors 'none'` and `X-Frame-Options: DENY`): a framed
 * consent page is a clickjacking target.
 */
const COMMON = {
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
} as const;

/** For JSON, text and downloads: nothing may run, load or frame. */
const ANSWER_CSP = { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] };

/**
 * Every answer the router makes (the API's, the guard's refusals, redirects to sign-in); Next's
 * pages get theirs from `pageSecurityHeaders`.
 */
export const apiSecurityHeaders = secureHeaders({
  contentSecurityPolicy: ANSWER_CSP,
  xFrameOptions: COMMON["x-frame-options"],
  referrerPolicy: COMMON["referrer-policy"],
  crossOriginOpenerPolicy: COMMON["cross-origin-opener-policy"],
  // Artifacts are downloaded by the dashboard's own pages only.
  crossOriginResourcePolicy: "same-origin",
  strictTransportSecurity: false,
  xXssProtection: false,
});

/** A fresh nonce for one page: Next puts it on every script it renders (it reads the request's CSP). */
export const newNonce = () => randomBytes(16).toString("base64");

/**
 * The pages' policy: scripts only from this origin with this request's nonce (Next's inline
 * bootstrap carries it); styles from this origin and inline (React sets style attributes);
 * connections only back here (the change feed, server actions). `dev` allows what Next's
 * development server needs (eval for fast refresh, its websocket).
 */
export function pageContentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Sets a page's security headers on Node's response before Next writes it. */
export function pageSecurityHeaders(outgoing: ServerResponse, policy: string): void {
  for (const [name, value] of Object.entries(COMMON)) outgoing.setHeader(name, value);
  outgoing.setHeader("content-security-policy", policy);
}

/**
 * The same headers for answers written on Node's response or socket before the router runs (a
 * request line or a request the HTTP parser refuses).
 */
export const RAW_ANSWER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...COMMON,
  "content-security-policy": Object.entries(ANSWER_CSP)
    .map(([directive, sources]) => `${directive.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${sources.join(" ")}`)
    .join("; "),
  "cross-origin-resource-policy": "same-origin",
};
