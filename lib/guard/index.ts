/**
 * The guard: one module that every request passes before any route, page or server action runs.
 * Baton's HTTP server (lib/server) calls `screenRequest` for each request; it checks Host against
 * DNS rebinding, Origin and Sec-Fetch-Site against cross-site writes, body size and content type,
 * then who the caller is (lib/auth) and what that caller may reach. proxy.ts refuses anything the
 * guard did not stamp.
 */
import "server-only";

export * from "./policy";
export * from "./screen";
export * from "./stamp";
