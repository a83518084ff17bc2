import { describe, expect, it } from "vitest";
import { apiServerForFile } from "./support/api-server";

const api = apiServerForFile();
const route = api.route;

const closeRoute = route("POST", "/api/handoffs/:id/close");
const entriesRoute = route("POST", "/api/handoffs/:id/entries");
const readRoute = route("POST", "/api/handoffs/:id/read");
const getRoute = route("GET", "/api/handoffs/:id");
const listRoute = route("GET", "/api/handoffs");
const createRoute = route("POST", "/api/handoffs");

const base = "http://127.0.0.1/api/handoffs";
const context = (id: string) => ({ params: Promise.resolve({ id }) });
// A string body would make the request text/plain; the API takes JSON bodies as application/json only.
const post = (url: string, body?: unknown) =>
  new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });

async function create(title = "api thread") {
  const response = await createRoute(post(base, { title, content: "first", project: "api" }));
  expect(response.status).toBe(201);
  return (await response.json()) as { handoff: { id: string; chatLastSeen: number }; entries: { seq: number }[] };
}

describe("HTTP API", () => {
  it("runs a thread end to end with the domain's semantics", async () => {
    const { handoff, entries } = await create();
    expect(handoff.chatLastSeen).toBe(entries[0].seq);

    const added = await entriesRoute(post(`${base}/${handoff.id}/entries`, { type: "question", content: "7d?", asClient: "code" }), context(handoff.id));
    expect(added.status).toBe(201);
    const { entry } = await added.json();

    const asChat = await (await getRoute(new Request(`${base}/${handoff.id}?as=chat`), context(handoff.id))).json();
    expect(asChat.newCount).toBe(1);
    expect(asChat.newEntries[0].seq).toBe(entry.seq);

    const read = await readRoute(post(`${base}/${handoff.id}/read`), context(handoff.id));
    expect(read.status).toBe(200);
    expect((await read.json()).chatLastSeen).toBe(entry.seq);

    const listed = await (await listRoute(new Request(`${base}?project=api`))).json();
    expect(listed.items.find((item: { id: string }) => item.id === handoff.id)).toMatchObject({ entryCount: 2, chatUnread: 0, codeUnread: 0 });

    const closed = await closeRoute(post(`${base}/${handoff.id}/close`), context(handoff.id));
    expect((await closed.json()).status).toBe("completed");
    const late = await entriesRoute(post(`${base}/${handoff.id}/entries`, { type: "task", content: "late" }), context(handoff.id));
    expect(late.status).toBe(409);
    expect((await late.json()).error).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("is completed") });
  });

  it("answers bad input with 400 and every field's message", async () => {
    const response = await createRoute(post(base, { title: "", content: "", project: "NO" }));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("INVALID");
    expect(Object.keys(error.fieldErrors).sort()).toEqual(["content", "project", "title"]);
  });

  it("tells a field sent as another JSON type from a missing one: must be text, not is required", async () => {
    const response = await createRoute(post(base, { title: 7, content: ["first"], project: 5 }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.fieldErrors).toEqual({ title: ["title must be text"], content: ["content must be text"], project: ["project must be text"] });
    const missing = await createRoute(post(base, {}));
    expect((await missing.json()).error.fieldErrors).toEqual({ title: ["title is required"], content: ["content is required"] });
    const { handoff } = await create("typed fields");
    const entry = await entriesRoute(post(`${base}/${handoff.id}/entries`, { type: "task", content: null }), context(handoff.id));
    expect((await entry.json()).error.fieldErrors).toEqual({ content: ["content must be text"] });
    expect((await (await getRoute(new Request(`${base}/${handoff.id}`), context(handoff.id))).json()).entryCount).toBe(1);
  });

  it("refuses a query parameter given twice with 400 naming it, where the last one was used; one it does not know is still ignored", async () => {
    const { handoff } = await create("given twice");
    const refusals: [string, Record<string, string[]>][] = [
      [`${base}?status=active&status=completed`, { status: ["status is given 2 times; give it once"] }],
      [`${base}?q=a&q=b&page=1&page=2&page=3`, { q: ["q is given 2 times; give it once"], page: ["page is given 3 times; give it once"] }],
      [`${base}/${handoff.id}?after_seq=0&after_seq=5`, { afterSeq: ["after_seq is given 2 times; give it once"] }],
    ];
    for (const [url, fieldErrors] of refusals) {
      const response = await api.fetch(new URL(url).pathname + new URL(url).search);
      expect(response.status, url).toBe(400);
      expect((await response.json()).error.fieldErrors, url).toEqual(fieldErrors);
    }
    const ignored = await api.fetch(`/api/handoffs?project=api&utm=1&utm=2`);
    expect(ignored.status).toBe(200);
    // A list in a JSON body is another JSON type, not a repeated parameter.
    const listed = await entriesRoute(post(`${base}/${handoff.id}/entries`, { content: "x", answers: [1] }), context(handoff.id));
    expect((await listed.json()).error.fieldErrors).toEqual({ answers: ["answers must be a whole number from 1 to 2147483647"] });
  });

  it("reads MCP's snake_case as the same field, refuses a field it does not take with 400 naming the one meant, and stores nothing", async () => {
    const { handoff } = await create("strict fields");
    // MCP's spelling of the side, as scripts copy it from MCP calls: it used to be dropped, and the
    // entry stored as chat's with chat's cursor moved.
    const bySnakeCase = await entriesRoute(post(`${base}/${handoff.id}/entries`, { type: "task", content: "x", as_client: "code" }), context(handoff.id));
    expect(bySnakeCase.status).toBe(201);
    const added = await bySnakeCase.json();
    expect(added.entry.fromClient).toBe("code");
    expect(added.handoff.codeLastSeen).toBe(added.entry.seq);

    const refusals: [unknown, Record<string, string[]>][] = [
      [{ type: "task", content: "x", asClient: "chat", as_client: "code" }, { asClient: ["given twice, as asClient and as as_client: send one"] }],
      [{ type: "task", content: "x", side: "code" }, { side: ["side is not a field here; this takes type, content, answers, asClient, repoPath"] }],
      [{ type: "task", content: "x", asclient: "code" }, { asclient: ["asclient is not a field here (did you mean asClient?); this takes type, content, answers, asClient, repoPath"] }],
    ];
    for (const [body, fieldErrors] of refusals) {
      const response = await entriesRoute(post(`${base}/${handoff.id}/entries`, body), context(handoff.id));
      expect(response.status).toBe(400);
      expect((await response.json()).error.fieldErrors).toEqual(fieldErrors);
    }
    // The thread is the path's: another ID in the body was overridden silently, so a script meaning that thread wrote to this one.
    const other = (await create("the body's thread")).handoff.id;
    for (const [routeOf, action, body] of [
      [entriesRoute, "entries", { id: other, type: "task", content: "x" }],
      [readRoute, "read", { id: other }],
      [closeRoute, "close", { id: 5 }],
    ] as const) {
      const response = await routeOf(post(`${base}/${handoff.id}/${action}`, body), context(handoff.id));
      expect(response.status, action).toBe(400);
      expect((await response.json()).error.fieldErrors, action).toEqual({ id: ["comes from the path"] });
    }
    const closing = await closeRoute(post(`${base}/${handoff.id}/close`, { archived: true }), context(handoff.id));
    expect(closing.status).toBe(400);
    expect((await closing.json()).error.fieldErrors.archived).toEqual(["archived is not a field here; this takes archive"]);
    const created = await createRoute(post(base, { title: "t", content: "x", colour: "red" }));
    expect(created.status).toBe(400);
    const thread = await (await getRoute(new Request(`${base}/${handoff.id}`), context(handoff.id))).json();
    expect(thread).toMatchObject({ entryCount: 2, handoff: { status: "active" } });
    expect(await (await getRoute(new Request(`${base}/${other}`), context(other))).json()).toMatchObject({ entryCount: 1, handoff: { status: "active" } });
    const listed = await (await listRoute(new Request(`${base}?q=colour`))).json();
    expect(listed.items).toEqual([]);
  });

  it("names at most ten unknown fields, each escaped and cut short, and counts the rest", async () => {
    const unknown = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`extra${index}`, index]));
    const response = await createRoute(post(base, { title: "t", content: "x", ...unknown, ["\u001b[31m" + "x".repeat(100)]: 1 }));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.message).toContain("extra0, extra1, extra2, extra3, extra4, extra5, extra6, extra7, extra8, extra9 and 3 more are not fields here");
    expect(Object.keys(error.fieldErrors)).toHaveLength(10);
    const escaped = await createRoute(post(base, { title: "t", content: "x", ["\u001b[31m" + "x".repeat(100)]: 1 }));
    const { fieldErrors } = (await escaped.json()).error;
    expect(Object.keys(fieldErrors)).toEqual([`\\u001b[31m${"x".repeat(59)}…`]);
    const twice = await createRoute(post(base, { title: "t", content: "x", ["\u001b[31m"]: { as_client: "code", asClient: "chat" } }));
    expect(twice.status).toBe(400);
    expect((await twice.json()).error.fieldErrors).toEqual({ "\\u001b[31m.asClient": ["given twice, as as_client and as asClient: send one"] });
  });

  it.each([
    ["{not json", "the request body must be JSON"],
    ["[1, 2]", "the request body must be a JSON object"],
  ])("refuses the body %s", async (body, message) => {
    const response = await createRoute(post(base, body));
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe(message);
  });

  it("answers an unknown handoff with 404 and a malformed one with 400", async () => {
    const unknown = "hof_AAAAAAAAAAAAAAAAAAAAA";
    const missing = await getRoute(new Request(`${base}/${unknown}`), context(unknown));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain(`handoff ${unknown} not found`);
    const malformed = await getRoute(new Request(`${base}/nope`), context("nope"));
    expect(malformed.status).toBe(400);
    const badSide = await getRoute(new Request(`${base}/${unknown}?as=robot`), context(unknown));
    expect(badSide.status).toBe(400);
  });

  it("refuses a bad history filter", async () => {
    const response = await listRoute(new Request(`${base}?status=open`));
    expect(response.status).toBe(400);
  });
});
