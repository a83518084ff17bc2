import "server-only";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { projectRoot } from "../paths.mjs";

/**
 * WAL checkpoints off the request path. SQLite's own (wal_autocheckpoint, every 1,000 WAL pages)
 * runs inside the COMMIT of whichever write crosses the line: it copies the pages to the database
 * file and syncs both files, and that write waits: on the bench machine one stdio append in about
 * 80, for about 10 ms. Here a worker thread with its own connection runs them (PASSIVE: it never
 * waits for, nor blocks, a reader or writer) a moment after writes, while this thread goes on
 * answering. Interleaved runs of 2,100 stdio appends against a server without it: p99 3.5-4.1 ms
 * against 9.2-9.7 ms (three runs), the median within 2 %.
 */

/** How long the worker lets writes gather after the first one before it checkpoints them. */
const GATHER_MS = 50;
/**
 * The writer's own checkpoint line while the worker runs. Under writes that never pause, the
 * worker's checkpoints are always overtaken by newer frames, and SQLite starts the WAL file over
 * only after a checkpoint that copied every frame: at this line the writer's checkpoint does that,
 * copying only what the worker has not yet copied (at most GATHER_MS of writes, unless the worker's
 * own checkpoint holds SQLite's checkpoint lock just then: the writer tries again at its next
 * commit). It keeps the WAL near 16 MB; with a line of 10,000 a burst of 3,000 appends grew it to
 * 41 MB.
 */
const WRITER_AUTOCHECKPOINT_PAGES = 4_000;
/** SQLite's default, for a writer with no worker. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * The worker starts this long after the first commit: a command that writes once and exits (a
 * hook, `baton add`) never starts one, and needs none (closing the last connection checkpoints).
 */
const START_DELAY_MS = 1_000;

// The signal's slots: writes since the last checkpoint (0/1), and stop (0/1).
const WRITTEN = 0;
const STOP = 1;

/**
 * The worker's program (a CommonJS script run with `eval`, so no file needs to be found in a
 * bundle): it sleeps on the signal until a commit, gathers for GATHER_MS, checkpoints, again.
 * `driver` is better-sqlite3 resolved by the starting thread.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const signal = new Int32Array(workerData.signal);
const connection = new Database(workerData.file, { fileMustExist: true });
connection.pragma("synchronous = NORMAL");
parentPort.postMessage("ready");
for (;;) {
  Atomics.wait(signal, ${WRITTEN}, 0);
  if (Atomics.load(signal, ${STOP})) break;
  Atomics.wait(signal, ${STOP}, 0, workerData.gatherMs);
  if (Atomics.load(signal, ${STOP})) break;
  Atomics.store(signal, ${WRITTEN}, 0);
  try {
    connection.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // Another connection's checkpoint was running (SQLITE_BUSY): the next round catches up.
  }
}
connection.close();
`;

export type Checkpointer = {
  /** After every commit of this process: cheap (one atomic read unless the worker sleeps). */
  committed: () => void;
  /** Ends the worker (its connection closed) before the database's own connection closes. */
  stop: () => Promise<void>;
};

/**
 * A checkpointer for the database `file`; `setAutocheckpoint` sets the writer connection's
 * threshold (raised while the worker runs, SQLite's default again if it ends or never starts).
 */
export function checkpointer(file: string, setAutocheckpoint: (pages: number) => void, log: (line: string) => void = (line) => console.error(line)): Checkpointer {
  const signal = new Int32Array(new SharedArrayBuffer(8));
  /** idle: no write yet; waiting: START_DELAY_MS after the first; running; ended: stopped, or the worker failed (not started again). */
  let state: "idle" | "waiting" | "running" | "ended" = "idle";
  let worker: Worker | null = null;
  let startTimer: NodeJS.Timeout | null = null;

  const start = () => {
    startTimer = null;
    if (state !== "waiting") return;
    try {
      const driver = createRequire(path.join(projectRoot, "package.json")).resolve("better-sqlite3");
      // Writes made before the worker was up are checkpointed by its first round.
      Atomics.store(signal, WRITTEN, 1);
      const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, signal: signal.buffer, gatherMs: GATHER_MS } });
      worker = started;
      state = "running";
      started.unref();
      started.once("message", () => {
        if (state === "running") setAutocheckpoint(WRITER_AUTOCHECKPOINT_PAGES);
      });
      started.once("error", (error) => log(`baton: WAL checkpoints are made by each write again (${error.message})`));
      started.once("exit", () => {
        worker = null;
        if (state !== "running") return;
        state = "ended";
        setAutocheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES);
      });
    } catch (error) {
      state = "ended";
      log(`baton: WAL checkpoints are made by each write (${error instanceof Error ? error.message : String(error)})`);
    }
  };

  return {
    committed: () => {
      if (state === "running") {
        if (Atomics.load(signal, WRITTEN)) return;
        Atomics.store(signal, WRITTEN, 1);
        Atomics.notify(signal, WRITTEN);
      } else if (state === "idle") {
        state = "waiting";
        startTimer = setTimeout(start, START_DELAY_MS).unref();
      }
    },
    stop: async () => {
      state = "ended";
      if (startTimer) clearTimeout(startTimer);
      const running = worker;
      if (!running) return;
      // Held until it has closed its connection: unreferenced, a process with nothing else to do would not wait.
      running.ref();
      const exited = new Promise((resolve) => running.once("exit", resolve));
      // Both set before either wake-up, so a worker between its waits sees them at its next one.
      Atomics.store(signal, STOP, 1);
      Atomics.store(signal, WRITTEN, 1);
      Atomics.notify(signal, WRITTEN);
      Atomics.notify(signal, STOP);
      await exited;
    },
  };
}
