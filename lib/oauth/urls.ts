import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * The addresses a remote connector discovers. They must be stable strings: the resource in an
 * access token is compared with the MCP endpoint's URL on every request, and the issuer with what
 * the client discovered. Behind a reverse proxy BATON_PUBLIC_URL names the public origin; without
 * it the origin is built from the Host header the guard already allowed (loopback, a LAN name).
 */
export const MCP_PATH = "/api/mcp";
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
export const AUTHORIZE_PATH = "/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const REVOKE_PATH = "/oauth/revoke";

let warnedAbout: string | undefined;

/** `https://baton.example.com` from BATON_PUBLIC_URL, else `http://<Host>`. */
export function publicBaseUrl(host: string | null, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.BATON_PUBLIC_URL?.trim();
  if (configured) {
    const url = URL.canParse(configured) ? new URL(configured) : null;
    if (url && (url.protocol === "https:" || url.protocol === "http:")) return url.origin;
    // The guard runs this on every MCP request: say it once in the log rather than fail each one.
    if (warnedAbout !== configured) console.error(`baton: BATON_PUBLIC_URL "${configured}" is not an http(s) URL; using the Host header instead`);
    warnedAbout = configured;
  }
  return `http://${(host ?? "localhost").trim().toLowerCase()}`;
}

export type OAuthUrls = {
  issuer: string;
  /** The MCP endpoint: the resource every token is bound to. */
  resource: string;
  protectedResourceMetadata: string;
};

export function oauthUrls(base: string): OAuthUrls {
  return { issuer: base, resource: `${base}${MCP_PATH}`, protectedResourceMetadata: `${base}${PROTECTED_RESOURCE_PATH}` };
}

/** RFC 9728: where the MCP endpoint's tokens come from. */
export function protectedResourceMetadata(base: string): OAuthProtectedResourceMetadata {
  const urls = oauthUrls(base);
  return { resource: urls.resource, authorization_servers: [urls.issuer], bearer_methods_supported: ["header"], resource_name: "Baton" };
}

/** RFC 8414: public clients, authorization code with PKCE S256, refresh tokens. */
export function authorizationServerMetadata(base: string): OAuthMetadata {
  return {
    issuer: base,
    authorization_endpoint: `${base}${AUTHORIZE_PATH}`,
    token_endpoint: `${base}${TOKEN_PATH}`,
    registration_endpoint: `${base}${REGISTER_PATH}`,
    revocation_endpoint: `${base}${REVOKE_PATH}`,
    revocation_endpoint_auth_methods_supported: ["none"],
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
  };
}
