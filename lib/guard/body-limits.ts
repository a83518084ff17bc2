/**
 * Body limits by route class (a route declares its class: lib/server/api.ts). An import's body
 * carries a document of up to 1 MiB (the formats' own limit, which answers a larger one with a
 * 400 naming it) inside JSON or a form, whose escapes make it longer: twice that leaves room for
 * them. A shift document (at most 256 KiB, lib/agents, whose 400 names that limit) goes in JSON
 * (REST's handoff, MCP) or a form (an agent's page, whose line breaks the browser sends as CRLF):
 * escaped as \uXXXX, as Python's json.dumps does by default, a Cyrillic or CJK text is two or
 * three times as long, so its routes take four times the document.
 */
export const KiB = 1024;
export const BODY_LIMITS = { import: 2048 * KiB, mcp: 1024 * KiB, document: 1024 * KiB, default: 128 * KiB } as const;
export type BodyClass = keyof typeof BODY_LIMITS;
