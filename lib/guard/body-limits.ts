/** Body limits by route class (a route declares its class: lib/server/api.ts). MCP carries shift documents, which grow when JSON-escaped. */
export const KiB = 1024;
export const BODY_LIMITS = { import: 1024 * KiB, document: 256 * KiB, default: 128 * KiB } as const;
export type BodyClass = keyof typeof BODY_LIMITS;
