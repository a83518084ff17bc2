import { oauthJson, protectedResourceMetadata, publicBaseUrl } from "@/lib/oauth";

/** RFC 9728 metadata of the MCP endpoint: its resource URL and the authorization server (this Baton). Public. */
export function GET(request: Request): Response {
  return oauthJson(protectedResourceMetadata(publicBaseUrl(request.headers.get("host"))));
}
