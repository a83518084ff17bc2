import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";

/**
 * A page served from another port of this machine (a dev server at http://127.0.0.1:5173, any
 * local tool's page) is same-site to the desk: a site is scheme and host, the port is no part of
 * it, so Chromium sends `Sec-Fetch-Site: same-site`, and the guard refused only cross-site loads.
 * Such a page held the desk's live-update stream open and loaded its JSON. Refused now (403,
 * saying why); following a link from it is a navigation and still lands, and the desk itself
 * still streams.
 */
const base = process.env.BATON_E2E_BASE_URL!;

let server: http.Server;
let otherOrigin: string;

test.beforeAll(async () => {
  server = http.createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<!doctype html><title>Another port</title><a href="${base}/agents">Baton's agents</a>
<script>
  new EventSource(${JSON.stringify(`${base}/api/events`)});
  fetch(${JSON.stringify(`${base}/api/handoffs`)}).catch(() => {});
  fetch(${JSON.stringify(`${base}/api/attention`)}, { mode: "no-cors" }).catch(() => {});
</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  otherOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/**
 * What Chromium's network stack saw of each request to Baton: the Sec-Fetch-Site it sent and the
 * status it got. A refused or accepted load of another origin's page fails the page's CORS check
 * either way, and Chromium then reports no response to Playwright; DevTools' extra-info events
 * carry the status for exactly that case.
 */
type Seen = { url: string; site?: string; status?: number };

test("a page on another loopback port cannot open the event stream or load JSON; its link still opens the desk, which streams", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  const seen = new Map<string, Seen>();
  const entry = (requestId: string) => seen.get(requestId) ?? seen.set(requestId, { url: "" }).get(requestId)!;
  cdp.on("Network.requestWillBeSent", (event) => void (entry(event.requestId).url = event.request.url));
  cdp.on("Network.requestWillBeSentExtraInfo", (event) => void (entry(event.requestId).site = event.headers["Sec-Fetch-Site"] ?? event.headers["sec-fetch-site"]));
  cdp.on("Network.responseReceivedExtraInfo", (event) => void (entry(event.requestId).status = event.statusCode));
  const answered = (path: string) => [...seen.values()].find((each) => each.url.startsWith(`${base}${path}`) && each.status !== undefined);

  await page.goto(otherOrigin);
  for (const path of ["/api/events", "/api/handoffs", "/api/attention"]) {
    await expect.poll(() => answered(path)?.status, path).toBeDefined();
    expect(answered(path), path).toMatchObject({ site: "same-site", status: 403 });
  }
  const refusal = await page.request.get(`${base}/api/events`, { headers: { "sec-fetch-site": "same-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" } });
  expect(refusal.status()).toBe(403);
  expect(await refusal.text()).toContain("a page from another site or another port may link to Baton but not load from it (Sec-Fetch-Site: same-site");

  const [stream] = await Promise.all([
    page.waitForResponse((response) => response.url().startsWith(`${base}/api/events`)),
    page.getByRole("link", { name: "Baton's agents" }).click(),
  ]);
  await expect(page).toHaveURL(`${base}/agents`);
  expect(stream.status()).toBe(200);
});
