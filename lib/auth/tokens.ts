import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "../db";
import { Conflict, Invalid, NotFound } from "../errors";
import { parseInput, type DoorInput } from "../validation";
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

export type TokenView = { name: string; role: Role; createdAt: string; lastUsedAt: string | null };
export type Principal = { tokenId: number; name: string; role: Role };

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

export const createTokenInput = z.object({ name: tokenNameSchema, role: roleSchema });
export type CreateTokenOptions = DoorInput<typeof createTokenInput>;

type TokenRow = { name: string; role: string; createdAt: Date; lastUsedAt: Date | null };
const toTokenView = (row: TokenRow): TokenView => ({
  name: row.name,
  role: row.role as Role,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

/** Creates a token; the secret is returned once and never stored. */
export async function createToken(options: CreateTokenOptions): Promise<{ token: string; view: TokenView }> {
  const input = parseInput(createTokenInput, options);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const client = await db();
  const existing = await client.accessToken.findUnique({ where: { name: input.name } });
  if (existing) throw new Conflict(`a token named "${input.name}" exists; revoke it first or choose another name`);
  const row = await client.accessToken.create({ data: { name: input.name, role: input.role, tokenHash: hashSecret(token) } });
  return { token, view: toTokenView(row) };
}

export async function listTokens(): Promise<TokenView[]> {
  const client = await db();
  const rows = await client.accessToken.findMany({ orderBy: { createdAt: "asc" } });
  return rows.map(toTokenView);
}

/** Whether any token exists: a server reachable beyond loopback needs at least one. */
export async function hasTokens(): Promise<boolean> {
  const client = await db();
  return (await client.accessToken.count()) > 0;
}

/** Revokes at once: the row goes, and with it every session signed in with the token. */
export async function revokeToken(options: { name: string }): Promise<void> {
  const name = parseInput(z.object({ name: tokenNameSchema }), options).name;
  const client = await db();
  const { count } = await client.accessToken.deleteMany({ where: { name } });
  if (count === 0) throw new NotFound(`no token named "${name}"; \`baton token list\` shows the names`);
}

async function touch(tokenId: number, lastUsedAt: Date | null): Promise<void> {
  const now = new Date();
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  const client = await db();
  await client.accessToken.updateMany({ where: { id: tokenId }, data: { lastUsedAt: now } });
}

/** The principal a bearer token names, or null for an unknown, revoked or malformed one. */
export async function verifyToken(token: string): Promise<Principal | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const client = await db();
  const row = await client.accessToken.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!row) return null;
  await touch(row.id, row.lastUsedAt);
  return { tokenId: row.id, name: row.name, role: row.role as Role };
}

export function assertOperator(principal: Principal): void {
  if (principal.role !== "operator") throw new Invalid(`token "${principal.name}" has the agent role; signing in needs an operator token`);
}
