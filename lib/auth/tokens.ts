import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { lockRows, placeholders, read, storedDate, write, type Tx } from "../database";
import { Conflict, Invalid, NotFound } from "../errors";
import { parseInput, type DoorInput } from "../validation";
import type { ClientSide } from "../handoffs/schemas";
import { roleSchema, tokenNameSchema, type Role } from "./schemas";

/**
 * Named access tokens. A token is `baton_` and 32 random bytes in base64url (256 bits, so a
 * plain SHA-256 is the right stored form: nothing to brute-force, and a lookup by hash is one
 * indexed read). The prefix lets secret scanners recognise a leaked token.
 */
const TOKEN_PREFIX = "baton_";
const TOKEN_SHAPE = /^baton_[A-Za-z0-9_-]{43}$/;
/** last_used_at is written at most this often per token, so reads do not turn into writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A grant an operator approved for a remote connector (lib/oauth): the client's name, the side it acts as, and both in words. */
export type ConnectorView = { client: string; actAs: ClientSide; label: string };
export type TokenView = { name: string; role: Role; createdAt: string; lastUsedAt: string | null; connector: ConnectorView | null };
/**
 * Who a credential stands for. `actAs`: the side a connector's grant acts as, the default
 * `as_client` of its MCP calls. `proof`: the SHA-256 of the secret presented (a token, a session
 * id, an OAuth access token), what a long-lived stream is checked against while it stays open
 * (lib/guard/revocation-watch.ts), never the secret itself.
 */
export type Principal = { tokenId: number; name: string; role: Role; actAs?: ClientSide; proof: string };

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

export const createTokenInput = z.object({ name: tokenNameSchema, role: roleSchema });
export type CreateTokenOptions = DoorInput<typeof createTokenInput>;

type TokenRow = { id: number; name: string; role: string; created_at: string; last_used_at: string | null };
const TOKEN_COLUMNS = "id, name, role, created_at, last_used_at";
type ListedRow = TokenRow & { act_as: string | null; client_name: string | null };
const toTokenView = (row: TokenRow & Partial<ListedRow>): TokenView => ({
  name: row.name,
  role: row.role as Role,
  createdAt: new Date(row.created_at).toISOString(),
  lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
  connector:
    row.client_name != null && row.act_as != null
      ? { client: row.client_name, actAs: row.act_as as ClientSide, label: `${row.client_name} (connector, acts as ${row.act_as})` }
      : null,
});

/** Creates a token; the secret is returned once and never stored. */
export async function createToken(options: CreateTokenOptions): Promise<{ token: string; view: TokenView }> {
  const input = parseInput(createTokenInput, options);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  // ON CONFLICT: two instances creating the same name at once get one token and one Conflict, never a failed statement.
  const row = await write((tx) =>
    tx.get<TokenRow>(`INSERT INTO access_tokens (name, role, token_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING ${TOKEN_COLUMNS}`, [
      input.name,
      input.role,
      hashSecret(token),
      storedDate(),
    ]),
  );
  if (!row) throw new Conflict(`a token named "${input.name}" exists; revoke it first or choose another name`);
  return { token, view: toTokenView(row) };
}

export async function listTokens(): Promise<TokenView[]> {
  const rows = await read((tx) =>
    tx.all<ListedRow>(
      "SELECT t.id, t.name, t.role, t.created_at, t.last_used_at, t.act_as, c.name AS client_name FROM access_tokens t LEFT JOIN oauth_clients c ON c.client_id = t.client_id ORDER BY t.created_at, t.id",
    ),
  );
  return rows.map(toTokenView);
}

/**
 * The grant for a connector (an OAuth client, lib/oauth) acting as one side, created on the
 * operator's first approval and reused after: an agent token whose secret is random bytes nobody
 * sees, so it is reached only through the OAuth tokens issued to it. Its name follows the token
 * pattern (`claude-connector-chat`), so it is revoked like any other token. Runs in the caller's
 * transaction, which must hold the client's row (see lib/oauth/authorize.ts): approvals of one
 * client on two instances then find each other's grant instead of making two.
 */
export async function ensureGrant(tx: Tx, client: { clientId: string; name: string }, actAs: ClientSide): Promise<number> {
  const existing = await tx.get<{ id: number }>("SELECT id FROM access_tokens WHERE client_id = ? AND act_as = ?", [client.clientId, actAs]);
  if (existing) return existing.id;
  const slug =
    client.name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, 20)
      .replace(/[^a-z0-9]+$/, "") || "client";
  const base = `${slug}-connector-${actAs}`;
  const secretHash = hashSecret(randomBytes(32).toString("base64url"));
  // A name taken (also by a token created meanwhile on another instance) moves on to the next number.
  for (let n = 1; ; n += 1) {
    const inserted = await tx.get<{ id: number }>(
      "INSERT INTO access_tokens (name, role, token_hash, created_at, client_id, act_as) VALUES (?, 'agent', ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING id",
      [n === 1 ? base : `${base}-${n}`, secretHash, storedDate(), client.clientId, actAs],
    );
    if (inserted) return inserted.id;
  }
}

/** Whether any token exists: a server reachable beyond loopback needs at least one. */
export async function hasTokens(): Promise<boolean> {
  return (await read((tx) => tx.get("SELECT 1 AS found FROM access_tokens LIMIT 1"))) !== undefined;
}

/** Revokes at once: the row goes, and with it every session signed in with the token. */
export async function revokeToken(options: { name: string }): Promise<void> {
  const name = parseInput(z.object({ name: tokenNameSchema }), options).name;
  // Sessions signed in with it go by cascade.
  const changes = await write((tx) => tx.run("DELETE FROM access_tokens WHERE name = ?", [name]));
  if (changes === 0) throw new NotFound(`no token named "${name}"; \`baton token list\` shows the names`);
}

/**
 * Records a use of a token or grant, at most once a minute so reads do not turn into writes. The
 * condition is checked again in the UPDATE: instances that saw the same old time write it once.
 */
export async function touch(row: { id: number; last_used_at: string | null }): Promise<void> {
  const now = Date.now();
  if (row.last_used_at && now - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS) return;
  await write((tx) =>
    tx.run("UPDATE access_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)", [
      storedDate(),
      row.id,
      storedDate(new Date(now - LAST_USED_RESOLUTION_MS)),
    ]),
  );
}

/** The principal a bearer token names, or null for an unknown, revoked or malformed one. */
export async function verifyToken(token: string): Promise<Principal | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const proof = hashSecret(token);
  const row = await read((tx) => tx.get<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE token_hash = ?`, [proof]));
  if (!row) return null;
  await touch(row);
  return { tokenId: row.id, name: row.name, role: row.role as Role, proof };
}

/** Which of `proofs` (token hashes) still name a token: the others were revoked. One query per 500. */
export async function tokensStillValid(proofs: readonly string[]): Promise<Set<string>> {
  return read(async (tx) => {
    const valid = new Set<string>();
    for (const chunk of chunksOf(proofs)) {
      const rows = await tx.all<{ token_hash: string }>(`SELECT token_hash FROM access_tokens WHERE token_hash IN (${placeholders(chunk.length)})`, chunk);
      for (const row of rows) valid.add(row.token_hash);
    }
    return valid;
  });
}

/** `items` in chunks small enough for one statement's parameters on every engine. */
export function chunksOf<T>(items: readonly T[], size = 500): T[][] {
  const chunks: T[][] = [];
  for (let at = 0; at < items.length; at += size) chunks.push(items.slice(at, at + size));
  return chunks;
}

/**
 * Holds the token's row until the caller's transaction ends, so a revocation cannot slip in
 * before what the caller adds under it (a session, OAuth tokens); false when it is gone already.
 */
export async function lockToken(tx: Tx, tokenId: number): Promise<boolean> {
  return (await tx.get(`SELECT id FROM access_tokens WHERE id = ?${lockRows(tx)}`, [tokenId])) !== undefined;
}

export function assertOperator(principal: Principal): void {
  if (principal.role !== "operator") throw new Invalid(`token "${principal.name}" has the agent role; signing in needs an operator token`);
}
