import { describe, expect, it } from "vitest";
import { listWebhooks } from "../lib/webhooks";
import { apiServerForFile } from "./support/api-server";
import { runBaton } from "./support/baton-command";

const api = apiServerForFile();

const refusal = async (response: Response) => {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: { message: string } }).error.message;
};

/** A message that says a field's name twice in a row ("url: url must …"), as fields and messages were joined. */
const doubled = /(?:^|[;:] )([\w.[\]]+): \1\b|\b(\w+)(?:\[\d+\])?: \2 /;

describe("refusals name each field once", () => {
  it("REST: a field's own message is not prefixed with its name again", async () => {
    const empty = await refusal(await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "", content: "c" }) }));
    expect(empty).toBe("title must not be empty");
    const unknown = await refusal(
      await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content: "c", side: "code" }) }),
    );
    expect(unknown).toMatch(/^side is not a field here; this takes /);
    const side = await refusal(
      await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content: "c", asClient: "robot" }) }),
    );
    expect(side).toMatch(/^asClient: as_client must be "chat" or "code"/);
  });

  it("CLI: `baton webhook add` says each problem once, with its list position, and stores nothing", async () => {
    const scheme = await runBaton(["webhook", "add", "ftp://example.com/x", "--events", "question.asked"]);
    expect(scheme.code).toBe(1);
    expect(scheme.stderr).toBe("baton webhook: url must be an absolute http:// or https:// address, e.g. https://example.com/baton-hook\n");
    const several = await runBaton(["webhook", "add", "http://169.254.169.254/latest", "--events", "question.asked,entry.deleted", "--types", "rumour"]);
    expect(several.code).toBe(1);
    expect(several.stderr).toMatch(/^baton webhook: url points at 169\.254\.169\.254, a link-local address/);
    expect(several.stderr).toContain("; events[1] must be among entry.created, question.asked");
    expect(several.stderr).toContain("; types[0] must be among context, task");
    expect(several.stderr).not.toMatch(doubled);
    expect(await listWebhooks()).toEqual([]);
  });
});

describe("webhook types without entry.created", () => {
  it("CLI: --types with events that leave out entry.created is refused, nothing stored (the types were dropped without a word)", async () => {
    const added = await runBaton(["webhook", "add", "http://127.0.0.1:9/hook", "--events", "question.asked", "--types", "decision"]);
    expect(added.code).toBe(1);
    expect(added.stdout).toBe("");
    expect(added.stderr).toBe("baton webhook: types only narrow entry.created, which events does not include: add entry.created to the events, or choose no types\n");
    expect(await listWebhooks()).toEqual([]);
  });

  it("CLI: with entry.created among the events the types are kept", async () => {
    const added = await runBaton(["webhook", "add", "http://127.0.0.1:9/hook", "--events", "question.asked,entry.created", "--types", "decision"]);
    expect(added.code, added.stderr).toBe(0);
    const listed = await runBaton(["webhook", "list"]);
    expect(listed.stdout).toMatch(/\tquestion\.asked,entry\.created \(types decision\)\n$/);
  });
});
