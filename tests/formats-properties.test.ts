import fc from "fast-check";
import { stringify as toYaml, parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { read } from "../lib/database";
import { Invalid } from "../lib/errors";
import { exportHandoff, importDocument, previewImport } from "../lib/formats";

// Each run imports into SQLite; enough runs to find edge cases, few enough for a 2-core machine.
const RUNS = { numRuns: 25 };

const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).filter((value) => value.trim().length > 0);
const anyText = fc.string({ unit: "grapheme", maxLength: 60 });
const iso = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true })
  .map((date) => date.toISOString());
const relativePath = fc
  .array(fc.stringMatching(/^[a-z0-9_-]{1,12}$/), { minLength: 1, maxLength: 4 })
  .map((parts) => `${parts.join("/")}.ts`);
const nullableNote = fc.option(anyText, { nil: null });

const handoffJson = fc.record({
  timestamp: iso,
  reason: fc.constantFrom("context_threshold", "error", "user_request"),
  current_story: fc.record({
    id: text,
    title: text,
    progress_percent: fc.integer({ min: 0, max: 100 }),
    status: fc.constantFrom("planning", "implementing", "testing", "blocked"),
  }),
  work_in_progress: fc.record({
    files_modified: fc.array(relativePath, { maxLength: 4 }),
    uncommitted_changes: anyText,
    last_completed_step: anyText,
    next_steps: fc.array(text, { maxLength: 4 }),
  }),
  context_learned: fc.array(text, { maxLength: 3 }),
  blockers: fc.array(text, { maxLength: 3 }),
  handoff_instruction: text,
});

const handoffYaml = fc.record(
  {
    goal: text,
    status: fc.constantFrom("in_progress", "completed", "blocked"),
    now: text,
    hypothesis: fc.option(anyText, { nil: null }),
    outcome: fc.option(anyText, { nil: null }),
    files: fc.array(relativePath, { maxLength: 4 }),
    branch: fc.stringMatching(/^[a-z][a-z0-9/_-]{0,30}$/),
    timestamp: iso,
    session_id: fc.stringMatching(/^[a-z0-9]{1,20}$/),
  },
  { requiredKeys: ["goal", "status", "now", "timestamp"] },
);

const bundle = fc.record({
  schema: fc.constant("rip.handoff_context_bundle.v1"),
  summary_markdown: text,
  refs: fc.record({
    threads: fc.array(
      fc.record(
        { thread_id: text, seq: fc.nat(), message_id: fc.option(text, { nil: null }), note: nullableNote },
        { requiredKeys: ["thread_id", "seq"] },
      ),
      { maxLength: 3 },
    ),
    artifacts: fc.array(fc.record({ artifact_id: text, note: nullableNote }, { requiredKeys: ["artifact_id"] }), { maxLength: 3 }),
    files: fc.array(fc.record({ path: relativePath, note: nullableNote }, { requiredKeys: ["path"] }), { maxLength: 3 }),
  }),
});

async function counts() {
  const row = await read((tx) =>
    tx.rows<[number, number, number]>(
      "SELECT (SELECT COUNT(*) FROM handoffs), (SELECT COUNT(*) FROM handoff_entries), (SELECT COUNT(*) FROM handoff_sources)",
    ),
  );
  return row[0];
}

/** Import must refuse with `path` named and store nothing; preview must answer, never throw. */
async function expectRefused(input: { text: string; fileName?: string; format?: string }, path: string, message?: RegExp) {
  const before = await counts();
  const error = await importDocument(input).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Invalid);
  const fieldErrors = (error as Invalid).fieldErrors;
  expect(Object.keys(fieldErrors)).toContain(path);
  if (message) expect(fieldErrors[path].join(" ")).toMatch(message);
  const preview = await previewImport(input);
  expect(preview.ok).toBe(false);
  if (!preview.ok) expect(preview.fieldErrors[path]).toEqual(fieldErrors[path]);
  expect(await counts()).toEqual(before);
}

type Doc = Record<string, unknown>;

function pathsOf(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value as Doc).flatMap(([key, child]) => {
    const here = Array.isArray(value) ? `${prefix}[${key}]` : prefix ? `${prefix}.${key}` : key;
    return [here, ...pathsOf(child, here)];
  });
}

function edit(doc: Doc, path: string, change: (parent: Doc, key: string) => void): Doc {
  const copy = structuredClone(doc);
  const keys = path.replace(/\[(\d+)\]/g, ".$1").split(".");
  let parent: Doc = copy;
  for (const key of keys.slice(0, -1)) parent = parent[key] as Doc;
  change(parent, keys.at(-1)!);
  return copy;
}

/** A value of another type than the one at the path. */
function wrongTypeFor(value: unknown): unknown {
  if (typeof value === "string") return 12345;
  if (typeof value === "number") return "sixty";
  if (Array.isArray(value)) return "not a list";
  return 7;
}

const JSON_REQUIRED = [
  "timestamp",
  "reason",
  "current_story",
  "current_story.id",
  "current_story.title",
  "current_story.progress_percent",
  "current_story.status",
  "work_in_progress",
  "work_in_progress.files_modified",
  "work_in_progress.uncommitted_changes",
  "work_in_progress.last_completed_step",
  "work_in_progress.next_steps",
  "context_learned",
  "blockers",
  "handoff_instruction",
];
const BUNDLE_REQUIRED = ["schema", "summary_markdown", "refs", "refs.threads", "refs.artifacts", "refs.files"];

describe("valid documents round-trip (import → export)", () => {
  it("handoff.json: every field comes back", async () => {
    await fc.assert(
      fc.asyncProperty(handoffJson, async (doc) => {
        const imported = await importDocument({ text: JSON.stringify(doc) });
        const exported = await exportHandoff({ id: imported.handoff.id, format: "json" });
        expect(JSON.parse(exported.text)).toEqual(doc);
      }),
      RUNS,
    );
  });

  it("handoff.yaml: the document comes back", async () => {
    await fc.assert(
      fc.asyncProperty(handoffYaml, async (doc) => {
        const imported = await importDocument({ text: toYaml(doc), fileName: "handoff.yaml" });
        const exported = await exportHandoff({ id: imported.handoff.id, format: "yaml" });
        expect(parseYaml(exported.text)).toEqual(doc);
      }),
      RUNS,
    );
  });

  it("bundle: the same bundle, in canonical bytes", async () => {
    await fc.assert(
      fc.asyncProperty(bundle, async (doc) => {
        const imported = await importDocument({ text: JSON.stringify(doc, null, 2) });
        const exported = await exportHandoff({ id: imported.handoff.id, format: "bundle" });
        expect(JSON.parse(exported.text)).toEqual(doc);
        expect(exported.artifactId).toBe(imported.artifactId);
      }),
      RUNS,
    );
  });
});

describe("malformed documents are refused with field paths, store nothing and throw nothing else", () => {
  it("a required field missing is named", async () => {
    await fc.assert(
      fc.asyncProperty(handoffJson, fc.constantFrom(...JSON_REQUIRED), async (doc, path) => {
        await expectRefused({ text: JSON.stringify(edit(doc, path, (parent, key) => delete parent[key])) }, path, /is required/);
      }),
      RUNS,
    );
    await fc.assert(
      fc.asyncProperty(bundle, fc.constantFrom(...BUNDLE_REQUIRED), async (doc, path) => {
        await expectRefused({ text: JSON.stringify(edit(doc, path, (parent, key) => delete parent[key])), format: "bundle" }, path, /is required/);
      }),
      RUNS,
    );
    await fc.assert(
      fc.asyncProperty(handoffYaml, fc.constantFrom("goal", "status", "now"), async (doc, path) => {
        await expectRefused({ text: toYaml(edit(doc, path, (parent, key) => delete parent[key])), fileName: "handoff.yaml" }, path, /is required/);
      }),
      RUNS,
    );
  });

  it("a field of the wrong type is named, at any depth", async () => {
    await fc.assert(
      fc.asyncProperty(
        handoffJson.chain((doc) => fc.tuple(fc.constant(doc), fc.constantFrom(...pathsOf(doc)))),
        async ([doc, path]) => {
          const broken = edit(doc, path, (parent, key) => {
            parent[key] = wrongTypeFor(parent[key]);
          });
          await expectRefused({ text: JSON.stringify(broken) }, path);
        },
      ),
      RUNS,
    );
    await fc.assert(
      fc.asyncProperty(
        bundle.chain((doc) => fc.tuple(fc.constant(doc), fc.constantFrom(...pathsOf(doc).filter((path) => !/(note|message_id)$/.test(path))))),
        async ([doc, path]) => {
          const broken = edit(doc, path, (parent, key) => {
            parent[key] = wrongTypeFor(parent[key]);
          });
          await expectRefused({ text: JSON.stringify(broken), format: "bundle" }, path);
        },
      ),
      RUNS,
    );
  });

  it("a handoff.yaml field of the wrong type is named", async () => {
    await fc.assert(
      fc.asyncProperty(
        handoffYaml.chain((doc) => fc.tuple(fc.constant(doc), fc.constantFrom(...Object.keys(doc).filter((key) => doc[key as keyof typeof doc] !== null)))),
        async ([doc, path]) => {
          const broken = edit(doc, path, (parent, key) => {
            parent[key] = wrongTypeFor(parent[key]);
          });
          await expectRefused({ text: toYaml(broken), fileName: "handoff.yaml" }, path);
        },
      ),
      RUNS,
    );
  });

  it("invalid JSON and invalid YAML are refused as a whole document", async () => {
    await fc.assert(
      fc.asyncProperty(
        handoffJson.chain((doc) => {
          const json = JSON.stringify(doc);
          return fc.integer({ min: 1, max: json.length - 1 }).map((length) => json.slice(0, length));
        }),
        async (truncated) => {
          await expectRefused({ text: truncated, fileName: "handoff.json" }, "(document)", /invalid JSON/);
        },
      ),
      RUNS,
    );
    const brokenYaml = fc.constantFrom('now: "unterminated\n', "files: [a, b\n", "goal: x\n  bad: indent\n- item\n", "goal: &a [*a\n", "goal: x\ngoal: y\n");
    await fc.assert(
      fc.asyncProperty(handoffYaml, brokenYaml, async (doc, tail) => {
        await expectRefused({ text: `${toYaml(doc)}${tail}`, fileName: "handoff.yaml" }, "(document)", /invalid YAML/);
      }),
      RUNS,
    );
  });

  it("huge strings and huge documents are refused", async () => {
    const huge = "x".repeat(64 * 1024 + 1);
    await fc.assert(
      fc.asyncProperty(handoffJson, fc.constantFrom("handoff_instruction", "current_story.title", "work_in_progress.last_completed_step"), async (doc, path) => {
        const broken = edit(doc, path, (parent, key) => {
          parent[key] = huge;
        });
        await expectRefused({ text: JSON.stringify(broken) }, path, /at most 64 KiB/);
      }),
      { numRuns: 6 },
    );
    await fc.assert(
      fc.asyncProperty(bundle, async (doc) => {
        await expectRefused({ text: JSON.stringify({ ...doc, summary_markdown: huge }) }, "summary_markdown", /at most 64 KiB/);
      }),
      { numRuns: 3 },
    );
    await fc.assert(
      fc.asyncProperty(handoffYaml, fc.constantFrom("goal", "now"), async (doc, path) => {
        await expectRefused({ text: toYaml({ ...doc, [path]: huge }), fileName: "handoff.yaml" }, path, /at most 64 KiB/);
      }),
      { numRuns: 4 },
    );
    await expectRefused({ text: `goal: ${"y".repeat(1024 * 1024)}\n`, fileName: "handoff.yaml" }, "(document)", /at most 1 MiB/);
  });

  it("an unknown schema string is refused by name", async () => {
    await fc.assert(
      fc.asyncProperty(bundle, text.filter((value) => value !== "rip.handoff_context_bundle.v1"), async (doc, schema) => {
        await expectRefused({ text: JSON.stringify({ ...doc, schema }) }, "schema", /unknown schema/);
      }),
      RUNS,
    );
  });
});
