import { InvalidClientMetadataError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { Invalid } from "@/lib/errors";
import { readJsonBody } from "@/lib/http";
import { oauthErrorResponse, oauthJson, registerClient } from "@/lib/oauth";

/** Dynamic client registration (RFC 7591): JSON metadata in, 201 with the client_id out. Public, outside /api/ like every OAuth endpoint. */
export async function POST(request: Request): Promise<Response> {
  try {
    let body: Record<string, unknown>;
    try {
      body = await readJsonBody(request);
    } catch (error) {
      // The one body reader's refusals (not JSON, not an object, nested too deep), in RFC 7591's terms.
      if (error instanceof Invalid) throw new InvalidClientMetadataError(`registration: ${error.message}`);
      throw error;
    }
    return oauthJson(registerClient(body), 201);
  } catch (error) {
    return oauthErrorResponse(error);
  }
}
