import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { storedDate, write, read, type Sql } from "../sqlite";
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
/** `actAs`: the side a connector's grant acts as, the default `as_client` of its MCP calls. */
export type Principal = { tokenId: number; name: string; role: Role; actAs?: ClientSide };

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
  const row = write((tx) => {
    if (tx.statement("SELECT 1 FROM access_tokens WHERE name = ?").get(input.name)) {
      throw new Conflict(`a token named "${input.name}" exists; revoke it first or choose another name`);
    }
    return tx
      .statement(`INSERT INTO access_tokens (name, role, token_hash, created_at) VALUES (?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`)
      .get(input.name, input.role, hashSecret(token), storedDate()) as TokenRow;
  });
  return { token, view: toTokenView(row) };
}

export async function listTokens(): Promise<TokenView[]> {
  const rows = read(
    (tx) =>
      tx
        .statement(
          "SELECT t.id, t.name, t.role, t.created_at, t.last_used_at, t.act_as, c.name AS client_name FROM access_tokens t LEFT JOIN oauth_clients c ON c.client_id = t.client_id ORDER BY t.created_at, t.id",
        )
        .all() as ListedRow[],
  );
  return rows.map(toTokenView);
}

/**
 * The grant for a connector (an OAuth client, lib/oauth) acting as one side, created on the
 * operator's first approval and reused after: an agent token whose secret is random bytes nobody
 * sees, so it is reached only through the OAuth tokens issued to it. Its name follows the token
 * pattern (`claude-connector-chat`), so it is revoked like any other token. Runs in the caller's
 * transaction.
 */
export function ensureGrant(tx: Sql, client: { clientId: string; name: string }, actAs: ClientSide): number {
  const existing = tx.statement("SELECT id FROM access_tokens WHERE client_id = ? AND act_as = ?").get(client.clientId, actAs) as { id: number } | undefined;
  if (existing) return existing.id;
  const slug =
    client.name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, 20)
      .replace(/[^a-z0-9]+$/, "") || "client";
  const base = `${slug}-connector-${actAs}`;
  let name = base;
  for (let n = 2; tx.statement("SELECT 1 FROM access_tokens WHERE name = ?").get(name); n += 1) name = `${base}-${n}`;
  const row = tx
    .statement("INSERT INTO access_tokens (name, role, token_hash, created_at, client_id, act_as) VALUES (?, 'agent', ?, ?, ?, ?) RETURNING id")
    .get(name, hashSecret(randomBytes(32).toString("base64url")), storedDate(), client.clientId, actAs) as { id: number };
  return row.id;
}

/** Whether any token exists: a server reachable beyond loopback needs at least one. */
export async function hasTokens(): Promise<boolean> {
  return read((tx) => tx.statement("SELECT 1 FROM access_tokens LIMIT 1").get() !== undefined);
}

/** Revokes at once: the row goes, and with it every session signed in with the token. */
export async function revokeToken(options: { name: string }): Promise<void> {
  const name = parseInput(z.object({ name: tokenNameSchema }), options).name;
  // Sessions signed in with it go by cascade.
  const { changes } = write((tx) => tx.statement("DELETE FROM access_tokens WHERE name = ?").run(name));
  if (changes === 0) throw new NotFound(`no token named "${name}"; \`baton token list\` shows the names`);
}

/** Records a use of a token or grant (at most once a minute, so reads do not turn into writes). */
export function touch(row: { id: number; last_used_at: string | null }): void {
  if (row.last_used_at && Date.now() - Date.parse(row.last_used_at) < LAST_USED_RESOLUTION_MS) return;
  write((tx) => tx.statement("UPDATE access_tokens SET last_used_at = ? WHERE id = ?").run(storedDate(), row.id));
}

/** The principal a bearer token names, or null for an unknown, revoked or malformed one. */
export async function verifyToken(token: string): Promise<Principal | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const row = read((tx) => tx.statement(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE token_hash = ?`).get(hashSecret(token)) as TokenRow | undefined);
  if (!row) return null;
  touch(row);
  return { tokenId: row.id, name: row.name, role: row.role as Role };
}

export function assertOperator(principal: Principal): void {
  if (principal.role !== "operator") throw new Invalid(`token "${principal.name}" has the agent role; signing in needs an operator token`);
}
