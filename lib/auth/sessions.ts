import { randomBytes } from "node:crypto";
import { z } from "zod";
import { db } from "../db";
import { Invalid } from "../errors";
import { parseInput } from "../validation";
import { SESSION_TTL_MS } from "./schemas";
import { assertOperator, hashSecret, verifyToken, type Principal } from "./tokens";

/** Operator sign-in: a token is exchanged for a random session id kept in an HttpOnly cookie. */
export type SignedIn = { sessionId: string; expiresAt: Date; principal: Principal };

const signInInput = z.object({ token: z.string({ error: "token is required" }).trim().min(1, "token is required").max(200, "token: that is not a Baton token") });

export async function signIn(options: { token: unknown }): Promise<SignedIn> {
  const { token } = parseInput(signInInput, options);
  const principal = await verifyToken(token);
  if (!principal) throw new Invalid("that token is not valid (unknown or revoked)", { token: ["that token is not valid (unknown or revoked)"] });
  assertOperator(principal);
  const sessionId = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  const client = await db();
  // Expired sessions are swept here, where sessions are made, instead of by a timer.
  await client.session.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  await client.session.create({ data: { idHash: hashSecret(sessionId), tokenId: principal.tokenId, expiresAt } });
  return { sessionId, expiresAt, principal };
}

/** The principal behind a session cookie, or null when it is unknown, expired or its token revoked. */
export async function verifySession(sessionId: string): Promise<Principal | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return null;
  const client = await db();
  const row = await client.session.findUnique({ where: { idHash: hashSecret(sessionId) }, include: { token: true } });
  if (!row || row.expiresAt.getTime() <= Date.now()) return null;
  return { tokenId: row.token.id, name: row.token.name, role: row.token.role as Principal["role"] };
}

export async function signOut(sessionId: string): Promise<void> {
  const client = await db();
  await client.session.deleteMany({ where: { idHash: hashSecret(sessionId) } });
}
