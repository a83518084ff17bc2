import { InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { oauthErrorResponse, revokeOAuthToken } from "@/lib/oauth";

/** Token revocation (RFC 7009): form-encoded `token` and `client_id`; 200 whether or not the token existed. Public. */
export async function POST(request: Request): Promise<Response> {
  try {
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") throw new InvalidRequestError("send the revocation request as application/x-www-form-urlencoded");
    revokeOAuthToken(new URLSearchParams(await request.text()));
    return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
  } catch (error) {
    return oauthErrorResponse(error);
  }
}
