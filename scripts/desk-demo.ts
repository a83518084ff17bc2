/**
 * A realistic afternoon on the desk, written through Baton's own HTTP API (the doors agents use):
 * threads in several projects, a long thread with entries new to chat, a question waiting, a
 * closed thread with its kept bundle, a handoff whose repository moved on, and a continuity chain
 * whose shift prompt failed to reach its successor's tmux pane. scripts/screenshots.ts shoots it;
 * the desk's end-to-end tests (e2e/desk.spec.ts) build on it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

type Json = Record<string, unknown>;

/** A JSON request that must succeed: a refused one stops the demo with the server's message. */
export async function api<T = Json>(baseUrl: string, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

type Created = { handoff: { id: string } };
type Agent = { id: number; shortId: string };

export async function createThread(baseUrl: string, title: string, content: string, project?: string, extra: Json = {}): Promise<string> {
  return (await api<Created>(baseUrl, "POST", "/api/handoffs", { title, content, project, ...extra })).handoff.id;
}

export async function addEntry(baseUrl: string, id: string, type: string, content: string, asClient: "chat" | "code", extra: Json = {}) {
  await api(baseUrl, "POST", `/api/handoffs/${id}/entries`, { type, content, asClient, ...extra });
}

const LONG_THREAD_STEPS = [
  ["task", "chat", "Move the importer to streaming: read the file in chunks and stop holding whole documents in memory."],
  ["progress", "code", "Read path done in `lib/formats/stream.ts`:\n\n```ts\nfor await (const chunk of file.stream()) parser.write(chunk);\n```"],
  ["question", "code", "Keep the 1 MiB limit per document, or per chunk?"],
  ["decision", "chat", "Per document. A chunk limit says nothing to the person who sent it."],
  ["progress", "code", "Checklist for the switch:\n\n- [x] stream parser\n- [x] per-document limit\n- [ ] error positions across chunks\n- [ ] docs"],
  ["context", "chat", "The YAML loader of flow-guardian reads the whole file anyway; only our side streams."],
] as const;

/** A thread of `count` entries, both sides writing; then chat reads it all and code writes `fresh` more (new to chat). */
export async function longThread(baseUrl: string, count: number, fresh: string[], project = "importer"): Promise<string> {
  const id = await createThread(baseUrl, "Stream the importer instead of loading whole files", "Imports of 50 MB handoff.json files run the dashboard out of memory.", project);
  for (let index = 1; index < count; index++) {
    const [type, side, content] = LONG_THREAD_STEPS[index % LONG_THREAD_STEPS.length];
    await addEntry(baseUrl, id, type, `${content}\n\n(step ${index + 1})`, side);
  }
  await api(baseUrl, "POST", `/api/handoffs/${id}/read`, { asClient: "chat" });
  for (const content of fresh) await addEntry(baseUrl, id, content.endsWith("?") ? "question" : "progress", content, "code");
  return id;
}

/** A repository with one commit, a handoff written there, then commits the handoff has not seen: a stale handoff. */
async function staleThread(baseUrl: string, repoParent: string): Promise<string> {
  const repo = fs.mkdtempSync(path.join(repoParent, "baton-demo-repo-"));
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Demo", "-c", "user.email=demo@example.com", ...args], { cwd: repo, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  fs.mkdirSync(path.join(repo, "src"));
  fs.writeFileSync(path.join(repo, "src", "auth.ts"), "export const ttl = 7;\n");
  git("add", ".");
  git("commit", "-q", "-m", "Token refresh, first cut");
  const id = await createThread(baseUrl, "Refresh tokens: expire after 30 days", "Change `src/auth.ts` so refresh tokens last 30 days, with remember-me.", "auth", { repoPath: repo });
  fs.writeFileSync(path.join(repo, "src", "auth.ts"), "export const ttl = 30;\n");
  git("commit", "-q", "-am", "Rework token refresh");
  fs.writeFileSync(path.join(repo, "README.md"), "auth\n");
  git("add", ".");
  git("commit", "-q", "-m", "Document the refresh window");
  return id;
}

export type Demo = { longThreadId: string; closedThreadId: string; handedOffAgentId: number; successorAgentId: number };

/**
 * Writes the demo into the server at `baseUrl` (an empty data folder is best). The stale
 * handoff's repository is made under `repoParent` (on the server's machine, so the server can
 * compare); `missingTmuxTarget` is a tmux target that does not exist there, so the delivery fails.
 */
export async function writeDesk(baseUrl: string, { repoParent = os.tmpdir(), missingTmuxTarget = "baton-demo-missing:1.0" } = {}): Promise<Demo> {
  const auth = await createThread(baseUrl, "Implement auth: JWT with refresh tokens", "We decided on **JWT** with refresh tokens; sessions stay server-side for the admin.", "auth");
  await addEntry(baseUrl, auth, "task", "Add the refresh endpoint in `src/auth.ts` and rotate the refresh token on each use.", "chat");
  await addEntry(baseUrl, auth, "question", "Should a refresh token that was already used revoke the whole family?", "code");
  const billing = await createThread(baseUrl, "Billing: prorate plan changes mid-cycle", "Customers moving between plans mid-month are charged twice.", "billing");
  await addEntry(baseUrl, billing, "progress", "Found it: the upgrade path creates a new subscription instead of updating the old one.", "code");
  await addEntry(baseUrl, billing, "decision", "Update in place and let the provider prorate.", "chat");
  await createThread(baseUrl, "Search: rank recent threads higher", "Equal matches should show the more recent thread first.", "search");
  const longThreadId = await longThread(baseUrl, 80, ["Error positions now survive chunk boundaries: line and column are right in the preview.", "Docs next, or is the 1 MiB limit still the number we want?"]);
  await staleThread(baseUrl, repoParent);

  const closedThreadId = await createThread(baseUrl, "Rate-limit connector registration", "Dynamic client registration is open: anyone can register clients in a loop.", "oauth");
  await addEntry(baseUrl, closedThreadId, "question", "Per IP or per whole server?", "code");
  await addEntry(baseUrl, closedThreadId, "decision", "Per IP, 10 a minute, and a server-wide ceiling of 100 a minute.", "chat");
  await addEntry(baseUrl, closedThreadId, "done", "Shipped with hono-rate-limiter; 429 with Retry-After.", "code");
  await api(baseUrl, "POST", `/api/handoffs/${closedThreadId}/close`, { archive: true });

  // A continuity chain: the first agent handed off cleanly, the second's prompt found no pane.
  const first = await api<Agent>(baseUrl, "POST", "/api/agents", { personaSlug: "developer-con-1", project: "importer", contextPercent: 97 });
  const shiftDocument = (goal: string) => `## Goal\n${goal}\n\n## Done\n- stream parser\n\n## Next steps\n- error positions across chunks\n\n## Key files\n- lib/formats/stream.ts\n`;
  const second = (await api<{ successor: Agent }>(baseUrl, "POST", `/api/agents/${first.id}/handoff`, { reason: "context_limit", document: shiftDocument("Stream the importer.") })).successor;
  const third = (
    await api<{ successor: Agent }>(baseUrl, "POST", `/api/agents/${second.id}/handoff`, {
      reason: "shift_end",
      document: shiftDocument("Finish the streaming importer and document it."),
      successor: { tmuxTarget: missingTmuxTarget },
    })
  ).successor;
  // (The third agent reports nothing: a report would count as acting on the handoff and lift the failure.)
  const reviewer = await api<Agent>(baseUrl, "POST", "/api/agents", { personaSlug: "reviewer", project: "auth" });
  await api(baseUrl, "PATCH", `/api/agents/${reviewer.id}`, { contextPercent: 91 });
  await api(baseUrl, "POST", "/api/agents", { personaSlug: "docs-writer", project: "search", contextPercent: 35 });
  return { longThreadId, closedThreadId, handedOffAgentId: second.id, successorAgentId: third.id };
}
