import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ensureGrant, hashSecret } from "../auth/tokens";
import { clientSideSchema, type ClientSide } from "../handoffs/schemas";
import { Invalid } from "../errors";
import { storedDate, write } from "../sqlite";
import { parseInput, visibleControls } from "../validation";
import { findClient, type OAuthClient } from "./clients";
import { CODE_PREFIX, CODE_TTL_MS } from "./secrets";

/** What an authorization request carries (the query of GET /oauth/authorize, or the consent form's hidden fields). */
export type AuthorizationParams = Partial<Record<"client_id" | "redirect_uri" | "response_type" | "code_challenge" | "code_challenge_method" | "resource" | "state", string>>;
export const AUTHORIZATION_PARAM_NAMES = ["client_id", "redirect_uri", "response_type", "code_challenge", "code_challenge_method", "resource", "state"] as const;

export type AuthorizationRequest = {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  state: string | undefined;
};

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** Neither the client nor its redirect URI can be trusted: show the problem, never redirect. */
  | { ok: false; redirect: null; message: string }
  /** The client and redirect URI are known: the error goes back to the client (RFC 6749 §4.1.2.1). */
  | { ok: false; redirect: string; message: string };

/** RFC 7636 §4.1: 43-128 characters; an S256 challenge is 43 base64url characters. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 2000;

/** `redirect_uri?error=…&error_description=…&state=…` (state only if the client sent one). */
export function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== undefined) url.searchParams.set("state", state);
  return url.href;
}

/**
 * Checks an authorization request against the registered client and this server's MCP resource.
 * A bad client or redirect URI is shown to the operator, never redirected to (an open
 * redirector otherwise); every later problem is sent back to the client's redirect URI.
 */
export function checkAuthorizationRequest(params: AuthorizationParams, expectedResource: string): AuthorizationCheck {
  const clientId = params.client_id ?? "";
  const client = clientId ? findClient(clientId) : null;
  if (!client) {
    return { ok: false, redirect: null, message: clientId ? `no client is registered with client_id "${visibleControls(clientId.slice(0, 100))}"; the connector must register again` : "the request has no client_id" };
  }
  let redirectUri = params.redirect_uri;
  if (redirectUri === undefined && client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  if (redirectUri === undefined) return { ok: false, redirect: null, message: `${client.name} registered several redirect URIs; the request must name one (redirect_uri)` };
  if (!client.redirectUris.includes(redirectUri)) {
    return { ok: false, redirect: null, message: `the redirect_uri "${visibleControls(redirectUri.slice(0, 300))}" is not one ${client.name} registered; nothing was sent to it` };
  }
  const state = params.state;
  const fail = (error: string, message: string): AuthorizationCheck => ({ ok: false, redirect: errorRedirect(redirectUri, error, message, state), message });
  if (state !== undefined && state.length > MAX_STATE_LENGTH) return fail("invalid_request", `state is longer than ${MAX_STATE_LENGTH} characters`);
  if (params.response_type !== "code") return fail("unsupported_response_type", 'response_type must be "code"');
  if (!params.code_challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256)");
  if (params.code_challenge_method !== "S256") return fail("invalid_request", 'code_challenge_method must be "S256"');
  if (!PKCE_VALUE.test(params.code_challenge)) return fail("invalid_request", "code_challenge must be 43-128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'");
  if (!params.resource) return fail("invalid_target", `resource is required: this server's MCP resource is ${expectedResource}`);
  if (params.resource !== expectedResource) {
    return fail("invalid_target", `resource must be this server's MCP endpoint, ${expectedResource} (behind a reverse proxy, set BATON_PUBLIC_URL to the public origin)`);
  }
  return { ok: true, request: { client, redirectUri, codeChallenge: params.code_challenge, resource: params.resource, state } };
}

const decisionInput = z.object({ act_as: clientSideSchema.default("chat") });

/**
 * The operator approved: the client's grant for that side (created or reused), and a code for it
 * (random, stored as its SHA-256, single use, five minutes). Returns where to send the browser.
 */
export function approveAuthorization(params: AuthorizationParams & { act_as?: string }, expectedResource: string): string {
  const { act_as: actAs } = parseInput(decisionInput, { act_as: params.act_as || undefined });
  const checked = checkAuthorizationRequest(params, expectedResource);
  if (!checked.ok) {
    if (checked.redirect) return checked.redirect;
    throw new Invalid(checked.message);
  }
  const { request } = checked;
  const code = `${CODE_PREFIX}${randomBytes(32).toString("base64url")}`;
  write((tx) => {
    const tokenId = ensureGrant(tx, request.client, actAs as ClientSide);
    tx.statement("DELETE FROM oauth_codes WHERE expires_at < ?").run(storedDate(new Date()));
    tx.statement("INSERT INTO oauth_codes (code_hash, token_id, redirect_uri, code_challenge, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?)").run(
      hashSecret(code),
      tokenId,
      request.redirectUri,
      request.codeChallenge,
      request.resource,
      storedDate(new Date(Date.now() + CODE_TTL_MS)),
    );
  });
  const url = new URL(request.redirectUri);
  url.searchParams.set("code", code);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  return url.href;
}

/** The operator refused: `access_denied` goes back to the client. */
export function denyAuthorization(params: AuthorizationParams, expectedResource: string): string {
  const checked = checkAuthorizationRequest(params, expectedResource);
  if (!checked.ok) {
    if (checked.redirect) return checked.redirect;
    throw new Invalid(checked.message);
  }
  return errorRedirect(checked.request.redirectUri, "access_denied", "the operator denied the request", checked.request.state);
}
