/**
 * Access: named tokens (operator / agent roles, stored as SHA-256) and the operator's dashboard
 * sessions. Owns the `access_tokens` and `sessions` tables. The guard (lib/guard) asks it who a
 * request is; the dashboard, the CLI (`baton token …`) and /api/session manage tokens through it.
 */
import "server-only";

export { createToken, hasTokens, listTokens, revokeToken, tokensStillValid, verifyToken, type Principal, type TokenView } from "./tokens";
export { sessionsStillValid, signIn, signOut, verifySession, type SignedIn } from "./sessions";
export * from "./schemas";
