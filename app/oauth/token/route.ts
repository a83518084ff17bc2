import { InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { oauthErrorResponse, oauthJson, tokenRequest } from "@/lib/oauth";

/** The token endpoint: application/x-www-form-urlencoded, as OAuth requires. Public (the code or refresh token is the credential). */
export async function POST(request: Request): Promise<Response> {
  try {
    const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") throw new InvalidRequestError("send the token request as application/x-www-form-urlencoded");
    return oauthJson(tokenRequest(new URLSearchParams(await request.text())));
  } catch (error) {
    return oauthErrorResponse(error);
  }
}
