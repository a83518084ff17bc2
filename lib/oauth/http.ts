import "server-only";
import { InvalidClientError, OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { isDomainError } from "../errors";

/** OAuth answers are never cached (RFC 6749 §5.1). */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export const oauthJson = (body: unknown, status = 200) => Response.json(body, { status, headers: NO_STORE });

/**
 * An error in RFC 6749's JSON shape (`{error, error_description}`): 401 for invalid_client, 400
 * for everything a caller sent wrong. Anything else is Baton's failure and is rethrown.
 */
export function oauthErrorResponse(error: unknown): Response {
  if (error instanceof OAuthError) return oauthJson(error.toResponseObject(), error instanceof InvalidClientError ? 401 : 400);
  if (isDomainError(error)) return oauthJson({ error: "invalid_request", error_description: error.message }, 400);
  throw error;
}
