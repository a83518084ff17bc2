import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { read, storedDate, write } from "../sqlite";
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
  write((tx) => {
    // Expired sessions are swept here, where sessions are made, instead of by a timer.
    tx.statement("DELETE FROM sessions WHERE expires_at < ?").run(storedDate(new Date()));
    tx.statement("INSERT INTO sessions (id_hash, token_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(
      hashSecret(sessionId),
      principal.tokenId,
      storedDate(new Date()),
      storedDate(expiresAt),
    );
  });
  return { sessionId, expiresAt, principal };
}

/** The principal behind a session cookie, or null when it is unknown, expired or its token revoked. */
export async function verifySession(sessionId: string): Promise<Principal | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return null;
  const row = read(
    (tx) =>
      tx
        .statement("SELECT t.id AS id, t.name AS name, t.role AS role, s.expires_at AS expires_at FROM sessions s JOIN access_tokens t ON t.id = s.token_id WHERE s.id_hash = ?")
        .get(hashSecret(sessionId)) as { id: number; name: string; role: string; expires_at: string } | undefined,
  );
  if (!row || Date.parse(row.expires_at) <= Date.now()) return null;
  return { tokenId: row.id, name: row.name, role: row.role as Principal["role"] };
}

export async function signOut(sessionId: string): Promise<void> {
  write((tx) => tx.statement("DELETE FROM sessions WHERE id_hash = ?").run(hashSecret(sessionId)));
}
