import "server-only";
import { randomUUID } from "node:crypto";
import { OAuthClientMetadataSchema, type OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidClientMetadataError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { lockRows, read, storedDate, write, type Tx } from "../database";
import { describeFieldErrors, fieldErrorsOf, visibleControls } from "../validation";

/** RFC 7591 `invalid_redirect_uri` (the SDK has no class for it). */
export class InvalidRedirectUriError extends OAuthError {
  static errorCode = "invalid_redirect_uri";
}

export type OAuthClient = { clientId: string; name: string; redirectUris: string[] };

/*
 * Registration is open to anyone who can reach Baton (that is what dynamic registration is for),
 * so what one registration may store is small and what nobody uses goes away. A real connector's
 * registration is a few hundred bytes with one or two redirect URIs.
 */
/** The registration document as JSON, in UTF-8 bytes. */
export const MAX_REGISTRATION_BYTES = 4096;
export const MAX_REDIRECT_URIS = 5;
export const MAX_REDIRECT_URI_LENGTH = 512;
const MAX_NAME_LENGTH = 100;
/** A client with no grant this long after registering is deleted: nobody approved it. */
export const UNUSED_CLIENT_TTL_MS = 24 * 60 * 60 * 1000;
/** Beyond this many unused clients, a registration deletes the oldest unused ones (a flood from many peers stays bounded). */
export const MAX_UNUSED_CLIENTS = 1000;
/**
 * For the router's rate limit of POST /oauth/register per client address (behind a trusted proxy,
 * the address it forwarded): a connector registers once per connection attempt, so a handful a
 * minute is plenty.
 */
export const REGISTRATIONS_PER_ADDRESS_PER_MINUTE = 10;

/**
 * The hosts a redirect URI may name over plain http (RFC 8252 §7.3), whose port the client picks
 * when it signs in (registeredRedirectUri). `localhost` is one of them although RFC 8252 §8.3
 * prefers the IP literals: the MCP clients that sign in this way (mcp-remote, Claude Code) register
 * `http://localhost:<port>/callback`, and a name that resolved elsewhere would already be a risk
 * of registering it at all, not of choosing its port.
 */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
/** `http://<host>[:<port>]<rest>`, spelled out so everything but the port is compared as sent (no URL normalization). */
const LOOPBACK_HTTP_URI = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?([/?].*)?$/;
/**
 * Whether `requested` is one of the client's registered redirect URIs: exactly, or a loopback
 * http URI that differs only in its port (RFC 8252 §7.3: "The authorization server MUST allow any
 * port to be specified at the time of the request for loopback IP redirect URIs"), since a native
 * client listens on whatever port is free when it signs in. Scheme, host, path and query stay
 * exact; so does every https URI. The code remembers the URI as requested, port included, and the
 * token endpoint wants that one.
 */
export function registeredRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = LOOPBACK_HTTP_URI.exec(requested);
  if (!asked || !URL.canParse(requested)) return false;
  const [, host, port, rest = ""] = asked;
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) return false;
  return registered.some((uri) => {
    const match = LOOPBACK_HTTP_URI.exec(uri);
    return match !== null && match[1] === host && (match[3] ?? "") === rest;
  });
}

/** A client nobody approved: no grant (codes and tokens hang off grants, so none of those either). */
const UNUSED = "NOT EXISTS (SELECT 1 FROM access_tokens t WHERE t.client_id = oauth_clients.client_id)";

/** Why a redirect URI cannot be registered, or null: https anywhere, http only to loopback (RFC 8252), no fragment. */
function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `a redirect URI is ${uri.length} characters long; at most ${MAX_REDIRECT_URI_LENGTH} are accepted`;
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
 * Deletes unused clients past their day, then the oldest unused ones beyond the cap (keeping room
 * for one more); ties in age go by client_id, which both engines order alike. On PostgreSQL a
 * client being approved at this moment (approveAuthorization holds its row until its grant is
 * committed) is skipped rather than deleted under its new grant.
 */
async function deleteUnusedClients(tx: Tx, now: Date): Promise<void> {
  const unlocked = lockRows(tx, { skipLocked: true });
  await tx.run(`DELETE FROM oauth_clients WHERE client_id IN (SELECT client_id FROM oauth_clients WHERE created_at < ? AND ${UNUSED}${unlocked})`, [
    storedDate(new Date(now.getTime() - UNUSED_CLIENT_TTL_MS)),
  ]);
  const counted = await tx.get<{ unused: number }>(`SELECT count(*) AS unused FROM oauth_clients WHERE ${UNUSED}`);
  const excess = (counted?.unused ?? 0) - (MAX_UNUSED_CLIENTS - 1);
  if (excess > 0) {
    await tx.run(`DELETE FROM oauth_clients WHERE client_id IN (SELECT client_id FROM oauth_clients WHERE ${UNUSED} ORDER BY created_at, client_id LIMIT ?${unlocked})`, [excess]);
  }
}

/**
 * Dynamic client registration (RFC 7591) for public clients: the metadata is validated with the
 * MCP SDK's schema and Baton's size limits, the redirect URIs must be https or loopback http, and
 * whatever the client asked for, it is registered as what Baton serves (no secret, authorization
 * code + refresh). Unused clients are cleared in the same transaction, so registering is what
 * bounds the table, without a timer. Throws the SDK's OAuth errors, which the route answers with
 * 400 in RFC 7591's shape.
 */
export async function registerClient(body: unknown): Promise<OAuthClientInformationFull> {
  const bytes = Buffer.byteLength(JSON.stringify(body) ?? "", "utf8");
  if (bytes > MAX_REGISTRATION_BYTES) {
    throw new InvalidClientMetadataError(`the registration is ${bytes} bytes of JSON; at most ${MAX_REGISTRATION_BYTES} are accepted (send client_name and redirect_uris, little else)`);
  }
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) throw new InvalidClientMetadataError(describeFieldErrors(fieldErrorsOf(parsed.error)));
  const metadata = parsed.data;
  const redirectUris = [...new Set(metadata.redirect_uris)];
  if (redirectUris.length === 0) throw new InvalidRedirectUriError("redirect_uris: register at least one redirect URI");
  if (redirectUris.length > MAX_REDIRECT_URIS) throw new InvalidRedirectUriError(`redirect_uris: ${redirectUris.length} given; at most ${MAX_REDIRECT_URIS} per client`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidRedirectUriError(`redirect_uris: ${problem}`);
  }
  if (metadata.grant_types && !metadata.grant_types.includes("authorization_code")) {
    throw new InvalidClientMetadataError('grant_types: Baton issues tokens only through "authorization_code" (and "refresh_token")');
  }
  if (metadata.response_types && !metadata.response_types.includes("code")) {
    throw new InvalidClientMetadataError('response_types: Baton supports only "code"');
  }
  // Cut by code points: a cut by UTF-16 units could keep half of an emoji, which no database stores (a 400 for a valid name).
  const name = Array.from(visibleControls((metadata.client_name ?? "").trim())).slice(0, MAX_NAME_LENGTH).join("") || "MCP client";
  const clientId = randomUUID();
  const issuedAt = new Date();
  await write(async (tx) => {
    await deleteUnusedClients(tx, issuedAt);
    await tx.run("INSERT INTO oauth_clients (client_id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)", [clientId, name, JSON.stringify(redirectUris), storedDate(issuedAt)]);
  });
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

/** Whether `clientId` can name a stored client at all: PostgreSQL's text holds no NUL, so one is refused before a lookup. */
export const canBeClientId = (clientId: string) => !clientId.includes("\u0000");

/** A registered client, or null; an unused one past its day is as gone as a deleted one. */
export async function findClient(clientId: string): Promise<OAuthClient | null> {
  if (!canBeClientId(clientId)) return null;
  const row = await read((tx) =>
    tx.get<{ client_id: string; name: string; redirect_uris: string }>(
      `SELECT client_id, name, redirect_uris FROM oauth_clients WHERE client_id = ? AND (created_at >= ? OR NOT ${UNUSED})`,
      [clientId, storedDate(new Date(Date.now() - UNUSED_CLIENT_TTL_MS))],
    ),
  );
  return row ? { clientId: row.client_id, name: row.name, redirectUris: JSON.parse(row.redirect_uris) as string[] } : null;
}
