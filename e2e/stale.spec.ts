import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { scratchDir } from "./support/scratch";

// A coding client's repository: the stdio server runs in it, as Claude Code starts `baton mcp`.
let repo: string;

function git(...args: string[]): void {
  execFileSync("git", ["-c", "user.name=Baton E2E", "-c", "user.email=e2e@baton.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: repo });
}

function commitFile(file: string, content: string, message: string): void {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), content);
  git("add", file);
  git("commit", "-q", "-m", message);
}

test.beforeAll(() => {
  repo = scratchDir("stale-");
  git("init", "-q", "-b", "main");
  commitFile("src/auth.ts", "export const version = 1;\n", "A: auth");
  git("checkout", "-q", "-b", "fix/login");
});
test.afterAll(() => rmSync(repo, { recursive: true, force: true }));

test("a handoff written in a repository that moved on shows the stale badge and block on its thread page", async ({ page, baseURL }) => {
  const { client } = await connectStdioClient({ cwd: repo, args: ["--as", "code"] });
  let id: string;
  try {
    const created = await client.callTool({
      name: "create_handoff",
      arguments: { title: "E2E: stale login fix", content: "Token refresh lives in `src/auth.ts`." },
    });
    id = (created.structuredContent as { handoff: { id: string } }).handoff.id;
  } finally {
    await client.close();
  }

  // Written at the current commit: the page says where, and no badge.
  await page.goto(`${baseURL}/handoffs/${id}`);
  await expect(page.getByTestId("git-recorded")).toContainText("Written on fix/login at");
  await expect(page.getByTestId("git-staleness")).toHaveCount(0);

  commitFile("src/auth.ts", "export const version = 2;\n", "Rework token refresh");
  commitFile("docs/notes.md", "notes\n", "Add notes");
  commitFile("src/other.ts", "export const other = 1;\n", "Add other module");

  await page.reload();
  const stale = page.getByTestId("git-staleness");
  await expect(stale.getByText("stale", { exact: true })).toBeVisible();
  await expect(page.getByTestId("git-staleness-block")).toContainText("Stale: 3 commits on fix/login since this handoff was written");
  await expect(page.getByTestId("git-staleness-block")).toContainText("changed since: src/auth.ts");
});

test("an agent's shift handoff written before the repository moved on shows the stale badge on the agent page", async ({ page, baseURL }) => {
  const { client } = await connectStdioClient({ cwd: repo, args: ["--as", "code"] });
  let agentId: number;
  try {
    const registered = await client.callTool({ name: "register_agent", arguments: { persona: "e2e-stale" } });
    agentId = (registered.structuredContent as { id: number }).id;
    const handed = await client.callTool({
      name: "trigger_handoff",
      arguments: { agent: String(agentId), reason: "shift_end", document: "# Goal\nFinish the refresh in src/auth.ts" },
    });
    expect(handed.isError).toBeFalsy();
  } finally {
    await client.close();
  }
  commitFile("src/auth.ts", "export const version = 3;\n", "Shorter token lifetime");

  await page.goto(`${baseURL}/agents/${agentId}`);
  await expect(page.getByTestId("git-staleness").getByText("stale", { exact: true })).toBeVisible();
  await expect(page.getByTestId("git-staleness-block")).toContainText("Stale: 1 commit on fix/login since this handoff was written");
  await expect(page.getByTestId("git-staleness-block")).toContainText("changed since: src/auth.ts");
});
