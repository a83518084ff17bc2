/** The path-suffixed form (RFC 9728 §3.1) for the resource at /api/mcp, where MCP clients look first. */
export { GET } from "../../route";
