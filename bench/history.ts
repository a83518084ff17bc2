/**
 * The home page at scale: 10,000 handoffs and 200,000 entries (issue 2, acceptance 4).
 * Measures `findHandoffs` (the query behind the page) and GET / of a production server,
 * against the same page on a small database, in one run.
 */
import Database from "better-sqlite3";
import { databaseFile } from "../lib/config";
import { findHandoffs } from "../lib/handoffs";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { fillHandoffs } from "./fixtures";
import { median, ms, startProductionServer, timeIt, makeTemporaryDataDir } from "./support";

const HANDOFFS = 10_000;
const ENTRIES = 200_000;
async function measure(label: string, baseUrl: string, runs: number) {
  const query = median(await timeIt(runs, () => findHandoffs({})));
  const filtered = median(await timeIt(runs, () => findHandoffs({ status: "active", project: "infra", q: "work" })));
  const page = median(await timeIt(runs, async () => (await fetch(`${baseUrl}/`)).text()));
  const lastPage = median(await timeIt(runs, async () => (await fetch(`${baseUrl}/?page=200`)).text()));
  console.log(`${label}: findHandoffs ${ms(query)} · filtered ${ms(filtered)} · GET / ${ms(page)} · GET /?page=200 ${ms(lastPage)}`);
  return { query, page };
}

export async function run() {
  makeTemporaryDataDir("history");
  await ensureMigrated();
  fillHandoffs(12, 60);
  const server = await startProductionServer(3901);
  try {
    const small = await measure("12 handoffs / 60 entries       ", server.baseUrl, 30);
    const fillStart = performance.now();
    fillHandoffs(HANDOFFS - 12, ENTRIES - 60, { firstIndex: 12 });
    console.log(`(filled ${HANDOFFS.toLocaleString("en")} handoffs / ${ENTRIES.toLocaleString("en")} entries in ${ms(performance.now() - fillStart)})`);
    // The fill blocked this process for seconds, past the server's keep-alive timeout: let fetch's
    // pool see the connections the server closed meanwhile, or the first request reuses a dead one.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const large = await measure("10,000 handoffs / 200,000 entries", server.baseUrl, 30);
    console.log(`ratio large/small: findHandoffs ×${(large.query / small.query).toFixed(2)} · GET / ×${(large.page / small.page).toFixed(2)} (medians of 30)`);
    const sqlite = new Database(databaseFile(), { readonly: true });
    const plan = sqlite
      .prepare("EXPLAIN QUERY PLAN SELECT COUNT(*) FROM handoff_entries e WHERE e.handoff_id = ? AND e.seq > ?")
      .all("hof_x", 0)
      .map((row) => (row as { detail: string }).detail);
    console.log(`unread count plan: ${plan.join("; ")}`);
    sqlite.close();
  } finally {
    await server.stop();
    await closeDatabase();
  }
}
