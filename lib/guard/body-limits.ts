/**
 * Body limits by route class (a route declares its class: lib/server/api.ts). A document goes in
 * JSON (REST, MCP) or a form (the desk's pages, whose line breaks the browser sends as CRLF), whose
 * escapes make it longer: escaped as \uXXXX, as Python's json.dumps does by default, a Cyrillic or
 * CJK text is two or three times as long. So a route that carries one takes four times the
 * document, which is then checked against its own limit (a 400 naming it): an import's of up to
 * 1 MiB (the formats'), a shift document's of up to 256 KiB (lib/agents).
 */
export const KiB = 1024;
export const BODY_LIMITS = { import: 4096 * KiB, mcp: 1024 * KiB, document: 1024 * KiB, default: 128 * KiB } as const;
export type BodyClass = keyof typeof BODY_LIMITS;
