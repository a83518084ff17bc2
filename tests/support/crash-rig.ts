/**
 * Crash safety under real processes (issue 8, point 7), shared by tests/crash-safety.test.ts and
 * `npm run bench crash`. Writer processes (stdio MCP servers, and MCP HTTP doors each in a process
 * of its own) append to shared threads while a control server closes some of them; writers are
 * SIGKILLed mid-call and restarted; then the database is checked against what every call was told.
 *
 * The driver (this process) sends every request and records when it was sent and what came back,
 * on one monotonic clock, so "sent after the close was acknowledged" is a fact, not a guess.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { databaseFile } from "../../lib/config";
import { connectHttpClient, connectStdioClient } from "./mcp-clients";

const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const HTTP_DOOR_SCRIPT = path.join(projectRoot, "tests", "support", "serve-mcp-http.ts");
/** Share of writer calls that are mark_handoff_read instead of appends, so cursors move both ways. */
const READ_SHARE = 0.05;
/** The refusal add_to_handoff gives on a completed thread (lib/handoffs/add-entry.ts). */
const COMPLETED_REFUSAL = /is completed; entries can no longer be added/;
const MAX_PROBLEMS_SHOWN = 20;
/** How much of a writer's stderr is kept, to explain a failed call. */
const STDERR_KEPT = 8_000;

export type CrashRunOptions = {
  stdioWriters: number;
  httpWriters: number;
  /** Threads open at any time: each close is followed by a new thread. */
  openThreads: number;
  /** SIGKILLs spread over the run, alternating stdio and HTTP writers when there are both. */
  kills: number;
  /** close_handoff calls spread over the run. */
  closes: number;
  /**
   * The run ends once this many appends were acknowledged and this much wall time has passed
   * (either may be left out); kills and closes happen at fixed points of that progress.
   */
  until: { acks?: number; ms?: number };
  /** Gives up after this long (the report says `timedOut`). */
  maxMs: number;
  seed?: number;
  log?: (line: string) => void;
};

export type CrashReport = {
  seed: number;
  writers: number;
  durationMs: number;
  timedOut: boolean;
  /** add_to_handoff calls that returned success with a seq. */
  acks: number;
  acksPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** The three slowest acknowledged appends (`#0` is a writer's first call after a start). */
  slowest: { token: string; ms: number }[];
  /** Appends refused because their thread was completed. */
  refusedAsCompleted: number;
  /** Appends whose writer died before answering: stored or not, either is correct (never twice). */
  inDoubt: number;
  inDoubtStored: number;
  kills: number;
  restarts: number;
  closes: number;
  marksRead: number;
  /** Acknowledged entries of open threads missing from the database. */
  lost: number;
  /** Acknowledged entries stored under another seq or thread than the one acknowledged. */
  misplaced: number;
  /** Contents stored more than once. */
  duplicated: number;
  /** Appends acknowledged although sent after their thread's close was acknowledged. */
  acceptedAfterClose: number;
  /** Appends sent after the close's acknowledgement that were not refused as completed. */
  notRefusedAfterClose: number;
  refusedButStored: number;
  completedWithEntries: number;
  closedButActive: number;
  unknownEntries: number;
  cursorsPastMax: number;
  integrity: string;
  /** Calls that failed for another reason than a kill or a completed thread. */
  unexpectedErrors: number;
  /** The first problems found, each in one line. */
  problems: string[];
};

/** What the driver saw: every call's outcome and the run's counters. */
export type CrashRun = Pick<CrashReport, "seed" | "writers" | "durationMs" | "timedOut" | "acks" | "kills" | "restarts" | "closes" | "marksRead" | "unexpectedErrors" | "problems"> & {
  threads: Thread[];
  attempts: Attempt[];
};

type Outcome = "pending" | "acked" | "refused" | "in-doubt";

export type Attempt = {
  token: string;
  thread: Thread;
  writer: string;
  sentAt: number;
  doneAt: number;
  outcome: Outcome;
  seq?: number;
  message?: string;
};

export type Thread = { id: string; closeSentAt?: number; closeAckAt?: number };

type Writer = {
  name: string;
  kind: "stdio" | "http";
  generation: number;
  client?: Client;
  pid?: number;
  /** The HTTP door's process (stdio servers belong to their transport). */
  door?: ChildProcess;
  stderr?: () => string;
  busy: boolean;
  killed: boolean;
};

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** A small seeded generator (mulberry32), so a run's choices can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();
const textOf = (result: ToolResult) => (result.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join(" ");
const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0];

/** The last `… failed:` report in a server's stderr, on one line. */
function lastFailure(stderr: string): string {
  const start = stderr.lastIndexOf(" failed: ");
  return start === -1 ? "nothing logged" : stderr.slice(start + 1).replace(/\s+/g, " ").slice(0, 400);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Starts `tests/support/serve-mcp-http.ts` (with `env` added to this process's) in its own process group and waits for its origin. */
export async function startHttpDoor(env: Record<string, string> = {}): Promise<{ door: ChildProcess; origin: string; stderr: () => string }> {
  const door = spawn(process.execPath, ["--import", "tsx", HTTP_DOOR_SCRIPT], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  door.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT)));
  const lines = readline.createInterface({ input: door.stdout! });
  try {
    const origin = await new Promise<string>((resolve, reject) => {
      lines.on("line", (line) => {
        if (line.startsWith("listening ")) resolve(line.slice("listening ".length));
      });
      door.once("exit", (code, signal) => reject(new Error(`the HTTP door exited (${signal ?? code}) before listening: ${stderr.trim()}`)));
    });
    return { door, origin, stderr: () => stderr };
  } finally {
    lines.close();
  }
}

/** Ends an HTTP door's whole process group with `signal` and waits for it to be gone. */
export async function stopHttpDoor(door: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (door.exitCode !== null || door.signalCode !== null) return;
  const exited = new Promise((resolve) => door.once("exit", resolve));
  try {
    process.kill(-door.pid!, signal);
  } catch {
    // Already gone between the check and the signal.
  }
  await exited;
}

async function startWriter(writer: Writer): Promise<void> {
  if (writer.kind === "stdio") {
    const { client, pid, stderr } = await connectStdioClient();
    Object.assign(writer, { client, pid, stderr });
  } else {
    const { door, origin, stderr } = await startHttpDoor();
    writer.door = door;
    writer.stderr = stderr;
    writer.pid = door.pid;
    try {
      writer.client = await connectHttpClient(`${origin}/api/mcp`);
    } catch (error) {
      await stopHttpDoor(door, "SIGKILL");
      throw error;
    }
  }
  writer.killed = false;
}

/** Lets go of a writer's client and process (after a kill, or at the end of the run). */
async function retireWriter(writer: Writer): Promise<void> {
  const { client, door } = writer;
  writer.client = undefined;
  writer.door = undefined;
  writer.pid = undefined;
  await client?.close().catch(() => undefined);
  if (door) await stopHttpDoor(door, "SIGTERM");
}

/**
 * Runs one crash scenario against the database of the current data folder (DATABASE_URL /
 * BATON_DATA_DIR, migrated beforehand) and returns what every call was told; checkCrashRun then
 * holds the database to it.
 */
export async function runCrashScenario(options: CrashRunOptions): Promise<CrashRun> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rng = random(seed);
  const log = options.log ?? (() => undefined);
  const pick = <T>(items: T[]): T => items[Math.floor(rng() * items.length)];

  const attempts: Attempt[] = [];
  const threads: Thread[] = [];
  const problems: string[] = [];
  const problem = (line: string) => problems.push(line);
  let unexpectedErrors = 0;
  const unexpected = (line: string) => {
    unexpectedErrors++;
    problem(line);
  };
  let acks = 0;
  let kills = 0;
  let restarts = 0;
  let closes = 0;
  let marksRead = 0;
  let stopping = false;

  // Writers pick from the open threads and the most recently closed one (which keeps receiving
  // appends, all of which must be refused once its close is acknowledged).
  let pool: Thread[] = [];
  let lastClosed: Thread | undefined;

  const control = await connectStdioClient();
  const writers: Writer[] = [
    ...Array.from({ length: options.stdioWriters }, (_, index) => ({ name: `stdio-${index}`, kind: "stdio" as const })),
    ...Array.from({ length: options.httpWriters }, (_, index) => ({ name: `http-${index}`, kind: "http" as const })),
  ].map((writer) => ({ ...writer, generation: 0, busy: false, killed: false }));
  let loops: Promise<void>[] = [];
  let timedOut = false;
  let durationMs = 0;
  // Whatever happens, no writer process outlives the run.
  try {
    const createThread = async (): Promise<Thread> => {
      const token = `crash seed ${threads.length}`;
      const sentAt = now();
      const result = await control.client.callTool({ name: "create_handoff", arguments: { title: `Crash ${threads.length}`, content: token } });
      if (result.isError) throw new Error(`create_handoff failed: ${textOf(result)}`);
      const created = result.structuredContent as { handoff: { id: string }; entries: { seq: number }[] };
      const thread: Thread = { id: created.handoff.id };
      threads.push(thread);
      attempts.push({ token, thread, writer: "control", sentAt, doneAt: now(), outcome: "acked", seq: created.entries[0].seq });
      return thread;
    };
    for (let index = 0; index < options.openThreads; index++) pool.push(await createThread());

    const started = await Promise.allSettled(writers.map(startWriter));
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw new Error(`a writer did not start: ${oneLine(failed.reason)}`);
    log(`${writers.length} writers started (seed ${seed})`);

    const startedAt = now();
    const elapsed = () => now() - startedAt;
    const { acks: targetAcks, ms: targetMs } = options.until;
    if (!targetAcks && !targetMs) throw new Error("until needs acks, ms or both");
    const progress = () => Math.min(targetAcks ? acks / targetAcks : Infinity, targetMs ? elapsed() / targetMs : Infinity);

    async function writerLoop(writer: Writer): Promise<void> {
      let counter = 0;
      while (!stopping) {
        if (!writer.client) {
          try {
            writer.generation++;
            await startWriter(writer);
            restarts++;
          } catch (error) {
            unexpected(`${writer.name} could not restart: ${oneLine(error)}`);
            await sleep(500);
          }
          continue;
        }
        const client = writer.client;
        const thread = pick(pool);
        const side = rng() < 0.5 ? "chat" : "code";
        writer.busy = true;
        if (rng() < READ_SHARE) {
          try {
            const result = await client.callTool({ name: "mark_handoff_read", arguments: { id: thread.id, as_client: side } });
            if (result.isError) unexpected(`${writer.name} mark_handoff_read ${thread.id}: ${textOf(result)}`);
            else marksRead++;
          } catch (error) {
            if (!writer.killed) unexpected(`${writer.name} mark_handoff_read failed without a kill: ${oneLine(error)}`);
            await retireWriter(writer);
          }
          writer.busy = false;
          continue;
        }
        const attempt: Attempt = {
          token: `crash ${writer.name} g${writer.generation} #${counter++}`,
          thread,
          writer: writer.name,
          sentAt: now(),
          doneAt: 0,
          outcome: "pending",
        };
        attempts.push(attempt);
        try {
          const result = await client.callTool({
            name: "add_to_handoff",
            arguments: { id: thread.id, type: "progress", content: attempt.token, as_client: side },
          });
          attempt.doneAt = now();
          if (result.isError) {
            attempt.outcome = "refused";
            attempt.message = textOf(result);
            // A failure that is not the caller's: keep the server's own account of it.
            if (!COMPLETED_REFUSAL.test(attempt.message)) attempt.message += ` [server log: ${lastFailure(writer.stderr?.() ?? "")}]`;
          } else {
            const { entry } = result.structuredContent as { entry: { seq: number; content: string } };
            attempt.outcome = "acked";
            attempt.seq = entry.seq;
            acks++;
            if (entry.content !== attempt.token) problem(`${attempt.token}: acknowledged with content ${JSON.stringify(entry.content)}`);
          }
        } catch (error) {
          attempt.doneAt = now();
          attempt.outcome = "in-doubt";
          attempt.message = oneLine(error);
          if (!writer.killed) unexpected(`${writer.name} add failed without a kill: ${attempt.message}`);
          await retireWriter(writer);
        }
        writer.busy = false;
      }
    }

    /** SIGKILLs a writer of `kind` that is waiting on a call; false when none is right now. */
    function killOne(kind: Writer["kind"]): boolean {
      const candidates = writers.filter((writer) => writer.kind === kind && writer.client && writer.busy && !writer.killed);
      if (candidates.length === 0) return false;
      const victim = pick(candidates);
      victim.killed = true;
      // An HTTP door leads its own process group; a stdio server is the transport's direct child.
      process.kill(victim.kind === "http" ? -victim.pid! : victim.pid!, "SIGKILL");
      kills++;
      log(`SIGKILL ${victim.name} (pid ${victim.pid}) at ${acks} acks`);
      return true;
    }

    async function closeOne(): Promise<void> {
      const thread = pick(pool.filter((candidate) => candidate !== lastClosed));
      thread.closeSentAt = now();
      const result = await control.client.callTool({ name: "close_handoff", arguments: { id: thread.id } });
      if (result.isError) {
        unexpected(`close_handoff ${thread.id}: ${textOf(result)}`);
        return;
      }
      thread.closeAckAt = now();
      closes++;
      const replacement = await createThread();
      pool = [...pool.filter((candidate) => candidate !== lastClosed), replacement];
      lastClosed = thread;
      log(`closed ${thread.id} at ${acks} acks`);
    }

    // Kills and closes at fixed points of the run (by progress), interleaved, none at the very end
    // so the last closed thread still sees appends after its close.
    const kindsToKill: Writer["kind"][] =
      options.httpWriters > 0 && options.stdioWriters > 0 ? ["stdio", "http"] : [options.stdioWriters > 0 ? "stdio" : "http"];
    const events = [
      ...Array.from({ length: options.kills }, (_, index) => ({ at: 0.1 + (0.75 * (index + 0.5)) / options.kills, kill: kindsToKill[index % kindsToKill.length] })),
      ...Array.from({ length: options.closes }, (_, index) => ({ at: 0.05 + (0.75 * (index + 0.25)) / options.closes, kill: undefined })),
    ].sort((a, b) => a.at - b.at);

    loops = writers.map(writerLoop);
    while (events.length > 0 || progress() < 1) {
      if (elapsed() > options.maxMs) {
        timedOut = true;
        problem(`gave up after ${options.maxMs} ms at ${acks} acks with ${events.length} kills/closes still to do`);
        break;
      }
      const next = events[0];
      if (next && progress() >= next.at) {
        if (next.kill) {
          if (!killOne(next.kill)) {
            await sleep(5);
            continue;
          }
        } else {
          await closeOne();
        }
        events.shift();
        continue;
      }
      await sleep(10);
    }
    durationMs = elapsed();
  } finally {
    stopping = true;
    await Promise.all(loops);
    await Promise.all(writers.map(retireWriter));
    await control.client.close();
  }
  log(`run over: ${acks} acks in ${(durationMs / 1000).toFixed(1)} s`);

  return {
    seed,
    writers: writers.length,
    durationMs,
    timedOut,
    acks,
    kills,
    restarts,
    closes,
    marksRead,
    unexpectedErrors,
    problems,
    threads,
    attempts,
  };
}

/**
 * Checks the database of the current data folder (once every writer is gone) against what every
 * call of `run` was told, and sums the run up.
 */
export function checkCrashRun(run: CrashRun): CrashReport {
  const problems = [...run.problems];
  let unexpectedErrors = run.unexpectedErrors;
  const unexpected = (line: string) => {
    unexpectedErrors++;
    problems.push(line);
  };
  const database = new Database(databaseFile());
  let verdict: ReturnType<typeof checkDatabase>;
  try {
    verdict = checkDatabase(database, run.threads, run.attempts, (line) => problems.push(line), unexpected);
  } finally {
    database.close();
  }

  const timed = run.attempts
    .filter((attempt) => attempt.outcome === "acked" && attempt.writer !== "control")
    .map((attempt) => ({ token: attempt.token, ms: attempt.doneAt - attempt.sentAt }))
    .sort((a, b) => a.ms - b.ms);
  const latencies = timed.map((call) => call.ms);
  return {
    seed: run.seed,
    writers: run.writers,
    durationMs: run.durationMs,
    timedOut: run.timedOut,
    acks: run.acks,
    acksPerSecond: run.acks / (run.durationMs / 1000),
    latencyMs: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies.at(-1) ?? 0 },
    slowest: timed.slice(-3).reverse(),
    kills: run.kills,
    restarts: run.restarts,
    closes: run.closes,
    marksRead: run.marksRead,
    ...verdict,
    unexpectedErrors,
    problems: problems.slice(0, MAX_PROBLEMS_SHOWN),
  };
}

type EntryRow = { seq: number; handoffId: string; content: string };
type HandoffRow = { id: string; status: string; chat: number; code: number };

/** Compares the stored rows with every call's outcome; each violation is counted and described. */
function checkDatabase(
  database: Database.Database,
  threads: Thread[],
  attempts: Attempt[],
  problem: (line: string) => void,
  unexpected: (line: string) => void,
) {
  const integrity = (database.pragma("integrity_check") as { integrity_check: string }[]).map((row) => row.integrity_check).join("; ");
  const ids = new Set(threads.map((thread) => thread.id));
  const entries = (database.prepare("SELECT seq, handoff_id AS handoffId, content FROM handoff_entries ORDER BY seq").all() as EntryRow[]).filter((row) =>
    ids.has(row.handoffId),
  );
  const handoffs = new Map(
    (database.prepare("SELECT id, status, chat_last_seen AS chat, code_last_seen AS code FROM handoffs").all() as HandoffRow[])
      .filter((row) => ids.has(row.id))
      .map((row) => [row.id, row]),
  );
  const highestSeq = (database.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'handoff_entries'").get() as { seq: number } | undefined)?.seq ?? 0;

  const rowsByContent = new Map<string, EntryRow[]>();
  for (const row of entries) rowsByContent.set(row.content, [...(rowsByContent.get(row.content) ?? []), row]);

  let lost = 0;
  let misplaced = 0;
  let duplicated = 0;
  let acceptedAfterClose = 0;
  let notRefusedAfterClose = 0;
  let refusedButStored = 0;
  let refusedAsCompleted = 0;
  let inDoubt = 0;
  let inDoubtStored = 0;
  let closedButActive = 0;
  let cursorsPastMax = 0;

  for (const attempt of attempts) {
    const rows = rowsByContent.get(attempt.token) ?? [];
    const open = handoffs.get(attempt.thread.id)?.status === "active";
    const closeAckAt = attempt.thread.closeAckAt;
    const sentAfterClose = closeAckAt !== undefined && attempt.sentAt > closeAckAt;
    if (rows.length > 1) {
      duplicated++;
      problem(`${attempt.token}: stored ${rows.length} times (seqs ${rows.map((row) => row.seq).join(", ")})`);
    }
    if (attempt.outcome === "acked") {
      if (sentAfterClose) {
        acceptedAfterClose++;
        problem(`${attempt.token}: acknowledged (seq ${attempt.seq}) though sent ${(attempt.sentAt - closeAckAt).toFixed(1)} ms after ${attempt.thread.id}'s close was acknowledged`);
      }
      if (open && rows.length === 0) {
        lost++;
        problem(`${attempt.token}: acknowledged with seq ${attempt.seq} on open ${attempt.thread.id}, not in the database`);
      } else if (open && (rows[0].seq !== attempt.seq || rows[0].handoffId !== attempt.thread.id)) {
        misplaced++;
        problem(`${attempt.token}: acknowledged as seq ${attempt.seq} on ${attempt.thread.id}, stored as seq ${rows[0].seq} on ${rows[0].handoffId}`);
      }
    } else if (attempt.outcome === "refused") {
      if (COMPLETED_REFUSAL.test(attempt.message ?? "")) refusedAsCompleted++;
      if (rows.length > 0) {
        refusedButStored++;
        problem(`${attempt.token}: refused (${attempt.message}) yet stored as seq ${rows[0].seq}`);
      }
      if (attempt.thread.closeSentAt === undefined || !COMPLETED_REFUSAL.test(attempt.message ?? "")) {
        unexpected(`${attempt.token}: refused unexpectedly: ${attempt.message}`);
      }
    } else if (attempt.outcome === "in-doubt") {
      inDoubt++;
      if (rows.length > 0) inDoubtStored++;
    }
    // An append sent after the close's acknowledgement has one right answer: refused as completed.
    // (One whose writer was killed before answering is in doubt, and must then not be stored: the
    // completed thread's entries are checked below.)
    if (sentAfterClose && attempt.outcome !== "in-doubt" && !(attempt.outcome === "refused" && COMPLETED_REFUSAL.test(attempt.message ?? ""))) {
      notRefusedAfterClose++;
    }
  }

  for (const thread of threads) {
    const row = handoffs.get(thread.id);
    if (!row) {
      problem(`${thread.id}: missing from the database`);
      continue;
    }
    if (thread.closeAckAt !== undefined && row.status !== "completed") {
      closedButActive++;
      problem(`${thread.id}: close acknowledged, status is ${row.status}`);
    }
    // An open thread's cursors stay within its own entries; a completed one's within every seq given.
    const limit =
      row.status === "active" ? Math.max(0, ...entries.filter((entry) => entry.handoffId === thread.id).map((entry) => entry.seq)) : highestSeq;
    for (const side of ["chat", "code"] as const) {
      if (row[side] > limit) {
        cursorsPastMax++;
        problem(`${thread.id}: ${side} cursor ${row[side]} is past the highest seq ${limit}`);
      }
    }
  }

  const completedWithEntries = entries.filter((entry) => handoffs.get(entry.handoffId)?.status !== "active").length;
  if (completedWithEntries > 0) problem(`${completedWithEntries} entries stored on completed threads`);
  const tokens = new Set(attempts.map((attempt) => attempt.token));
  const unknown = entries.filter((entry) => !tokens.has(entry.content));
  if (unknown.length > 0) problem(`${unknown.length} stored entries no call sent, e.g. ${JSON.stringify(unknown[0].content)}`);
  if (integrity !== "ok") problem(`integrity_check: ${integrity}`);

  return {
    refusedAsCompleted,
    inDoubt,
    inDoubtStored,
    lost,
    misplaced,
    duplicated,
    acceptedAfterClose,
    notRefusedAfterClose,
    refusedButStored,
    completedWithEntries,
    closedButActive,
    unknownEntries: unknown.length,
    cursorsPastMax,
    integrity,
  };
}

/** The names of the checks a report fails (with their counts): empty when the run was safe. */
export function crashViolations(report: CrashReport): string[] {
  const counts = {
    lost: report.lost,
    misplaced: report.misplaced,
    duplicated: report.duplicated,
    acceptedAfterClose: report.acceptedAfterClose,
    notRefusedAfterClose: report.notRefusedAfterClose,
    refusedButStored: report.refusedButStored,
    completedWithEntries: report.completedWithEntries,
    closedButActive: report.closedButActive,
    unknownEntries: report.unknownEntries,
    cursorsPastMax: report.cursorsPastMax,
    unexpectedErrors: report.unexpectedErrors,
  };
  return [
    ...Object.entries(counts)
      .filter(([, count]) => count !== 0)
      .map(([name, count]) => `${name}: ${count}`),
    ...(report.integrity === "ok" ? [] : [`integrity: ${report.integrity}`]),
    ...(report.timedOut ? ["timedOut"] : []),
  ];
}

/** The report as lines for a person (the bench prints these; a failing test shows them). */
export function describeCrashReport(report: CrashReport): string[] {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    `writers ${report.writers}, ${(report.durationMs / 1000).toFixed(1)} s, seed ${report.seed}${report.timedOut ? " (TIMED OUT)" : ""}`,
    `acknowledged appends ${report.acks} (${report.acksPerSecond.toFixed(0)} acks/s); refused as completed ${report.refusedAsCompleted}; in doubt (writer killed) ${report.inDoubt}, of which stored ${report.inDoubtStored}`,
    `add latency p50 ${ms(report.latencyMs.p50)}, p99 ${ms(report.latencyMs.p99)}, max ${ms(report.latencyMs.max)}; slowest: ${report.slowest.map((call) => `${call.token} ${ms(call.ms)}`).join(", ")}`,
    `SIGKILLs ${report.kills}, restarts ${report.restarts}, closes ${report.closes}, mark_handoff_read ${report.marksRead}`,
    `lost ${report.lost}, misplaced ${report.misplaced}, duplicated ${report.duplicated}, accepted after close ${report.acceptedAfterClose}, not refused after close ${report.notRefusedAfterClose}`,
    `refused yet stored ${report.refusedButStored}, entries on completed threads ${report.completedWithEntries}, closed yet active ${report.closedButActive}, unknown entries ${report.unknownEntries}, cursors past the highest seq ${report.cursorsPastMax}`,
    `integrity_check ${report.integrity}; unexpected errors ${report.unexpectedErrors}`,
    ...report.problems.map((line) => `  problem: ${line}`),
  ];
}
