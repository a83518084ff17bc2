import { InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { oauthErrorResponse, oauthJson, registerClient } from "@/lib/oauth";
import { jsonTooDeep, tooDeepMessage } from "@/lib/nesting";

/** Dynamic client registration (RFC 7591): JSON metadata in, 201 with the client_id out. Public, outside /api/ like every OAuth endpoint. */
export async function POST(request: Request): Promise<Response> {
  try {
    const text = await request.text();
    const deep = jsonTooDeep(text);
    if (deep) throw new InvalidClientMetadataError(tooDeepMessage("the registration body", deep));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new InvalidClientMetadataError("the registration body must be a JSON object of client metadata");
    }
    return oauthJson(registerClient(body), 201);
  } catch (error) {
    return oauthErrorResponse(error);
  }
}
