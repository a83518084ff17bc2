import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Invalid } from "../lib/errors";
import { addEntry, createHandoff, findHandoffs, markRead, type HandoffSummary } from "../lib/handoffs";
import { closeHandoff } from "../lib/formats";
import { read, write } from "../lib/database";
import { fts5QueryOf, MAX_SEARCH_WORDS, parseSearchQuery, SEARCH_MATCH_LIMIT, tsqueryOf } from "../lib/search";
import { EXCERPT_TOKENS, passageOf } from "../lib/search/fts5";
import { catchUpEntryIndex, INDEX_BATCH } from "../lib/search/pending";
import { MATCH_END, MATCH_START } from "../lib/search/highlight";
import { scanStored } from "../lib/jobs/secrets-sweep";
import type { HighlightedText, SearchMatch } from "../lib/search/types";
import { apiServerForFile } from "./support/api-server";
import { SECRET_SAMPLES } from "./fixtures/secrets/corpus";

/**
 * Full-text search through findHandoffs (the query behind the home page and
 * GET /api/handoffs?q=): titles, entries and kept summaries, ranked, with marked excerpts.
 * Every test uses words of its own, so tests in this file never see each other's handoffs.
 */

const onSqlite = process.env.BATON_TEST_ENGINE !== "postgres";
const run = promisify(execFile);
const appendWorker = path.join(import.meta.dirname, "support", "append-worker.ts");
const ids = (items: HandoffSummary[]) => items.map((item) => item.id);
const marked = (text: HighlightedText | undefined) => (text ?? []).filter((segment) => segment.match).map((segment) => segment.text);
const plain = (text: HighlightedText | undefined) => (text ?? []).map((segment) => segment.text).join("");

describe("search", () => {
  it("finds a word that is only in an entry, and marks it in an excerpt of that entry", async () => {
    const { handoff } = await createHandoff({ title: "Implement auth", content: "We decided on JWT." });
    const { entry } = await addEntry({ id: handoff.id, type: "question", content: "Should the zanzibar tokens expire after 7d?", asClient: "code" });
    await createHandoff({ title: "Unrelated", content: "nothing to see" });

    const page = await findHandoffs({ q: "zanzibar" });
    expect(page.total).toBe(1);
    expect(ids(page.items)).toEqual([handoff.id]);
    const { match } = page.items[0];
    expect(match?.title).toEqual([{ text: "Implement auth", match: false }]);
    expect(match?.excerpt).toMatchObject({ in: "entry", seq: entry.seq, type: "question", fromClient: "code" });
    expect(marked(match?.excerpt?.text)).toEqual(["zanzibar"]);
    expect(plain(match?.excerpt?.text)).toBe("Should the zanzibar tokens expire after 7d?");
  });

  it("marks the title's words, and matches stems and folded accents", async () => {
    const { handoff } = await createHandoff({ title: "Refreshing the Café quokka menu", content: "x" });
    for (const q of ["quokka refresh", "QUOKKA cafe", "quokkas"]) {
      const page = await findHandoffs({ q });
      expect(ids(page.items), q).toEqual([handoff.id]);
    }
    const [item] = (await findHandoffs({ q: "quokka cafe" })).items;
    expect(marked(item.match?.title)).toEqual(["Café", "quokka"]);
    expect(item.match?.excerpt).toBeNull();
  });

  it("a phrase needs its words next to each other, in order", async () => {
    const together = await createHandoff({ title: "t", content: "rotate the wombat key every week" });
    await createHandoff({ title: "t", content: "the key of the wombat is somewhere else" });
    expect(ids((await findHandoffs({ q: '"wombat key"' })).items)).toEqual([together.handoff.id]);
    expect((await findHandoffs({ q: "wombat key" })).total).toBe(2);
    const [item] = (await findHandoffs({ q: '"wombat key"' })).items;
    expect(marked(item.match?.excerpt?.text)).toEqual(["wombat key"]);
  });

  it("a trailing * is a prefix; without it a word is whole", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "the okapimigration ran twice" });
    expect((await findHandoffs({ q: "okapimig" })).total).toBe(0);
    expect(ids((await findHandoffs({ q: "okapimig*" })).items)).toEqual([handoff.id]);
    expect(ids((await findHandoffs({ q: '"the okapimig"*' })).items)).toEqual([handoff.id]);
  });

  it("a prefix needs three letters: a shorter one is searched as the word itself", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "zq the zqokapi ran" });
    expect(ids((await findHandoffs({ q: "zqo*" })).items)).toEqual([handoff.id]);
    expect(parseSearchQuery('zq* "the zq"*')).toEqual([{ text: "zq", prefix: false }, { text: "the zq", prefix: false }]);
    // Found by the word "zq", not as a prefix of "zqokapi".
    const other = await createHandoff({ title: "t", content: "zqokapi alone" });
    expect(ids((await findHandoffs({ q: "zq*" })).items)).toEqual([handoff.id]);
    expect(ids((await findHandoffs({ q: "zqok*" })).items).sort()).toEqual([handoff.id, other.handoff.id].sort());
  });

  it("ranks only the newest 1,000 matching entries; past them the answer says it is capped, and a word more finds the older ones", async () => {
    const old = await createHandoff({ title: "t", content: "zorbleck in the oldest thread, beside a vintrelle" });
    const busy = await createHandoff({ title: "t", content: "zorbleck 1" });
    for (let index = 2; index <= SEARCH_MATCH_LIMIT; index++) await addEntry({ id: busy.handoff.id, type: "progress", content: `zorbleck ${index}` });
    const capped = await findHandoffs({ q: "zorbleck" });
    expect(capped).toMatchObject({ capped: true, total: 1 });
    expect(ids(capped.items)).toEqual([busy.handoff.id]);
    expect(await findHandoffs({ q: "zorbleck vintrelle" })).toMatchObject({ capped: false, total: 1, items: [expect.objectContaining({ id: old.handoff.id })] });
    // Past the last page the total and the cap come from a count of their own.
    expect(await findHandoffs({ q: "zorbleck", page: 5 })).toMatchObject({ capped: true, total: 1, items: [] });
    expect((await findHandoffs({ q: "vintrelle" })).capped).toBe(false);
  });

  it("filters narrow the search before its cap: a project's older match is found though another thread holds the newest 1,000", async () => {
    const mine = await createHandoff({ title: "t", content: "quillwort in the project's thread", project: "quill" });
    const busy = await createHandoff({ title: "t", content: "quillwort 1", project: "busy" });
    for (let index = 2; index <= SEARCH_MATCH_LIMIT + 1; index++) await addEntry({ id: busy.handoff.id, type: "progress", content: `quillwort ${index}` });
    expect(ids((await findHandoffs({ q: "quillwort" })).items)).toEqual([busy.handoff.id]);
    // Cut before the filter, this page said nothing matched.
    const filtered = await findHandoffs({ q: "quillwort", project: "quill" });
    expect(filtered).toMatchObject({ capped: false, total: 1 });
    expect(ids(filtered.items)).toEqual([mine.handoff.id]);
    expect(filtered.items[0].match?.excerpt).toMatchObject({ in: "entry" });
    expect(ids((await findHandoffs({ q: "quillwort", project: "quill", status: "active", source: "native" })).items)).toEqual([mine.handoff.id]);
    // The busy project's own matches are past the cap, and say so.
    expect(await findHandoffs({ q: "quillwort", project: "busy" })).toMatchObject({ capped: true, total: 1 });
    expect(await findHandoffs({ q: "quillwort", project: "nobody" })).toMatchObject({ capped: false, total: 0 });
  });

  it("every word must be in one entry (or the title)", async () => {
    const { handoff } = await createHandoff({ title: "t", content: "lemur first" });
    await addEntry({ id: handoff.id, type: "progress", content: "gecko second" });
    expect((await findHandoffs({ q: "lemur gecko" })).total).toBe(0);
    expect((await findHandoffs({ q: "lemur first" })).total).toBe(1);
  });

  it("ranks the best match first, not the most recent", async () => {
    const dense = await createHandoff({ title: "t", content: "axolotl axolotl axolotl: the axolotl plan" });
    const passing = await createHandoff({
      title: "t",
      content: `A long note about many things, ${"of which most are not about it at all, ".repeat(20)}and once the axolotl.`,
    });
    const titled = await createHandoff({ title: "The axolotl tank", content: "filters and pumps" });
    const page = await findHandoffs({ q: "axolotl" });
    // The titled thread and the dense one lead; the most recent (titled) is not first by recency
    // alone: the passing mention, written in between, comes last.
    expect(ids(page.items)).toHaveLength(3);
    expect(ids(page.items).at(-1)).toBe(passing.handoff.id);
    expect(ids(page.items).slice(0, 2).sort()).toEqual([dense.handoff.id, titled.handoff.id].sort());
    // A thread's best entry gives its excerpt, whichever entry came last.
    await addEntry({ id: passing.handoff.id, type: "progress", content: `later, ${"filler words here ".repeat(30)} axolotl` });
    await addEntry({ id: passing.handoff.id, type: "decision", content: "axolotl axolotl axolotl axolotl" });
    await addEntry({ id: passing.handoff.id, type: "progress", content: `much later, ${"more filler words ".repeat(30)} axolotl` });
    const again = await findHandoffs({ q: "axolotl" });
    const best = again.items.find((item) => item.id === passing.handoff.id);
    expect(best?.match?.excerpt).toMatchObject({ in: "entry", type: "decision" });
    // Its best entry now beats the dense one's: a handoff ranks by its best match.
    expect(ids(again.items).indexOf(passing.handoff.id)).toBeLessThan(ids(again.items).indexOf(dense.handoff.id));
  });

  it("each result's passage is of its own best entry, however many older entries match", async () => {
    const older = await createHandoff({ title: "t", content: "wibblefrotz once, in the older thread" });
    const newer = await createHandoff({ title: "t", content: "the newer thread says wibblefrotz wibblefrotz" });
    const items = (await findHandoffs({ q: "wibblefrotz" })).items;
    const passage = (id: string) => plain(items.find((item) => item.id === id)?.match?.excerpt?.text);
    expect(passage(older.handoff.id)).toBe("wibblefrotz once, in the older thread");
    expect(passage(newer.handoff.id)).toBe("the newer thread says wibblefrotz wibblefrotz");
    // A prefix longer than the indexed one takes the one-scan path: the same passages.
    const prefixed = (await findHandoffs({ q: "wibblefr*" })).items;
    expect(prefixed.map((item) => plain(item.match?.excerpt?.text)).sort()).toEqual([passage(newer.handoff.id), passage(older.handoff.id)].sort());
  });

  it("cuts a long entry to a passage around the match", async () => {
    const long = `${"lorem ipsum dolor sit amet ".repeat(40)}the narwhal appears here ${"consectetur adipiscing elit ".repeat(40)}`;
    await createHandoff({ title: "t", content: long });
    const [item] = (await findHandoffs({ q: "narwhal" })).items;
    const text = plain(item.match?.excerpt?.text);
    expect(text.length).toBeLessThan(300);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(marked(item.match?.excerpt?.text)).toEqual(["narwhal"]);
    expect(text).not.toMatch(/[\uE000\uE001]/);
  });

  it("pages through matches with the same total on every page", async () => {
    for (let index = 0; index < 5; index++) await createHandoff({ title: `pangolin ${index}`, content: "x", project: "paging" });
    const first = await findHandoffs({ q: "pangolin", perPage: 2 });
    const third = await findHandoffs({ q: "pangolin", perPage: 2, page: 3 });
    const past = await findHandoffs({ q: "pangolin", perPage: 2, page: 9 });
    expect(first).toMatchObject({ total: 5, pageCount: 3, page: 1 });
    expect(third).toMatchObject({ total: 5, pageCount: 3, page: 3 });
    expect(third.items).toHaveLength(1);
    expect(past).toMatchObject({ total: 5, items: [] });
    const second = await findHandoffs({ q: "pangolin", perPage: 2, page: 2 });
    expect(new Set([...ids(first.items), ...ids(second.items), ...ids(third.items)]).size).toBe(5);
  });

  it("combines with status, project and unread filters", async () => {
    const open = await createHandoff({ title: "t", content: "the ibex report", project: "ibex" });
    const closed = await createHandoff({ title: "ibex closed", content: "x", project: "ibex" });
    await closeHandoff({ id: closed.handoff.id });
    expect(ids((await findHandoffs({ q: "ibex", status: "active" })).items)).toEqual([open.handoff.id]);
    expect(ids((await findHandoffs({ q: "ibex", status: "completed" })).items)).toEqual([closed.handoff.id]);
    expect((await findHandoffs({ q: "ibex", project: "other" })).total).toBe(0);
    expect((await findHandoffs({ q: "ibex", unread: "chat" })).total).toBe(0);
    await addEntry({ id: open.handoff.id, type: "question", content: "ready?", asClient: "code" });
    expect(ids((await findHandoffs({ q: "ibex", unread: "chat" })).items)).toEqual([open.handoff.id]);
  });

  it("a closed thread is found by its title, by its kept bundle's summary, never by its wiped entries", async () => {
    const wiped = await createHandoff({ title: "Quetzal migration", content: "the tapir schema moved" });
    const kept = await createHandoff({ title: "Quetzal rollout", content: "we chose the serval plan" });
    await closeHandoff({ id: wiped.handoff.id });
    await closeHandoff({ id: kept.handoff.id, archive: true });

    expect((await findHandoffs({ q: "tapir" })).total).toBe(0);
    expect((await findHandoffs({ q: "quetzal" })).total).toBe(2);
    const [item] = (await findHandoffs({ q: "serval" })).items;
    expect(item.id).toBe(kept.handoff.id);
    expect(item.match?.excerpt).toMatchObject({ in: "kept_summary" });
    expect(marked(item.match?.excerpt?.text)).toEqual(["serval"]);
  });
});

describe("unread filter", () => {
  it("lists only handoffs with entries that side has not read", async () => {
    const forChat = await createHandoff({ title: "t", content: "c", project: "unread-filter" });
    await addEntry({ id: forChat.handoff.id, type: "question", content: "?", asClient: "code" });
    const forCode = await createHandoff({ title: "t", content: "c", project: "unread-filter" });
    const none = await createHandoff({ title: "t", content: "c", project: "unread-filter" });
    await markRead({ id: none.handoff.id, asClient: "code" });

    expect(ids((await findHandoffs({ project: "unread-filter", unread: "chat" })).items)).toEqual([forChat.handoff.id]);
    expect(ids((await findHandoffs({ project: "unread-filter", unread: "code" })).items)).toEqual([forCode.handoff.id]);
    await markRead({ id: forChat.handoff.id, asClient: "chat" });
    expect((await findHandoffs({ project: "unread-filter", unread: "chat" })).total).toBe(0);
    await expect(findHandoffs({ unread: "both" })).rejects.toThrow(/unread must be "chat" or "code"/);
  });
});

describe("what people type", () => {
  it.each([
    ['"refresh token" migr*', [{ text: "refresh token", prefix: false }, { text: "migr", prefix: true }]],
    ['"unclosed phrase', [{ text: "unclosed phrase", prefix: false }]],
    ["a AND b OR NOT c", ["a", "AND", "b", "OR", "NOT", "c"].map((text) => ({ text, prefix: false }))],
    ["!! -- ** \u0000", []],
    ['say "x""y"', [{ text: "say", prefix: false }, { text: "x", prefix: false }, { text: "y", prefix: false }]],
  ])("reads %j as terms", (input, terms) => {
    expect(parseSearchQuery(input)).toEqual(terms);
  });

  it("keeps at most MAX_SEARCH_WORDS words in all: a longer phrase is cut, later terms left out", () => {
    const words = Array.from({ length: 40 }, (_, index) => `w${index}`);
    const first = (count: number) => words.slice(0, count).join(" ");
    expect(parseSearchQuery(`"${first(40)}"* more`)).toEqual([{ text: first(MAX_SEARCH_WORDS), prefix: false }]);
    expect(parseSearchQuery(first(40))).toEqual(words.slice(0, MAX_SEARCH_WORDS).map((text) => ({ text, prefix: false })));
    expect(parseSearchQuery(`"${first(MAX_SEARCH_WORDS - 3)}" "don't stop"* last`)).toEqual([
      { text: first(MAX_SEARCH_WORDS - 3), prefix: false },
      { text: "don't stop", prefix: true },
    ]);
    expect(parseSearchQuery(`"${first(MAX_SEARCH_WORDS - 1)}" "refresh token"*`)).toEqual([
      { text: first(MAX_SEARCH_WORDS - 1), prefix: false },
      { text: "refresh", prefix: false },
    ]);
  });

  it("quotes every term, so nothing typed is FTS5 syntax", () => {
    expect(fts5QueryOf(parseSearchQuery('title:x NEAR(a b) cat* "dog"*'))).toBe('"title:x" "NEAR(a" "b)" "cat" * "dog" *');
    expect(fts5QueryOf([])).toBeNull();
  });

  it("quotes every term, so nothing typed is tsquery syntax", () => {
    expect(tsqueryOf(parseSearchQuery('title:x NEAR(a b) cat* "dog"* !e|f'))).toBe("'title:x' & 'NEAR(a' & 'b)' & 'cat':* & 'dog':* & '!e|f'");
    expect(tsqueryOf(parseSearchQuery(`it's a\\b "x' yak"*`))).toBe("'it''s' & 'a\\\\b' & 'x'' yak':*");
    expect(tsqueryOf([])).toBeNull();
  });

  it("never fails on any text: an answer, or Invalid (400) when it is too long", async () => {
    await createHandoff({ title: "Hostile search target", content: "ordinary words for the property test" });
    const syntax = fc.constantFrom('"', "*", "(", ")", ":", "^", "-", "+", "AND", "OR", "NOT", "NEAR", "{", "}", "title:", " ", "\u0000", "\uE000", "é", "ordinary", "words", "\\", "'", "%", "_");
    const hostile = fc.oneof(
      fc.string({ maxLength: 220 }),
      fc.string({ unit: "grapheme", maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 120 }),
      fc.array(syntax, { maxLength: 40 }).map((parts) => parts.join("")),
    );
    await fc.assert(
      fc.asyncProperty(hostile, async (q) => {
        try {
          const page = await findHandoffs({ q });
          expect(page.total).toBeGreaterThanOrEqual(page.items.length);
          // Blank is no search (the whole history); anything else is a search's answer.
          if (q.trim() !== "") for (const item of page.items) expect(item.match).not.toBeNull();
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
          expect(q.trim().length).toBeGreaterThan(200);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("the index", () => {
  const integrityOf = () =>
    read(async (tx) => {
      if (tx.engine === "sqlite") {
        // FTS5's own check: every term in the index is in the rows it points at, and back.
        // (PostgreSQL's indexes are on the rows themselves: nothing to drift.)
        await tx.run("INSERT INTO entry_search (entry_search, rank) VALUES ('integrity-check', 1)");
        await tx.run("INSERT INTO handoff_search (handoff_search, rank) VALUES ('integrity-check', 1)");
      }
      return (await tx.get<{ entries: number; owners: number; handoffs: number; texts: number }>(
        `SELECT (SELECT COUNT(*) FROM handoff_entries) AS entries, (SELECT COUNT(*) FROM entry_search_owners) AS owners,
                (SELECT COUNT(*) FROM handoffs) AS handoffs, (SELECT COUNT(*) FROM handoff_search_texts) AS texts`,
      ))!;
    });

  it("follows every write the triggers see: create, append, close, retitle, rewrite, delete", async () => {
    const { handoff } = await createHandoff({ title: "Dingo before", content: "the dingo entry" });
    await addEntry({ id: handoff.id, type: "progress", content: "another dingo line" });
    const gone = await createHandoff({ title: "Numbat thread", content: "numbat words" });
    await closeHandoff({ id: gone.handoff.id, archive: true });
    // What lib/jobs/secrets-sweep.ts does when it redacts stored secrets.
    await write(async (tx) => {
      await tx.run("UPDATE handoffs SET title = 'Dingo after' WHERE id = ?", [handoff.id]);
      await tx.run("UPDATE handoff_entries SET content = 'rewritten wallaby' WHERE handoff_id = ? AND type = 'progress'", [handoff.id]);
    });
    expect(ids((await findHandoffs({ q: "after" })).items)).toContain(handoff.id);
    expect((await findHandoffs({ q: "before" })).total).toBe(0);
    expect(ids((await findHandoffs({ q: "wallaby" })).items)).toEqual([handoff.id]);
    expect((await findHandoffs({ q: '"another dingo"' })).total).toBe(0);

    const counts = await integrityOf();
    expect(counts.owners).toBe(counts.entries);
    expect(counts.texts).toBe(counts.handoffs);

    await write((tx) => tx.run("DELETE FROM handoffs WHERE id IN (?, ?)", [handoff.id, gone.handoff.id]));
    expect((await findHandoffs({ q: "dingo" })).total).toBe(0);
    expect((await findHandoffs({ q: "numbat" })).total).toBe(0);
    const after = await integrityOf();
    expect(after.owners).toBe(after.entries);
    expect(after.texts).toBe(after.handoffs);
  });

  const pendingSeqs = (handoffId: string) =>
    read(async (tx) =>
      (await tx.all<{ seq: number }>("SELECT seq FROM handoff_entries e WHERE handoff_id = ? AND NOT EXISTS (SELECT 1 FROM entry_search_owners o WHERE o.seq = e.seq) ORDER BY seq", [handoffId])).map(
        (row) => row.seq,
      ),
    );

  it.runIf(onSqlite)("indexes appends in batches: a search finds pending entries of any process, and a rewrite or a delete before the batch never reaches the index", async () => {
    await catchUpEntryIndex();
    const { handoff } = await createHandoff({ title: "Batch of kakapo", content: "the kakapo first line" });
    const rewritten = await addEntry({ id: handoff.id, type: "progress", content: "a takahe that the sweep rewrites" });
    const other = await createHandoff({ title: "t", content: "a weka of a thread closed before its batch" });
    // Another process appends (lib/handoffs, as every door does): its entries are pending too.
    const { stdout } = await run(process.execPath, ["--import", "tsx", appendWorker, handoff.id, handoff.id, "2", "code"], { env: process.env });
    const [workerSeq] = JSON.parse(stdout.trim().replace(/^ok /, "")) as number[];
    expect(await pendingSeqs(handoff.id)).toEqual([rewritten.entry.seq - 1, rewritten.entry.seq, workerSeq, workerSeq + 1]);
    expect((await pendingSeqs(other.handoff.id)).length).toBe(1);

    // What the secrets sweep and a close do to entries, before any search indexed them.
    await write((tx) => tx.run("UPDATE handoff_entries SET content = 'a rewritten pukeko' WHERE seq = ?", [rewritten.entry.seq]));
    await closeHandoff({ id: other.handoff.id, archive: false });

    expect(ids((await findHandoffs({ q: "kakapo" })).items)).toEqual([handoff.id]);
    expect(ids((await findHandoffs({ q: "pukeko" })).items)).toEqual([handoff.id]);
    expect((await findHandoffs({ q: "takahe" })).total).toBe(0);
    expect((await findHandoffs({ q: "weka" })).total).toBe(0);
    const found = await findHandoffs({ q: '"code 1"' });
    expect(ids(found.items)).toContain(handoff.id);
    expect(await pendingSeqs(handoff.id)).toEqual([]);
    const counts = await integrityOf();
    expect(counts.owners).toBe(counts.entries);

    // With no search at all, appends index what waits once a batch of it does.
    for (let index = 0; index < INDEX_BATCH; index++) await addEntry({ id: handoff.id, type: "progress", content: `line ${index}` });
    expect(await pendingSeqs(handoff.id)).toEqual([]);
  });
});

describe("stored secrets", () => {
  it("a kept summary is scanned and redacted, and the secret's words leave the index", async () => {
    const secret = SECRET_SAMPLES.find((sample) => sample.name === "Databricks token")!.value;
    process.env.BATON_SECRETS = "off";
    let id: string;
    try {
      ({ handoff: { id } } = await createHandoff({ title: "t", content: `run the job with ${secret} today` }));
      await closeHandoff({ id, archive: true });
    } finally {
      delete process.env.BATON_SECRETS;
    }
    expect(ids((await findHandoffs({ q: secret })).items)).toEqual([id]);

    const scan = await scanStored({ redact: true });
    expect(scan.findings.map((finding) => finding.place)).toContain(`kept summary of ${id}`);
    expect((await findHandoffs({ q: secret })).total).toBe(0);
    if (!onSqlite) return;
    // Not even in FTS5's pages: a delete only records that the words are gone, until the
    // segments that hold them are merged (terms share prefixes, so look for the token's tail).
    const tail = Buffer.from(secret.toLowerCase().slice(-24));
    const pages = await read(async (tx) => {
      const counts: number[] = [];
      for (const table of ["entry_search_data", "handoff_search_data"]) {
        counts.push((await tx.get<{ pages: number }>(`SELECT COUNT(*) AS pages FROM ${table} WHERE instr(block, ?) > 0`, [tail]))!.pages);
      }
      return counts;
    });
    expect(pages).toEqual([0, 0]);
  });
});

describe("words inside paths, addresses, URLs, dotted names and angle brackets (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();
  const search = async (q: string) => {
    const response = await api.fetch(`/api/handoffs?q=${encodeURIComponent(q)}`);
    expect(response.status, q).toBe(200);
    return ((await response.json()) as { items: (HandoffSummary & { match?: SearchMatch })[] }).items;
  };

  it("finds each word, as FTS5 does, and shows the text as written (PostgreSQL's parser read `a/b.ts`, `a@b.com`, `<Tag>` as one token)", async () => {
    const written = {
      path: "edited lib/auth/pelicansession.ts today",
      email: "mail pelicanops@pelicanexample.com about it",
      url: "see https://pelicanhub.com/org/pelicanrepo/pull/42",
      dotted: "call pelicanapi.pelicanusers.list() first",
      tag: "wrap it in <PelicanSuspense> please",
      version: "bump pelicanlib to 9.8.7",
    };
    const ids: Record<string, string> = {};
    for (const [kind, content] of Object.entries(written)) {
      const response = await api.fetch("/api/handoffs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: `Pelican ${kind} in pelican${kind}.config.ts`, content }),
      });
      expect(response.status).toBe(201);
      ids[kind] = ((await response.json()) as { handoff: { id: string } }).handoff.id;
    }
    const found: [string, keyof typeof written][] = [
      ["pelicansession", "path"],
      ["auth pelicansession", "path"],
      ["pelicansession.ts", "path"],
      ["lib/auth/pelicansession.ts", "path"],
      ["pelicansess*", "path"],
      ["pelicanops", "email"],
      ["pelicanexample", "email"],
      ["pelicanops@pelicanexample.com", "email"],
      ["pelicanhub", "url"],
      ["pelicanrepo", "url"],
      ["pelicanusers", "dotted"],
      ["pelicansuspense", "tag"],
      ["pelicanlib 9.8.7", "version"],
      ["pelicanpath", "path"],
    ];
    for (const [q, kind] of found) expect((await search(q)).map((item) => item.id), q).toEqual([ids[kind]]);

    const [path] = await search("pelicansession");
    expect(marked(path.match?.excerpt?.text)).toEqual(["pelicansession"]);
    expect(plain(path.match?.excerpt?.text)).toBe(written.path);
    const [titled] = await search("pelicantag");
    expect(marked(titled.match?.title)).toEqual(["pelicantag"]);
    expect(plain(titled.match?.title)).toBe("Pelican tag in pelicantag.config.ts");
  });
});

describe("numbers after a - or a + (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();
  const search = async (q: string) => {
    const response = await api.fetch(`/api/handoffs?q=${encodeURIComponent(q)}`);
    expect(response.status, q).toBe(200);
    return ((await response.json()) as { items: (HandoffSummary & { match?: SearchMatch })[] }).items;
  };

  it("finds them, as FTS5 does (PostgreSQL's parser read `-29` and `+5` as signed numbers), and marks them in the text as written", async () => {
    const content = "heronrelease on 2026-11-29 fixes HERON-4711 for utf-8 on x86-64, exit code -3 and +77 retries";
    const response = await api.fetch("/api/handoffs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Heron release 2026-11-30", content }),
    });
    expect(response.status).toBe(201);
    const { handoff } = (await response.json()) as { handoff: { id: string } };
    for (const q of ["heronrelease 29", "heronrelease 11-29", "heronrelease 2026-11-29", "heronrelease 4711", "heronrelease HERON-4711", "heronrelease 8", "heronrelease 64", "heronrelease 3", "heronrelease 77", "heron 30"]) {
      expect((await search(q)).map((item) => item.id), q).toEqual([handoff.id]);
    }
    const [item] = await search("heronrelease 4711");
    expect(marked(item.match?.excerpt?.text)).toEqual(["heronrelease", "4711"]);
    expect(plain(item.match?.excerpt?.text)).toBe(content);
  });
});

describe("a long phrase (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();

  it("is searched as its first MAX_SEARCH_WORDS words: each word of a phrase costs the index a lookup, and 90 of the commonest word took seconds", async () => {
    const content = `wagtailcount ${"a ".repeat(MAX_SEARCH_WORDS + 4)}end`;
    const created = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content }) });
    expect(created.status).toBe(201);
    const { handoff } = (await created.json()) as { handoff: { id: string } };
    const q = `"wagtailcount ${"a ".repeat(90).trim()}"`;
    expect(q.length).toBeLessThanOrEqual(200);
    const response = await api.fetch(`/api/handoffs?q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: HandoffSummary[] };
    expect(ids(page.items)).toEqual([handoff.id]);
  });
});

describe("passages of long entries", () => {
  const api = apiServerForFile();

  it("come back at once however often the entry repeats the word (FTS5's snippet() took a second for each, holding the server)", async () => {
    const content = "kea ".repeat(16_000).trim();
    const created: string[] = [];
    for (let index = 0; index < 8; index++) {
      const response = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content }) });
      expect(response.status).toBe(201);
      created.push(((await response.json()) as { handoff: { id: string } }).handoff.id);
    }
    const started = performance.now();
    const response = await api.fetch("/api/handoffs?q=kea");
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: HandoffSummary[] };
    expect(ids(page.items).sort()).toEqual(created.sort());
    // Eight passages took 8 s on SQLite (a minute and a half for a page of a hundred).
    expect(elapsed).toBeLessThan(2_000);
    const text = page.items[0].match?.excerpt?.text;
    expect(marked(text)).toEqual(Array(EXCERPT_TOKENS).fill("kea"));
    expect(plain(text)).toBe(`${"kea ".repeat(EXCERPT_TOKENS).trim()}…`);
  });

  it.skipIf(!onSqlite)("are the ones FTS5's snippet() would choose", async () => {
    const vocabulary = ["the", "plan", "kiwi", "rotates", "tokens", "kiwi.", "of", "migration:", "Staging", "fails", "and", "kiwis", "rollback"];
    const text = fc
      .array(fc.tuple(fc.constantFrom(...vocabulary), fc.constantFrom(" ", " ", ", ", ". ", ": ", "\n", "-")), { minLength: 1, maxLength: 90 })
      .map((words) => words.map(([word, gap]) => word + gap).join(""));
    const queries = fc.constantFrom('"kiwi"', '"kiwi" "staging"', '"rotates tokens"', '"the"', '"kiwi" "fails" "rollback"');
    let compared = 0;
    const check = async (body: string, query: string) => {
      const row = await write(async (tx) => {
        await tx.run("DELETE FROM temp.snippet_check");
        await tx.run("INSERT INTO temp.snippet_check (rowid, body) VALUES (1, ?)", [body]);
        return tx.get<{ chosen: string; marked: string }>(
          "SELECT snippet(snippet_check, 0, ?, ?, '…', ?) AS chosen, highlight(snippet_check, 0, ?, ?) AS marked FROM temp.snippet_check WHERE snippet_check MATCH ?",
          [MATCH_START, MATCH_END, EXCERPT_TOKENS, MATCH_START, MATCH_END, query],
        );
      });
      if (!row) return;
      compared++;
      expect(passageOf(row.marked)).toBe(row.chosen);
    };
    await write((tx) => tx.run("CREATE VIRTUAL TABLE temp.snippet_check USING fts5(body, tokenize = 'porter unicode61 remove_diacritics 2')"));
    try {
      // A sentence that starts near the end wins, and its window runs past the end.
      await check(`${"the ".repeat(40)}end. plan kiwi`, '"kiwi"');
      await fc.assert(fc.asyncProperty(text, queries, check), { numRuns: 400 });
      expect(compared).toBeGreaterThan(50);
    } finally {
      await write((tx) => tx.run("DROP TABLE temp.snippet_check"));
    }
  });
});

describe("a passage that ends on a number (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();

  it("shows it, as FTS5 does (PostgreSQL's ts_headline never ends a passage on a number: 'fixed in PR 42' came back as 'fixed in PR…')", async () => {
    const contents = ["sandpiper fixed in PR 42", "sandpiper deployed at 14:30", "sandpiper bumped to 2.0.1", "sandpiper says the answer is 42."];
    for (const content of contents) {
      const response = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content }) });
      expect(response.status).toBe(201);
    }
    const response = await api.fetch("/api/handoffs?q=sandpiper");
    expect(response.status).toBe(200);
    const { items } = (await response.json()) as { items: HandoffSummary[] };
    expect(items.map((item) => plain(item.match?.excerpt?.text)).sort()).toEqual([...contents].sort());
  });
});

describe("a phrase's marks (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();

  it("mark the phrase where it stands, as FTS5 does, not each of its words wherever it stands (PostgreSQL's ts_headline marked every 'the')", async () => {
    const content = "the plan: the sandgrouse-migration failed on the staging database, so the sandgrouse waits";
    const response = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "t", content }) });
    expect(response.status).toBe(201);
    const search = async (q: string) => {
      const answer = await api.fetch(`/api/handoffs?q=${encodeURIComponent(q)}`);
      expect(answer.status, q).toBe(200);
      const [item] = ((await answer.json()) as { items: HandoffSummary[] }).items;
      return { title: marked(item.match?.title), excerpt: marked(item.match?.excerpt?.text) };
    };
    expect(await search('"the sandgrouse migration failed"')).toEqual({ title: [], excerpt: ["the sandgrouse-migration failed"] });
    // A word that is also a term of its own stays marked wherever it stands.
    expect(await search('"sandgrouse migration" the')).toEqual({ title: [], excerpt: ["the", "the", "sandgrouse-migration", "the", "the"] });
  });
});

describe("a title when only an entry matched (GET /api/handoffs?q=)", () => {
  const api = apiServerForFile();

  it("has no marks, as on FTS5 (PostgreSQL's ts_headline marked any word of the query in it)", async () => {
    const response = await api.fetch("/api/handoffs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Ptarmigan auth", content: "the ptarmigan rollout starts monday" }),
    });
    expect(response.status).toBe(201);
    const answer = await api.fetch(`/api/handoffs?q=${encodeURIComponent("ptarmigan rollout")}`);
    const [item] = ((await answer.json()) as { items: HandoffSummary[] }).items;
    expect(item.match?.title).toEqual([{ text: "Ptarmigan auth", match: false }]);
    expect(marked(item.match?.excerpt?.text)).toEqual(["ptarmigan", "rollout"]);
    // Where the title matches, it is marked.
    const titled = await api.fetch(`/api/handoffs?q=${encodeURIComponent("ptarmigan auth")}`);
    const [byTitle] = ((await titled.json()) as { items: HandoffSummary[] }).items;
    expect(marked(byTitle.match?.title)).toEqual(["Ptarmigan", "auth"]);
  });
});
