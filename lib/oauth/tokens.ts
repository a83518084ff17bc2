import "server-only";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { OAuthTokenRevocationRequestSchema, type OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { InvalidGrantError, InvalidRequestError, InvalidTargetError, UnsupportedGrantTypeError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { chunksOf, hashSecret, lockToken, touch, type Principal } from "../auth/tokens";
import type { ClientSide } from "../handoffs/schemas";
import { placeholders, read, storedDate, write, type Tx } from "../database";
import { visibleControls } from "../validation";
import { canBeClientId } from "./clients";
import { ACCESS_TOKEN_PREFIX, ACCESS_TOKEN_TTL_MS, CODE_PREFIX, REFRESH_TOKEN_PREFIX, REFRESH_TOKEN_TTL_MS, secretShape } from "./secrets";

const CODE_SHAPE = secretShape(CODE_PREFIX);
const ACCESS_SHAPE = secretShape(ACCESS_TOKEN_PREFIX);
const REFRESH_SHAPE = secretShape(REFRESH_TOKEN_PREFIX);
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the stored challenge. */
function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash("sha256").update(verifier).digest("base64url"));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * A fresh access token and refresh token for a grant, bound to one resource; null when the grant
 * was revoked meanwhile. Runs in the caller's transaction, holding the grant's row to its end.
 */
async function issueTokens(tx: Tx, tokenId: number, resource: string): Promise<OAuthTokens | null> {
  if (!(await lockToken(tx, tokenId))) return null;
  const now = Date.now();
  const accessToken = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  // Expired tokens are swept where tokens are made, instead of by a timer.
  await tx.run("DELETE FROM oauth_tokens WHERE expires_at < ?", [storedDate(new Date(now))]);
  const insert = "INSERT INTO oauth_tokens (token_hash, token_id, kind, resource, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)";
  await tx.run(insert, [hashSecret(accessToken), tokenId, "access", resource, storedDate(new Date(now + ACCESS_TOKEN_TTL_MS)), storedDate(new Date(now))]);
  await tx.run(insert, [hashSecret(refreshToken), tokenId, "refresh", resource, storedDate(new Date(now + REFRESH_TOKEN_TTL_MS)), storedDate(new Date(now))]);
  return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_MS / 1000, refresh_token: refreshToken };
}

/** Revokes every token a grant holds: a replayed code or refresh token means one of them leaked. */
async function revokeGrantTokens(tx: Tx, tokenId: number): Promise<void> {
  await tx.run("DELETE FROM oauth_tokens WHERE token_id = ?", [tokenId]);
}

type Form = URLSearchParams;

/**
 * RFC 6749 §3.1 and §3.2: a parameter may be given once. Of two, this endpoint would read the
 * first and a proxy or log in front of it may read the last; which one was meant cannot be told,
 * so neither is used. A second `resource` (RFC 8707 allows several) names more than the one
 * resource this server issues tokens for.
 */
function refuseRepeated(form: Form): void {
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (!seen.has(name)) {
      seen.add(name);
      continue;
    }
    const message = `${visibleControls(name.slice(0, 50))} is given more than once; send each parameter once`;
    throw name === "resource" ? new InvalidTargetError(`${message} (this server issues tokens for its MCP endpoint alone)`) : new InvalidRequestError(message);
  }
}

const required = (form: Form, name: string): string => {
  const value = form.get(name);
  if (!value) throw new InvalidRequestError(`${name} is required`);
  return value;
};

type CodeRow = { token_id: number; client_id: string | null; redirect_uri: string; code_challenge: string; resource: string; expires_at: string; used_at: string | null };

/**
 * authorization_code: the code must be unused and unexpired, issued to this client for this
 * redirect URI and resource, and the PKCE verifier must match its challenge. A code presented a
 * second time is refused and the grant's tokens are revoked (RFC 6749 §4.1.2). It is spent by a
 * conditional UPDATE, so of two instances exchanging it at once exactly one issues tokens; the
 * other sees a replay.
 */
async function exchangeCode(form: Form): Promise<OAuthTokens> {
  const code = required(form, "code");
  const verifier = required(form, "code_verifier");
  const redirectUri = required(form, "redirect_uri");
  const clientId = required(form, "client_id");
  const resource = form.get("resource");
  const now = new Date();
  const replayed = "the authorization code was already used; the tokens issued from it are revoked";
  const outcome = await write(async (tx): Promise<OAuthTokens | InvalidGrantError | InvalidTargetError> => {
    if (!CODE_SHAPE.test(code)) return new InvalidGrantError("the authorization code is unknown");
    const hash = hashSecret(code);
    const row = await tx.get<CodeRow>(
      "SELECT c.token_id, t.client_id, c.redirect_uri, c.code_challenge, c.resource, c.expires_at, c.used_at FROM oauth_codes c JOIN access_tokens t ON t.id = c.token_id WHERE c.code_hash = ?",
      [hash],
    );
    if (!row || row.client_id !== clientId) return new InvalidGrantError("the authorization code is unknown, or was issued to another client");
    if (row.used_at !== null) {
      await revokeGrantTokens(tx, row.token_id);
      return new InvalidGrantError(replayed);
    }
    if (Date.parse(row.expires_at) <= now.getTime()) return new InvalidGrantError("the authorization code expired (codes last five minutes); authorize again");
    if (row.redirect_uri !== redirectUri) return new InvalidGrantError("redirect_uri differs from the one the code was issued for");
    if (resource !== null && resource !== row.resource) return new InvalidTargetError(`the code was issued for the resource ${row.resource}`);
    if (!PKCE_VERIFIER.test(verifier) || !pkceMatches(verifier, row.code_challenge)) return new InvalidGrantError("code_verifier does not match the code_challenge");
    const spent = await tx.run("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL", [storedDate(now), hash]);
    if (spent === 0) {
      await revokeGrantTokens(tx, row.token_id);
      return new InvalidGrantError(replayed);
    }
    return (await issueTokens(tx, row.token_id, row.resource)) ?? new InvalidGrantError("the grant was revoked; authorize again");
  });
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

type RefreshRow = { token_id: number; client_id: string | null; resource: string; expires_at: string; used_at: string | null };

/**
 * refresh_token with rotation: each refresh token works once and is exchanged for a new pair with
 * the same resource. A rotated refresh token presented again revokes the grant's tokens. It is
 * spent by a conditional UPDATE, so two instances cannot both rotate it.
 */
async function refresh(form: Form): Promise<OAuthTokens> {
  const refreshToken = required(form, "refresh_token");
  const clientId = required(form, "client_id");
  const resource = form.get("resource");
  const now = new Date();
  const replayed = "the refresh token was already used (each works once); the grant's tokens are revoked, authorize again";
  const outcome = await write(async (tx): Promise<OAuthTokens | InvalidGrantError | InvalidTargetError> => {
    if (!REFRESH_SHAPE.test(refreshToken)) return new InvalidGrantError("the refresh token is unknown or revoked");
    const hash = hashSecret(refreshToken);
    const row = await tx.get<RefreshRow>(
      "SELECT o.token_id, t.client_id, o.resource, o.expires_at, o.used_at FROM oauth_tokens o JOIN access_tokens t ON t.id = o.token_id WHERE o.token_hash = ? AND o.kind = 'refresh'",
      [hash],
    );
    if (!row || row.client_id !== clientId) return new InvalidGrantError("the refresh token is unknown or revoked, or was issued to another client");
    if (row.used_at !== null) {
      await revokeGrantTokens(tx, row.token_id);
      return new InvalidGrantError(replayed);
    }
    if (Date.parse(row.expires_at) <= now.getTime()) return new InvalidGrantError("the refresh token expired; authorize again");
    if (resource !== null && resource !== row.resource) return new InvalidTargetError(`the refresh token was issued for the resource ${row.resource}`);
    const spent = await tx.run("UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL", [storedDate(now), hash]);
    if (spent === 0) {
      // Spent meanwhile by another instance (a replay), or revoked: either way nothing is issued.
      await revokeGrantTokens(tx, row.token_id);
      return new InvalidGrantError(replayed);
    }
    return (await issueTokens(tx, row.token_id, row.resource)) ?? new InvalidGrantError("the grant was revoked; authorize again");
  });
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

/**
 * The token endpoint's work for one form-encoded request. Throws the MCP SDK's OAuth errors
 * (invalid_request, invalid_grant, invalid_target, unsupported_grant_type), which the route
 * answers in RFC 6749's JSON shape.
 */
export async function tokenRequest(form: Form): Promise<OAuthTokens> {
  refuseRepeated(form);
  const grantType = required(form, "grant_type");
  if (grantType === "authorization_code") return exchangeCode(form);
  if (grantType === "refresh_token") return refresh(form);
  throw new UnsupportedGrantTypeError('grant_type must be "authorization_code" or "refresh_token"');
}

/**
 * Token revocation (RFC 7009) for a public client: the access or refresh token goes if this client
 * holds it; unknown tokens are not an error (§2.2), so nothing can be probed. A refresh token takes
 * the access tokens of its grant with it (§2.1): a client that signs out by revoking its refresh
 * token must not leave an access token working for the rest of its hour.
 */
export async function revokeOAuthToken(form: Form): Promise<void> {
  refuseRepeated(form);
  const parsed = OAuthTokenRevocationRequestSchema.safeParse({ token: form.get("token") ?? undefined, token_type_hint: form.get("token_type_hint") ?? undefined });
  if (!parsed.success) throw new InvalidRequestError("token is required");
  const clientId = required(form, "client_id");
  if (!canBeClientId(clientId)) return;
  await write(async (tx) => {
    const row = await tx.get<{ token_id: number; kind: string }>(
      "SELECT o.token_id, o.kind FROM oauth_tokens o JOIN access_tokens t ON t.id = o.token_id WHERE o.token_hash = ? AND t.client_id = ?",
      [hashSecret(parsed.data.token), clientId],
    );
    if (!row) return;
    if (row.kind === "refresh") await revokeGrantTokens(tx, row.token_id);
    else await tx.run("DELETE FROM oauth_tokens WHERE token_hash = ?", [hashSecret(parsed.data.token)]);
  });
}

type AccessRow = { id: number; name: string; act_as: string | null; last_used_at: string | null; resource: string; expires_at: string };

/**
 * The principal an OAuth access token stands for (its grant: role agent, acting as its side), or
 * null when the token is unknown, expired, revoked with its grant, or bound to another resource.
 */
export async function verifyAccessToken(token: string, resource: string): Promise<Principal | null> {
  if (!ACCESS_SHAPE.test(token)) return null;
  const proof = hashSecret(token);
  const row = await read((tx) =>
    tx.get<AccessRow>(
      "SELECT t.id, t.name, t.act_as, t.last_used_at, o.resource, o.expires_at FROM oauth_tokens o JOIN access_tokens t ON t.id = o.token_id WHERE o.token_hash = ? AND o.kind = 'access'",
      [proof],
    ),
  );
  if (!row || row.resource !== resource || Date.parse(row.expires_at) <= Date.now()) return null;
  await touch(row);
  return { tokenId: row.id, name: row.name, role: "agent", actAs: (row.act_as as ClientSide | null) ?? undefined, proof };
}

/** Which of `proofs` (access token hashes) are still good: not expired, not revoked, their grant not revoked. */
export async function accessTokensStillValid(proofs: readonly string[]): Promise<Set<string>> {
  const now = storedDate(new Date());
  return read(async (tx) => {
    const valid = new Set<string>();
    for (const chunk of chunksOf(proofs)) {
      const rows = await tx.all<{ token_hash: string }>(
        `SELECT token_hash FROM oauth_tokens WHERE kind = 'access' AND expires_at > ? AND token_hash IN (${placeholders(chunk.length)})`,
        [now, ...chunk],
      );
      for (const row of rows) valid.add(row.token_hash);
    }
    return valid;
  });
}

export const isAccessToken = (token: string) => token.startsWith(ACCESS_TOKEN_PREFIX);
