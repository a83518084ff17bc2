/**
 * A thread of 10,000 entries (issue 8, acceptance 3): `get_handoff`'s default answer and the
 * thread page's latest page (the domain calls behind them), then GET /handoffs/<id> and an idle
 * refresh of a production server, against the same on a 60-entry thread, in one run.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { END_OF_THREAD, getHandoff, THREAD_PAGE_BUDGET_BYTES, THREAD_PAGE_SIZE } from "../lib/handoffs";
import { closeDatabase } from "../lib/database";
import { ensureMigrated } from "../lib/database/migrate";
import { startBatonServer } from "../lib/server";
import { fillThread } from "./fixtures";
import { makeTemporaryDataDir, median, ms, projectRoot, timeIt } from "./support";

/** The body of a GET that must succeed: a refused or failed request never reads as a fast one. */
async function text(url: string): Promise<string> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  return response.text();
}

async function measure(label: string, id: string, last: number, baseUrl: string) {
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  const answer = await getHandoff({ id, asClient: "chat" });
  const domain = median(await timeIt(30, () => getHandoff({ id, asClient: "chat" })));
  const latest = median(
    await timeIt(30, () => getHandoff({ id, asClient: "chat", beforeSeq: END_OF_THREAD, limit: THREAD_PAGE_SIZE, maxBytes: THREAD_PAGE_BUDGET_BYTES })),
  );
  const html = await text(`${baseUrl}/handoffs/${id}`);
  const page = median(await timeIt(15, () => text(`${baseUrl}/handoffs/${id}`)));
  const idleUrl = `${baseUrl}/api/handoffs/${id}?as=chat&after_seq=${last}`;
  const idleBody = await text(idleUrl);
  const idle = median(await timeIt(30, () => text(idleUrl)));
  console.log(
    `${label}: get_handoff default ${ms(domain)} (${bytes(answer)} B, ${answer.entries.length} entries) · latest page ${ms(latest)} · ` +
      `GET /handoffs/<id> ${ms(page)} (${Buffer.byteLength(html)} B of HTML) · idle refresh ${ms(idle)} (${Buffer.byteLength(idleBody)} B body)`,
  );
  return { domain, page };
}

export async function run() {
  makeTemporaryDataDir("thread");
  await ensureMigrated();
  const smallId = "hof_benchsmall00000000000";
  const largeId = "hof_benchlarge00000000000";
  const smallLast = fillThread(smallId, 60);
  const largeLast = fillThread(largeId, 10_000);
  // Served the way `npm start` serves it: Baton's own server, guard in front of Next.
  process.env.BATON_DIST_DIR = ".next-bench";
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  execFileSync(path.join(projectRoot, "node_modules", ".bin", "next"), ["build"], { cwd: projectRoot, env: process.env, stdio: "ignore" });
  const server = await startBatonServer({ dir: projectRoot, host: "127.0.0.1", port: 3902 });
  try {
    const small = await measure("60 entries    ", smallId, smallLast, server.url);
    const large = await measure("10,000 entries", largeId, largeLast, server.url);
    console.log(
      `ratio large/small: get_handoff ×${(large.domain / small.domain).toFixed(2)} · GET /handoffs/<id> ×${(large.page / small.page).toFixed(2)} (medians)`,
    );
  } finally {
    await server.close();
    await closeDatabase();
  }
}
