/**
 * The guard: one module that every request passes before any route, page or server action runs.
 * Baton's router (lib/server) runs `guard` as its first middleware; it checks Host against DNS
 * rebinding, Origin and Sec-Fetch-Site against cross-site writes, body size and content type,
 * then who the caller is (lib/auth, lib/oauth) and what that caller may reach, and hands the
 * caller on as a value (lib/caller.ts). proxy.ts refuses anything that ran without one.
 */
import "server-only";

export * from "./middleware";
export * from "./policy";
export * from "./reentry";
export * from "./revocation-watch";
export * from "./screen";
