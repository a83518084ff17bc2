import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GET as exportRoute, POST as keepRoute } from "../app/handoffs/[id]/export/route";
import { dataDir } from "../lib/config";
import { read } from "../lib/database";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";

const api = apiServerForFile();
const route = api.route;

const artifactRoute = route("GET", "/api/artifacts/:id");
const importRoute = route("POST", "/api/import");

// A string body would make the request text/plain; the API takes JSON bodies as application/json only.
const post = (body: unknown) =>
  new Request("http://127.0.0.1/api/import", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const context = (id: string) => ({ params: Promise.resolve({ id }) });

describe("formats over HTTP", () => {
  it("imports, previews without storing, and answers bad input with 400 and field paths", async () => {
    const handoffCount = async () => (await read((tx) => tx.get<{ count: number }>("SELECT COUNT(*) AS count FROM handoffs")))!.count;
    const before = await handoffCount();
    const dry = await importRoute(post({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, dryRun: true }));
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ ok: true, format: "handoff_yaml" });
    expect(await handoffCount()).toBe(before);

    const bad = await importRoute(post({ text: '{"schema": "nope", "summary_markdown": 5}' }));
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.error.fieldErrors.schema[0]).toMatch(/unknown schema "nope"/);
    expect(body.error.fieldErrors.summary_markdown).toEqual(["must be a string"]);
    expect((await importRoute(post("not json"))).status).toBe(400);
    expect((await importRoute(post({}))).status).toBe(400);
    expect(await handoffCount()).toBe(before);

    // A preview asked for in any other spelling than JSON true is refused, never imported.
    for (const dryRun of ["true", 1, "yes", null, {}, "false"]) {
      const refused = await importRoute(post({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, dryRun }));
      expect(refused.status).toBe(400);
      expect((await refused.json()).error.fieldErrors.dryRun).toEqual(["must be true or false"]);
    }
    const unknown = await (await importRoute(post({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, preview: true }))).json();
    expect(unknown.error.message).toMatch(/preview is not a field here; this takes text, artifactId, fileName, format, project, title, dryRun/);
    expect(await handoffCount()).toBe(before);

    const created = await importRoute(post({ text: EXAMPLE_DOCUMENTS.handoff_json.text, project: "api" }));
    expect(created.status).toBe(201);
    const { handoff } = await created.json();
    expect(handoff.project).toBe("api");
  });

  it("downloads exports with a file name, stores bundles and serves them by artifact id", async () => {
    const { handoff } = await (await importRoute(post({ text: EXAMPLE_DOCUMENTS.handoff_json.text }))).json();
    const json = await exportRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export?format=json`), context(handoff.id));
    expect(json.status).toBe(200);
    expect(json.headers.get("content-disposition")).toBe(`attachment; filename="${handoff.id}-cut-${handoff.codeLastSeen}.handoff.json"`);
    expect(JSON.parse(await json.text())).toEqual(JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text));

    // A download only reads; a POST keeps the bundle.
    const downloaded = await exportRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export?format=bundle`), context(handoff.id));
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("x-baton-artifact-id")).toBeNull();
    const bundle = await keepRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export?format=bundle`, { method: "POST" }), context(handoff.id));
    const artifactId = bundle.headers.get("x-baton-artifact-id")!;
    expect(await downloaded.text()).toBe(await bundle.clone().text());
    expect(artifactId).toMatch(/^[0-9a-f]{64}$/);
    const served = await artifactRoute(new Request(`http://127.0.0.1/api/artifacts/${artifactId}`), context(artifactId));
    expect(served.status).toBe(200);
    // Kept by the browser, never by a proxy or CDN in front: `public` would let a shared cache hand the bundle to anyone.
    expect(served.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    const text = await bundle.text();
    expect(await served.text()).toBe(text);
    // Any instance of a team server answers it: the bytes are in the database, not only in this folder.
    fs.rmSync(path.join(dataDir(), "artifacts"), { recursive: true, force: true });
    const fromDatabase = await artifactRoute(new Request(`http://127.0.0.1/api/artifacts/${artifactId}`), context(artifactId));
    expect(fromDatabase.status).toBe(200);
    expect(await fromDatabase.text()).toBe(text);

    const badFormat = await exportRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export?format=pdf`), context(handoff.id));
    expect(badFormat.status).toBe(400);
    // Left out, the format is missing, not an unknown one named "".
    const noFormat = await exportRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export`), context(handoff.id));
    expect(noFormat.status).toBe(400);
    expect((await noFormat.json()).error).toEqual({ code: "INVALID", message: "format is required: bundle, json or yaml", fieldErrors: { format: ["format is required: bundle, json or yaml"] } });
    // A parameter given twice is refused by name: the first one used to count, without a word.
    for (const [query, fieldErrors] of [
      ["format=json&format=yaml", { format: ["format is given 2 times; give it once"] }],
      ["format=json&cutAtEntry=1&cutAtEntry=2", { cutAtEntry: ["cutAtEntry is given 2 times; give it once"] }],
    ] as const) {
      const twice = await exportRoute(new Request(`http://127.0.0.1/handoffs/${handoff.id}/export?${query}`), context(handoff.id));
      expect(twice.status, query).toBe(400);
      expect((await twice.json()).error.fieldErrors, query).toEqual(fieldErrors);
    }
    expect((await artifactRoute(new Request("http://127.0.0.1/api/artifacts/xyz"), context("xyz"))).status).toBe(400);
    const missing = "0".repeat(64);
    expect((await artifactRoute(new Request(`http://127.0.0.1/api/artifacts/${missing}`), context(missing))).status).toBe(404);
    const unknown = "hof_AAAAAAAAAAAAAAAAAAAAA";
    expect((await exportRoute(new Request(`http://127.0.0.1/handoffs/${unknown}/export?format=json`), context(unknown))).status).toBe(404);
  });
});
