import "server-only";
import { randomUUID } from "node:crypto";
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidClientMetadataError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { read, storedDate, write } from "../sqlite";
import { describeFieldErrors, fieldErrorsOf, visibleControls } from "../validation";

/** RFC 7591 `invalid_redirect_uri` (the SDK has no class for it). */
export class InvalidRedirectUriError extends OAuthError {
  static errorCode = "invalid_redirect_uri";
}

export type OAuthClient = { clientId: string; name: string; redirectUris: string[] };

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 100;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Why a redirect URI cannot be registered, or null: https anywhere, http only to loopback (RFC 8252), no fragment. */
function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `a redirect URI is longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${visibleControls(uri)}" is not an absolute URL`;
  }
  if (url.hash || uri.includes("#")) return `"${visibleControls(uri)}" has a fragment, which redirect URIs may not have`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `"${visibleControls(uri)}" must use https (http is allowed only to 127.0.0.1, localhost or [::1])`;
}

/**
 * Dynamic client registration (RFC 7591) for public clients: the metadata is validated with the
 * MCP SDK's schema, the redirect URIs must be https or loopback http, and whatever the client
 * asked for, it is registered as what Baton serves (no secret, authorization code + refresh).
 * Throws the SDK's OAuth errors, which the route answers with 400 in RFC 7591's shape.
 */
export function registerClient(body: unknown): OAuthClientInformationFull {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) throw new InvalidClientMetadataError(describeFieldErrors(fieldErrorsOf(parsed.error)));
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0) throw new InvalidRedirectUriError("redirect_uris: register at least one redirect URI");
  if (metadata.redirect_uris.length > MAX_REDIRECT_URIS) throw new InvalidRedirectUriError(`redirect_uris: at most ${MAX_REDIRECT_URIS}`);
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidRedirectUriError(`redirect_uris: ${problem}`);
  }
  if (metadata.grant_types && !metadata.grant_types.includes("authorization_code")) {
    throw new InvalidClientMetadataError('grant_types: Baton issues tokens only through "authorization_code" (and "refresh_token")');
  }
  if (metadata.response_types && !metadata.response_types.includes("code")) {
    throw new InvalidClientMetadataError('response_types: Baton supports only "code"');
  }
  const name = visibleControls((metadata.client_name ?? "").trim()).slice(0, MAX_NAME_LENGTH) || "MCP client";
  const clientId = randomUUID();
  const issuedAt = new Date();
  const redirectUris = [...new Set(metadata.redirect_uris)];
  write((tx) =>
    tx
      .statement("INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)")
      .run(clientId, name, JSON.stringify(redirectUris), storedDate(issuedAt)),
  );
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** A registered client, or null. */
export function findClient(clientId: string): OAuthClient | null {
  const row = read(
    (tx) => tx.statement("SELECT client_id, name, redirect_uris FROM oauth_clients WHERE client_id = ?").get(clientId) as { client_id: string; name: string; redirect_uris: string } | undefined,
  );
  return row ? { clientId: row.client_id, name: row.name, redirectUris: JSON.parse(row.redirect_uris) as string[] } : null;
}
