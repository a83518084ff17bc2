/**
 * Lifetimes and prefixes of what lib/oauth issues. Every secret is a prefix and 32 random bytes in
 * base64url, opaque, stored only as its SHA-256 (lib/auth's hashSecret): 256 bits leave nothing to
 * brute-force, and a lookup is one indexed read. The prefixes tell secret scanners and the guard
 * which kind a bearer is.
 */
export const CODE_PREFIX = "batonac_";
export const ACCESS_TOKEN_PREFIX = "batonat_";
export const REFRESH_TOKEN_PREFIX = "batonrt_";

export const CODE_TTL_MS = 5 * 60 * 1000;
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The shape of an issued secret with that prefix: anything else is refused before a lookup. */
export const secretShape = (prefix: string) => new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`);
