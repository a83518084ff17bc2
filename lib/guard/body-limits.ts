/**
 * Body limits by route class (a route declares its class: lib/server/api.ts). An import's body
 * carries a document of up to 1 MiB (the formats' own limit, which answers a larger one with a
 * 400 naming it) inside JSON or a form, whose escapes make it longer: twice that leaves room for
 * them. MCP carries shift documents, which grow when JSON-escaped.
 */
export const KiB = 1024;
export const BODY_LIMITS = { import: 2048 * KiB, mcp: 1024 * KiB, document: 256 * KiB, default: 128 * KiB } as const;
export type BodyClass = keyof typeof BODY_LIMITS;
