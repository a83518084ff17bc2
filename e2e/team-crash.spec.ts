import { expect, test } from "@playwright/test";
import pg from "pg";
import { connectStdioClient } from "../tests/support/mcp-clients";
import { startPostgresCluster, type PostgresCluster } from "../tests/support/postgres-cluster";
import { startAndWait, stopAndWait, type ExtraServer } from "./support/extra-server";
import { scratchDir } from "./support/scratch";

/**
 * Crash (issue 18): six stdio writers and a REST writer append to three threads on one
 * PostgreSQL while two writers and one of two instances die by SIGKILL and PostgreSQL itself
 * restarts (immediate stop: no clean shutdown). Every acknowledged entry is stored exactly once,
 * seqs rise per thread in each writer's order, a closed thread takes nothing, and the survivors
 * go on without a restart of Baton.
 */
const basePort = Number(process.env.BATON_E2E_PORT || 3100);
test.setTimeout(300_000);

/** `sentAt`: when the call left this process; `at`: when its acknowledgment arrived. */
type Ack = { writer: string; handoff: string; content: string; seq: number; sentAt: number; at: number };

let cluster: PostgresCluster;
const servers: ExtraServer[] = [];
test.afterAll(async () => {
  for (const server of servers) await stopAndWait(server);
  cluster?.destroy();
});

test("SIGKILLed writers and instance, a PostgreSQL restart: every acknowledged entry once, seqs rising, nothing after close, survivors carry on", async () => {
  // Durable: an acknowledged commit must survive the server's crash.
  cluster = await startPostgresCluster({ durable: true });
  const url = await cluster.createDatabase("crash");
  const dataDir = scratchDir("crash-");
  const env = { ...process.env, BATON_DATA_DIR: dataDir, DATABASE_URL: url };
  const [portA, portB] = [basePort + 66, basePort + 67];
  for (const port of [portA, portB]) {
    servers.push(
      await startAndWait({ dataDir, port, env: { DATABASE_URL: url } }, async () => (await fetch(`http://127.0.0.1:${port}/api/health`)).ok, `Baton on ${port}`),
    );
  }
  const rest = (port: number, route: string, body: unknown) =>
    fetch(`http://127.0.0.1:${port}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const threads: string[] = [];
  for (const title of ["Crash one", "Crash two", "Crash closing"]) {
    threads.push(((await (await rest(portA, "/api/handoffs", { title, content: `start of ${title}`, as_client: "chat" })).json()) as { handoff: { id: string } }).handoff.id);
  }

  const acks: Ack[] = [];
  let stopping = false;
  const started = performance.now();
  const since = () => performance.now() - started;

  /** A stdio `baton mcp` appending until told to stop or killed. */
  const stdioWriter = async (name: string) => {
    const { client, pid } = await connectStdioClient({ args: ["--as", "code"], env });
    const loop = (async () => {
      for (let n = 0; !stopping; n++) {
        const handoff = threads[n % threads.length];
        const content = `${name}-${n}`;
        try {
          const sentAt = since();
          const result = await client.callTool({ name: "add_to_handoff", arguments: { id: handoff, type: "progress", content } });
          if (!result.isError) acks.push({ writer: name, handoff, content, seq: (result.structuredContent as { entry: { seq: number } }).entry.seq, sentAt, at: since() });
          else await new Promise((resolve) => setTimeout(resolve, 50));
        } catch {
          return;
        }
      }
    })();
    return { pid, loop, close: () => client.close().catch(() => undefined) };
  };
  /** The REST writer: through A (B dies). */
  const restWriter = (async () => {
    for (let n = 0; !stopping; n++) {
      const handoff = threads[n % threads.length];
      const content = `rest-${n}`;
      const sentAt = since();
      const response = await rest(portA, `/api/handoffs/${handoff}/entries`, { type: "progress", content, as_client: "chat" }).catch(() => null);
      if (response?.status === 201) acks.push({ writer: "rest", handoff, content, seq: ((await response.json()) as { entry: { seq: number } }).entry.seq, sentAt, at: since() });
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();

  const writers = await Promise.all(["w0", "w1", "w2", "w3", "w4", "w5"].map(stdioWriter));
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  // Two writers and instance B die without warning.
  process.kill(writers[0].pid, "SIGKILL");
  process.kill(writers[1].pid, "SIGKILL");
  process.kill(-servers[1].pid!, "SIGKILL");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  // PostgreSQL crashes and comes back.
  cluster.stop("immediate");
  const restartedAt = since();
  await new Promise((resolve) => setTimeout(resolve, 500));
  cluster.start();
  // Two writers start again in place of the killed ones.
  writers.push(await stdioWriter("w6"), await stdioWriter("w7"));
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const closed = await rest(portA, `/api/handoffs/${threads[2]}/close`, {});
  expect(closed.status).toBe(200);
  const closedAt = since();
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  stopping = true;
  await Promise.all([restWriter, ...writers.map((writer) => writer.loop)]);
  await Promise.all(writers.map((writer) => writer.close()));

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ handoff_id: string; content: string; seq: number }>("SELECT handoff_id, content, seq FROM handoff_entries ORDER BY seq");
  await client.end();

  // Every acknowledged entry stored exactly once (on the open threads; close wiped the third).
  const stored = new Map<string, number>();
  for (const row of rows) stored.set(row.content, (stored.get(row.content) ?? 0) + 1);
  expect([...stored].filter(([, count]) => count !== 1)).toEqual([]);
  const open = acks.filter((ack) => ack.handoff !== threads[2]);
  expect(open.filter((ack) => stored.get(ack.content) !== 1)).toEqual([]);
  // Seqs strictly rise per thread, in each writer's order.
  for (const writer of new Set(acks.map((ack) => ack.writer))) {
    for (const handoff of threads.slice(0, 2)) {
      const seqs = acks.filter((ack) => ack.writer === writer && ack.handoff === handoff).map((ack) => ack.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
  }
  // The closed thread holds nothing and took nothing sent after its close. Sent, not acknowledged:
  // an append committed just before the close can be answered over its pipe after the close's
  // HTTP answer arrived (the close then wiped it), which is no append after the close.
  expect(rows.filter((row) => row.handoff_id === threads[2])).toEqual([]);
  expect(acks.filter((ack) => ack.handoff === threads[2] && ack.sentAt > closedAt)).toEqual([]);
  // The survivors (writers w2–w5, the REST writer through A) and the new writers carry on after the restart.
  for (const writer of ["w2", "w3", "w4", "w5", "w6", "w7", "rest"]) {
    expect(acks.filter((ack) => ack.writer === writer && ack.at > restartedAt).length, writer).toBeGreaterThan(0);
  }
  console.log(`crash: ${acks.length} acknowledged appends, ${rows.length} stored on the open threads, restart at ${restartedAt.toFixed(0)} ms`);
  expect((await fetch(`http://127.0.0.1:${portA}/api/health`)).status).toBe(200);
});
