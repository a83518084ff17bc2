/**
 * Remote connectors (claude.ai, the Claude mobile apps) through the MCP authorization
 * specification: OAuth 2.1 with dynamic client registration (RFC 7591), authorization code with
 * PKCE S256, access and refresh tokens bound to the MCP endpoint (RFC 8707), and the metadata
 * documents that let a client discover it all (RFC 9728, RFC 8414). Owns the `oauth_clients`,
 * `oauth_codes` and `oauth_tokens` tables; a grant is an agent token of lib/auth, approved by the
 * operator on the consent page (app/oauth/authorize). Metadata and error shapes come from the MCP
 * SDK (shared/auth, server/auth/errors). The guard asks `verifyAccessToken` who a bearer is.
 */
export * from "./urls";
export * from "./secrets";
export {
  MAX_REDIRECT_URI_LENGTH,
  MAX_REDIRECT_URIS,
  MAX_REGISTRATION_BYTES,
  MAX_UNUSED_CLIENTS,
  REGISTRATIONS_PER_ADDRESS_PER_MINUTE,
  UNUSED_CLIENT_TTL_MS,
  findClient,
  registerClient,
  type OAuthClient,
} from "./clients";
export { AUTHORIZATION_PARAM_NAMES, approveAuthorization, authorizationParamsOf, checkAuthorizationRequest, denyAuthorization, type AuthorizationCheck, type AuthorizationParams, type AuthorizationRequest } from "./authorize";
export { accessTokensStillValid, isAccessToken, revokeOAuthToken, tokenRequest, verifyAccessToken } from "./tokens";
export { oauthErrorResponse, oauthJson } from "./http";
