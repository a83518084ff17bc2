import { authorizationServerMetadata, oauthJson, publicBaseUrl } from "@/lib/oauth";

/** RFC 8414 metadata: endpoints, PKCE S256, public clients. Public. */
export function GET(request: Request): Response {
  return oauthJson(authorizationServerMetadata(publicBaseUrl(request.headers.get("host"))));
}
