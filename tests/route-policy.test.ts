import { describe, expect, it } from "vitest";
import { agentMayReach, bodyClassOf, isPublicRequest } from "../lib/guard";
import { apiRoutePolicy, apiRouter, declaredApiRoutes } from "../lib/server/api";

/**
 * Policy beside its routes (issue 30, point 3): every API route is declared once, with who may
 * call it and its body class, and the guard reads those declarations. A route added to the
 * router any other way (a bare `api.get(…)`) has no declaration and fails here.
 */
describe("the API's routes and their policies", () => {
  it("every route the router serves is a declared one, with a policy the guard finds", () => {
    const declared = new Set(declaredApiRoutes().map((route) => `${route.method} ${route.path}`));
    // The router's own fallbacks (unknown API paths: 404/405/OPTIONS) and its middleware on every answer (no-store), not routes of their own.
    const fallbacks = new Set(["ALL /api/*", "ALL /*"]);
    const served = apiRouter()
      .routes.map((route) => `${route.method} ${route.path}`)
      .filter((route) => !fallbacks.has(route));
    expect([...new Set(served)].filter((route) => !declared.has(route))).toEqual([]);
    for (const route of declaredApiRoutes()) {
      const sample = route.path.replace(/:[A-Za-z_]+/g, "x1").replace(/\*$/, "probe");
      expect(apiRoutePolicy(route.method, sample), `${route.method} ${route.path}`).not.toBeNull();
    }
  });

  it("the guard's answers come from the declarations for API paths, from patterns only for pages", () => {
    expect(apiRoutePolicy("HEAD", "/api/health")).toEqual({ access: "public", body: "default" });
    expect(apiRoutePolicy("GET", "/api/nowhere")).toBeNull();
    expect([isPublicRequest("GET", "/api/health"), isPublicRequest("POST", "/api/health"), isPublicRequest("GET", "/api/events")]).toEqual([true, false, false]);
    expect([agentMayReach("/api/handoffs/x1/entries", false), agentMayReach("/api/events", false), agentMayReach("/api/nowhere", false)]).toEqual([true, false, false]);
    expect([bodyClassOf("/api/import"), bodyClassOf("/api/agents/7/handoff"), bodyClassOf("/import"), bodyClassOf("/api/nowhere")]).toEqual(["import", "document", "import", "default"]);
  });

  it("an agent reaches a route as its own declaration says, method by method", () => {
    for (const route of declaredApiRoutes()) {
      const sample = route.path.replace(/:[A-Za-z_]+/g, "x1").replace(/\*$/, "probe");
      const access = apiRoutePolicy(route.method, sample)?.access;
      expect(agentMayReach(sample, false, route.method), `${route.method} ${route.path}`).toBe(access === "agent");
    }
    // A method no route on an agent's path declares goes on to the router's 405.
    expect([agentMayReach("/api/handoffs", false, "DELETE"), agentMayReach("/api/handoffs", true, "GET")]).toEqual([true, false]);
  });
});
