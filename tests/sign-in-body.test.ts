import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../lib/auth";
import { serveApi, type ApiServer } from "./support/api-server";
import { countRows } from "./support/rows";

/**
 * POST /api/session over Baton's own server: its body is read by the REST rule every route
 * follows, so a field it does not take is a 400 naming it, and no session is made.
 */
let served: ApiServer;
let operator: string;
beforeAll(async () => {
  served = await serveApi({ BATON_AUTH: "required" });
  operator = (await createToken({ name: "sign-in-body", role: "operator" })).token;
});
afterAll(() => served?.close());

const signIn = (body: unknown) => served.fetch("/api/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("sign-in's body", () => {
  it("refuses a field it does not take, naming it and the one meant; signs nobody in", async () => {
    const before = await countRows("sessions");
    for (const [body, named] of [
      [{ Token: operator }, /Token is not a field here \(did you mean token\?\); this takes token/],
      [{ token: operator, role: "agent" }, /role is not a field here; this takes token/],
    ] as const) {
      const refused = await signIn(body);
      expect(refused.status, JSON.stringify(Object.keys(body))).toBe(400);
      expect(refused.headers.get("set-cookie")).toBeNull();
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(named);
    }
    expect(await countRows("sessions")).toBe(before);
    const signedIn = await signIn({ token: operator });
    expect(signedIn.status).toBe(200);
    expect(await countRows("sessions")).toBe(before + 1);
  });
});
