/**
 * Speed part `pages` (3): GET / at 10,000 handoffs / 1,000,000 entries and the page of a
 * 10,000-entry thread, full response on loopback, against the same pages on the small database
 * before the fill (bench/fixtures.ts).
 */
import http from "node:http";
import { fillHandoffs, fillThread } from "../fixtures";
import { msOf, type Figure } from "../report";
import { median } from "../support";
import { log, THREAD_SIZE } from "./common";

const BIG = { handoffs: 10_000, entries: 1_000_000, thread: 10_000 };
const PAGE_RUNS = 20;

/** Full response time of a GET that must answer 200: a refused or failed request never reads as a fast one. */
function page(agent: http.Agent, url: string): Promise<number> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 200) resolve(performance.now() - start);
          else reject(new Error(`GET ${url} answered ${response.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`));
        });
      })
      .on("error", reject);
  });
}

/** Median of PAGE_RUNS, on a keep-alive connection of its own (after five unmeasured requests). */
async function pageTime(url: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let warm = 0; warm < 5; warm++) await page(agent, url);
    const samples: number[] = [];
    for (let run = 0; run < PAGE_RUNS; run++) samples.push(await page(agent, url));
    return median(samples);
  } finally {
    agent.destroy();
  }
}

/** `smallThread`: a thread of THREAD_SIZE entries. */
export async function pagesAtScale(baseUrl: string, smallThread: string): Promise<Figure[]> {
  log(`\n3. pages, full response on loopback (median of ${PAGE_RUNS}):`);
  const smallHome = await pageTime(`${baseUrl}/`);
  const smallPage = await pageTime(`${baseUrl}/handoffs/${smallThread}`);
  const fillStart = performance.now();
  fillHandoffs(BIG.handoffs, BIG.entries);
  const bigThread = "hof_benchspeedthread00000";
  fillThread(bigThread, BIG.thread);
  log(`  (filled ${BIG.handoffs.toLocaleString("en")} handoffs / ${BIG.entries.toLocaleString("en")} entries + a ${BIG.thread.toLocaleString("en")}-entry thread in ${msOf(performance.now() - fillStart)})`);
  const bigHome = await pageTime(`${baseUrl}/`);
  const bigPage = await pageTime(`${baseUrl}/handoffs/${bigThread}`);
  log(`  GET /                 ${msOf(bigHome)} at 10,000 handoffs / 1,000,000 entries · ${msOf(smallHome)} on the small database`);
  log(`  GET /handoffs/<id>    ${msOf(bigPage)} for 10,000 entries · ${msOf(smallPage)} for ${THREAD_SIZE}`);
  return [
    { name: "GET / at 10k handoffs / 1M entries", value: bigHome, unit: "ms", reference: { value: smallHome, label: "small db" } },
    { name: "GET /handoffs/<id>, 10,000 entries", value: bigPage, unit: "ms", reference: { value: smallPage, label: `${THREAD_SIZE} entries` } },
  ];
}
