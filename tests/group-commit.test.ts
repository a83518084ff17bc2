import { expect, it } from "vitest";
import { read, writeGrouped } from "../lib/database";
import { closeHandoff } from "../lib/formats";
import { createHandoff } from "../lib/handoffs";
import { apiServerForFile } from "./support/api-server";

/**
 * Group commit (lib/database's writeGrouped, which a door's append goes through): appends that
 * arrive together share one transaction on SQLite, each acknowledged after its commit; one
 * caller's failure is never another's. The same behaviour on PostgreSQL, which commits each alone.
 */
const api = apiServerForFile();

const append = (id: string, body: unknown) =>
  api.fetch(`/api/handoffs/${encodeURIComponent(id)}/entries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

it("lands every one of many concurrent HTTP appends, each numbered once, and answers a bad one its own 4xx", async () => {
  const threads = await Promise.all(Array.from({ length: 4 }, (_, index) => createHandoff({ title: `group ${index}`, content: "start" })));
  const completed = await createHandoff({ title: "group completed", content: "start" });
  await closeHandoff({ id: completed.handoff.id });
  const PER_THREAD = 12;
  const good = threads.flatMap(({ handoff }, thread) =>
    Array.from({ length: PER_THREAD }, (_, index) => ({ id: handoff.id, body: { type: "progress", content: `thread ${thread} append ${index}`, asClient: index % 2 ? "code" : "chat" } })),
  );
  // The bad ones sit among the good ones, in the same turn of the server's event loop.
  const requests = [...good.slice(0, 20), { id: completed.handoff.id, body: { type: "progress", content: "too late" } }, ...good.slice(20, 30), { id: "hof_aaaaaaaaaaaaaaaaaaaaa", body: { type: "progress", content: "nowhere" } }, { id: threads[0].handoff.id, body: { type: "nonsense", content: "bad type" } }, ...good.slice(30)];
  const answers = await Promise.all(requests.map(async ({ id, body }) => ({ id, body, response: await append(id, body) })));

  const statuses = answers.map(({ response }) => response.status);
  expect(statuses.filter((status) => status === 201)).toHaveLength(good.length);
  expect(statuses[20]).toBe(409);
  expect(statuses[31]).toBe(404);
  expect(statuses[32]).toBe(400);
  const bad = await Promise.all([20, 31, 32].map((index) => answers[index].response.json() as Promise<{ error: { code: string } }>));
  expect(bad.map(({ error }) => error.code)).toEqual(["CONFLICT", "NOT_FOUND", "INVALID"]);

  const added = await Promise.all(
    answers.filter(({ response }) => response.status === 201).map(async ({ id, body, response }) => ({ id, body, ...((await response.json()) as { entry: { seq: number; number: number; content: string } }) })),
  );
  for (const { body, entry } of added) expect(entry.content).toBe((body as { content: string }).content);
  // Each seq once; each thread's numbers 1 (its first entry) and then 2 … 13, each once.
  expect(new Set(added.map(({ entry }) => entry.seq)).size).toBe(added.length);
  for (const { handoff } of threads) {
    const numbers = added.filter(({ id }) => id === handoff.id).map(({ entry }) => entry.number);
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: PER_THREAD }, (_, index) => index + 2));
    const stored = await read((tx) => tx.rows<[number, string]>("SELECT number, content FROM handoff_entries WHERE handoff_id = ? ORDER BY number", [handoff.id]));
    expect(stored.map(([number]) => number)).toEqual(Array.from({ length: PER_THREAD + 1 }, (_, index) => index + 1));
  }
  expect(await read((tx) => tx.rows("SELECT seq FROM handoff_entries WHERE handoff_id = ?", [completed.handoff.id]))).toEqual([]);
});

it("gives each grouped write its own outcome: one that throws is rolled back alone, the others commit", async () => {
  const { handoff } = await createHandoff({ title: "grouped writes", content: "start" });
  const setProject = (project: string) => writeGrouped((tx) => tx.run("UPDATE handoffs SET project = ? WHERE id = ?", [project, handoff.id]));
  const titled = (title: string) => writeGrouped((tx) => tx.run("UPDATE handoffs SET title = ? WHERE id = ?", [title, handoff.id]));
  const failing = writeGrouped(async (tx) => {
    await tx.run("UPDATE handoffs SET title = ? WHERE id = ?", ["never kept", handoff.id]);
    throw new Error("this write fails");
  });
  // Made in one turn: on SQLite the first may run at once, the rest share a group with the one that throws.
  const [project, failed, title] = await Promise.allSettled([setProject("kept"), failing, titled("kept title")]);
  expect(project).toEqual({ status: "fulfilled", value: 1 });
  expect(failed).toMatchObject({ status: "rejected", reason: { message: "this write fails" } });
  expect(title).toEqual({ status: "fulfilled", value: 1 });
  const row = await read((tx) => tx.get<{ project: string; title: string }>("SELECT project, title FROM handoffs WHERE id = ?", [handoff.id]));
  expect(row).toEqual({ project: "kept", title: "kept title" });
});
