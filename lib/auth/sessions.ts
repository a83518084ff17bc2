import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { placeholders, read, storedDate, write } from "../database";
import { Invalid } from "../errors";
import { operationInput, parseInput, type DoorInput } from "../validation";
import { SESSION_TTL_MS } from "./schemas";
import { assertOperator, chunksOf, hashSecret, lockToken, verifyToken, type Principal } from "./tokens";

/** Operator sign-in: a token is exchanged for a random session id kept in an HttpOnly cookie. */
export type SignedIn = { sessionId: string; expiresAt: Date; principal: Principal };

/** Sign-in's input, as every door's: a field it does not take is refused by name (operationInput). */
const signInInput = operationInput({ token: z.string({ error: "token is required" }).trim().min(1, "token is required").max(200, "token: that is not a Baton token") });

const NOT_VALID = "that token is not valid (unknown or revoked)";
const notValid = () => new Invalid(NOT_VALID, { token: [NOT_VALID] });

export async function signIn(options: DoorInput<typeof signInInput> | Record<string, unknown>): Promise<SignedIn> {
  const { token } = parseInput(signInInput, options);
  const principal = await verifyToken(token);
  if (!principal) throw notValid();
  assertOperator(principal);
  const sessionId = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  const stored = await write(async (tx) => {
    // A token revoked since it was verified signs nobody in (and its row cannot go meanwhile).
    if (!(await lockToken(tx, principal.tokenId))) return false;
    // Expired sessions are swept here, where sessions are made, instead of by a timer.
    await tx.run("DELETE FROM sessions WHERE expires_at < ?", [storedDate(new Date())]);
    await tx.run("INSERT INTO sessions (id_hash, token_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [
      hashSecret(sessionId),
      principal.tokenId,
      storedDate(new Date()),
      storedDate(expiresAt),
    ]);
    return true;
  });
  if (!stored) throw notValid();
  return { sessionId, expiresAt, principal };
}

/** The principal behind a session cookie, or null when it is unknown, expired or its token revoked. */
export async function verifySession(sessionId: string): Promise<Principal | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(sessionId)) return null;
  const proof = hashSecret(sessionId);
  const row = await read((tx) =>
    tx.get<{ id: number; name: string; role: string; expires_at: string }>(
      "SELECT t.id AS id, t.name AS name, t.role AS role, s.expires_at AS expires_at FROM sessions s JOIN access_tokens t ON t.id = s.token_id WHERE s.id_hash = ?",
      [proof],
    ),
  );
  if (!row || Date.parse(row.expires_at) <= Date.now()) return null;
  return { tokenId: row.id, name: row.name, role: row.role as Principal["role"], proof };
}

/** Which of `proofs` (session id hashes) are still signed in: not signed out, not expired, their token not revoked. */
export async function sessionsStillValid(proofs: readonly string[]): Promise<Set<string>> {
  const now = storedDate(new Date());
  return read(async (tx) => {
    const valid = new Set<string>();
    for (const chunk of chunksOf(proofs)) {
      const rows = await tx.all<{ id_hash: string }>(`SELECT id_hash FROM sessions WHERE expires_at > ? AND id_hash IN (${placeholders(chunk.length)})`, [now, ...chunk]);
      for (const row of rows) valid.add(row.id_hash);
    }
    return valid;
  });
}

export async function signOut(sessionId: string): Promise<void> {
  await write((tx) => tx.run("DELETE FROM sessions WHERE id_hash = ?", [hashSecret(sessionId)]));
}
