import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { rawRequest } from "../tests/support/raw-http";

/**
 * The request target the guard checks is the one Next serves. A `#` in it (no client sends one:
 * a fragment stays in the browser) split the two: the guard read `/handoffs/new#/export` as a
 * thread's export, which an agent token may fetch, and Next, dropping the fragment, rendered the
 * operator's New handoff page for it.
 */
const base = process.env.BATON_E2E_BASE_URL!;
const host = new URL(base).host;

test("an agent token cannot reach an operator's page by a fragment in the request target", async () => {
  const name = `fragment-${randomBytes(3).toString("hex")}`;
  const token = execFileSync(process.execPath, ["bin/baton.mjs", "token", "create", "--name", name, "--role", "agent"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const agent = { host, authorization: `Bearer ${token}` };
  expect((await rawRequest(base, "GET", "/handoffs/new", agent)).status).toBe(403);
  for (const path of ["/handoffs/new#/export", "/handoffs/new#x/export"]) {
    const answer = await rawRequest(base, "GET", path, agent);
    expect(answer.status, path).toBe(400);
    expect(answer.body, path).not.toContain("New handoff");
    expect((JSON.parse(answer.body) as { error: { message: string } }).error.message, path).toContain("fragment");
  }
  // The operator's own requests with a fragment are refused the same way, before any route.
  const desk = await rawRequest(base, "GET", "/api/handoffs#top", { host });
  expect(desk.status).toBe(400);
  expect(desk.headers["x-frame-options"]).toBe("DENY");
});
