import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ensureGrant, hashSecret } from "../auth/tokens";
import { clientSideSchema, type ClientSide } from "../handoffs/schemas";
import { Invalid } from "../errors";
import { lockRows, storedDate, write } from "../database";
import { parseInput, visibleControls } from "../validation";
import { findClient, registeredRedirectUri, type OAuthClient } from "./clients";
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
  /** Shown to the operator on the consent page; nothing is sent anywhere. */
  | { ok: false; message: string };

/**
 * The authorization request's parameters as the consent page's query holds them, and the first
 * one given more than once (RFC 6749 §3.1: each at most once), or null. Such a parameter used to
 * be dropped as absent: two states became none, two redirect URIs the registered one.
 */
export function authorizationParamsOf(query: Record<string, string | string[] | undefined>): { params: AuthorizationParams; repeated: string | null } {
  const params: AuthorizationParams = {};
  for (const name of AUTHORIZATION_PARAM_NAMES) {
    const value = query[name];
    if (Array.isArray(value)) return { params, repeated: name };
    if (value !== undefined) params[name] = value;
  }
  return { params, repeated: null };
}

/** RFC 7636 §4.1: 43-128 characters; an S256 challenge is 43 base64url characters. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 2000;

/** `redirect_uri?error=…&error_description=…&state=…` (state only if the client sent one). */
function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== undefined) url.searchParams.set("state", state);
  return url.href;
}

/**
 * Checks an authorization request against the registered client and this server's MCP resource.
 * Every problem is shown to the operator and none is sent to the redirect URI: anyone can register
 * a client, so before the operator has looked at it a redirect would make Baton an open
 * redirector (RFC 9700 §4.11). The browser goes to the client only after Approve or Deny.
 */
export async function checkAuthorizationRequest(params: AuthorizationParams, expectedResource: string, repeated: string | null = null): Promise<AuthorizationCheck> {
  const fail = (message: string): AuthorizationCheck => ({ ok: false, message });
  if (repeated) return fail(`the request gives ${repeated} more than once; which one was meant cannot be told`);
  const clientId = params.client_id ?? "";
  const client = clientId ? await findClient(clientId) : null;
  if (!client) {
    return fail(clientId ? `no client is registered with client_id "${visibleControls(clientId.slice(0, 100))}"; the connector must register again` : "the request has no client_id");
  }
  let redirectUri = params.redirect_uri;
  if (redirectUri === undefined && client.redirectUris.length === 1) redirectUri = client.redirectUris[0];
  if (redirectUri === undefined) return fail(`${client.name} registered several redirect URIs; the request must name one (redirect_uri)`);
  if (!registeredRedirectUri(client.redirectUris, redirectUri)) {
    return fail(`the redirect_uri "${visibleControls(redirectUri.slice(0, 300))}" is not one ${client.name} registered; nothing was sent to it`);
  }
  const state = params.state;
  if (state !== undefined && state.length > MAX_STATE_LENGTH) return fail(`${client.name} sent a state longer than ${MAX_STATE_LENGTH} characters`);
  if (params.response_type !== "code") {
    const asked = params.response_type === undefined ? "no response_type" : `response_type "${visibleControls(params.response_type.slice(0, 50))}"`;
    return fail(`${client.name} asked for ${asked}; Baton supports only "code" (authorization code with PKCE)`);
  }
  if (!params.code_challenge) return fail(`${client.name} sent no code_challenge; Baton requires PKCE with S256`);
  if (params.code_challenge_method !== "S256") return fail(`${client.name} must use code_challenge_method "S256" (PKCE)`);
  if (!PKCE_VALUE.test(params.code_challenge)) return fail(`${client.name} sent a code_challenge that is not 43-128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'`);
  if (!params.resource) return fail(`${client.name} named no resource; this server's MCP resource is ${expectedResource}`);
  if (params.resource !== expectedResource) {
    return fail(
      `${client.name} asked for the resource "${visibleControls(params.resource.slice(0, 300))}", but this server's MCP endpoint is ${expectedResource} (behind a reverse proxy, set BATON_PUBLIC_URL to the public origin)`,
    );
  }
  return { ok: true, request: { client, redirectUri, codeChallenge: params.code_challenge, resource: params.resource, state } };
}

/** The request as checked at the decision: a request the page would not have offered is refused, never redirected. */
async function checkedForDecision(params: AuthorizationParams, expectedResource: string): Promise<AuthorizationRequest> {
  const checked = await checkAuthorizationRequest(params, expectedResource);
  if (!checked.ok) throw new Invalid(checked.message);
  return checked.request;
}

const decisionInput = z.object({ act_as: clientSideSchema.default("chat") });

/**
 * The operator approved: the client's grant for that side (created or reused), and a code for it
 * (random, stored as its SHA-256, single use, five minutes). Returns where to send the browser.
 */
export async function approveAuthorization(params: AuthorizationParams & { act_as?: string }, expectedResource: string): Promise<string> {
  const { act_as: actAs } = parseInput(decisionInput, { act_as: params.act_as || undefined });
  const request = await checkedForDecision(params, expectedResource);
  const code = `${CODE_PREFIX}${randomBytes(32).toString("base64url")}`;
  await write(async (tx) => {
    // The client's row, held to the end: a registration's clean-up on another instance leaves it
    // alone (see deleteUnusedClients), and a second approval of it waits and reuses this grant.
    const client = await tx.get(`SELECT client_id FROM oauth_clients WHERE client_id = ?${lockRows(tx)}`, [request.client.clientId]);
    if (!client) throw new Invalid(`${request.client.name} is no longer registered (an unused client is deleted after a day); the connector must register again`);
    const tokenId = await ensureGrant(tx, request.client, actAs as ClientSide);
    await tx.run("DELETE FROM oauth_codes WHERE expires_at < ?", [storedDate(new Date())]);
    await tx.run("INSERT INTO oauth_codes (code_hash, token_id, redirect_uri, code_challenge, resource, expires_at) VALUES (?, ?, ?, ?, ?, ?)", [
      hashSecret(code),
      tokenId,
      request.redirectUri,
      request.codeChallenge,
      request.resource,
      storedDate(new Date(Date.now() + CODE_TTL_MS)),
    ]);
  });
  const url = new URL(request.redirectUri);
  url.searchParams.set("code", code);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  return url.href;
}

/** The operator refused: `access_denied` goes back to the client. */
export async function denyAuthorization(params: AuthorizationParams, expectedResource: string): Promise<string> {
  const request = await checkedForDecision(params, expectedResource);
  return errorRedirect(request.redirectUri, "access_denied", "the operator denied the request", request.state);
}
