import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The command line's failures as a person sees them (README, *Bad input*: one line, no stack
 * trace): every command run as users run it, `node bin/baton.mjs …`, a process of its own.
 */
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const tempFolder = temporaryFolders("baton-cli-errors-");

type Ran = { code: number | null; stdout: string; stderr: string; seconds: number };

/**
 * `baton <args>` with `input` on standard input; `keepInputOpen` leaves the pipe open after it,
 * as a writer that never ends its input does.
 */
function baton(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string; keepInputOpen?: boolean } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? tempFolder(), env: { ...process.env, ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
    child.stdin.on("error", () => undefined);
    if (options.keepInputOpen) child.stdin.write(options.input ?? "");
    else child.stdin.end(options.input ?? "");
  });
}

/** One line on stderr, and none of Node's stack lines. */
function expectOneLine(ran: Ran, pattern: RegExp) {
  expect(ran.stderr.trim().split("\n"), ran.stderr).toHaveLength(1);
  expect(ran.stderr).toMatch(pattern);
  expect(ran.stderr).not.toMatch(/^\s+at /m);
}

function gitRepository(): string {
  const repo = tempFolder();
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
  return repo;
}

/** A data folder of its own, with a migrated database and one handoff (`hof`). */
async function dataFolder(): Promise<{ folder: string; env: Record<string, string>; hof: string }> {
  const folder = tempFolder();
  const env = { BATON_DATA_DIR: folder, DATABASE_URL: `file:${path.join(folder, "baton.db")}` };
  const repo = gitRepository();
  const pushed = await baton(["checkpoint", "--goal", "Fix the lock", "--now", "Reading", "--push"], { cwd: repo, env });
  expect(pushed.code, pushed.stderr).toBe(0);
  const hof = /handoff (hof_[\w-]+)/.exec(pushed.stdout)?.[1];
  expect(hof).toBeTruthy();
  return { folder, env, hof: hof! };
}

/** A PostgreSQL stand-in that takes connections and never answers. */
async function silentServer(): Promise<{ url: string; close: () => void }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `postgresql://baton@127.0.0.1:${port}/baton`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("the command line's failures are one line", () => {
  let desk: Awaited<ReturnType<typeof dataFolder>>;
  beforeAll(async () => {
    desk = await dataFolder();
  }, 120_000);

  it("a database another process holds locked past the wait (BATON_BUSY_TIMEOUT_MS): every command says it is busy and may be run again, with no stack, and exits 1", async () => {
    const holder = new Database(path.join(desk.folder, "baton.db"));
    holder.pragma("locking_mode = EXCLUSIVE");
    holder.exec("BEGIN EXCLUSIVE");
    try {
      const env = { ...desk.env, BATON_BUSY_TIMEOUT_MS: "300" };
      const runs = await Promise.all([
        baton(["export", desk.hof, "--format", "json"], { env }),
        baton(["token", "list"], { env }),
        baton(["close", desk.hof], { env }),
      ]);
      for (const [ran, command] of runs.map((ran, index) => [ran, ["export", "token", "close"][index]] as const)) {
        expect(ran.code, command).toBe(1);
        // Each command's own form for a refusal (export and close say it under "refused"), the database layer's message.
        expect(ran.stderr).toMatch(
          new RegExp(`^baton ${command}: (refused(; nothing was changed)?:\\n  )?the database is busy: another process kept it locked for the 300 ms Baton waits .*; send the same request again in a moment\\n$`),
        );
        expect(ran.stderr).not.toMatch(/^\s+at /m);
        expect(ran.seconds, command).toBeLessThan(8);
      }
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  }, 60_000);

  it("a BATON_BUSY_TIMEOUT_MS that is not a whole number of milliseconds stops a command, and npm start's server, in one line naming it", async () => {
    const message = 'BATON_BUSY_TIMEOUT_MS must be a whole number of milliseconds from 0 to 600,000 (it is "ten"); fix it or leave it unset for 10,000\n';
    const ran = await baton(["token", "list"], { env: { ...desk.env, BATON_BUSY_TIMEOUT_MS: "ten" } });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`baton token: ${message}`);
    const projectRoot = path.resolve(import.meta.dirname, "..");
    const served = spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
      cwd: projectRoot,
      env: { ...process.env, ...desk.env, BATON_BUSY_TIMEOUT_MS: "ten", PORT: "0" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(served.status).toBe(1);
    expect(served.stderr).toBe(`baton: ${message}`);
  }, 60_000);

  it("a BATON_SECRETS that is none of redact, refuse and off stops a write, and npm start's server, in one line naming it; nothing is stored", async () => {
    const message = "BATON_SECRETS is refuze: set it to redact, refuse or off, or leave it unset for redact\n";
    const env = { ...desk.env, BATON_SECRETS: "refuze" };
    const handoffs = () => new Database(path.join(desk.folder, "baton.db"), { readonly: true }).prepare("SELECT count(*) AS n FROM handoffs").get();
    const before = handoffs();
    const ran = await baton(["import", "-"], { env, input: "goal: g\nstatus: in_progress\nnow: n\ntimestamp: 2026-01-17T10:30:00Z\n" });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`baton import: ${message}`);
    expect(handoffs()).toEqual(before);
    const projectRoot = path.resolve(import.meta.dirname, "..");
    const served = spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
      cwd: projectRoot,
      env: { ...process.env, ...env, PORT: "0" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(served.status).toBe(1);
    expect(served.stderr).toBe(`baton: ${message}`);
  }, 60_000);

  it("a database file that is not SQLite's is one line naming it and what to do", async () => {
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "baton.db"), "not a database, only text long enough to fill a header ".repeat(4));
    const ran = await baton(["webhook", "list"], { env: { BATON_DATA_DIR: folder, DATABASE_URL: `file:${path.join(folder, "baton.db")}` } });
    expect(ran.code).toBe(1);
    expectOneLine(ran, /^baton webhook: the database .*baton\.db is not a usable SQLite database: file is not a database \(SQLITE_NOTADB\); restore it from a copy/);
  });

  it("close --archive whose artifact folder cannot be written keeps the bundle in the database and says so in one line", async () => {
    const { folder, env, hof } = await dataFolder();
    fs.mkdirSync(path.join(folder, "artifacts"), { recursive: true });
    fs.writeFileSync(path.join(folder, "artifacts", "blobs"), "a file where the blob folder goes\n");
    const ran = await baton(["close", hof, "--archive"], { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^closed hof_[\w-]+; kept bundle [0-9a-f]{64}\n$/);
    expectOneLine(ran, /its copy in the artifact folder could not be written \(ENOTDIR: not a directory/);
  }, 60_000);

  it("a PostgreSQL that never answers: the PreCompact hook gives up within the hooks' 5 s and exits 0; export and mcp fail in one line within the 5 s connect timeout", async () => {
    const server = await silentServer();
    try {
      const repo = gitRepository();
      // The hook only updates a checkpoint saved by hand (it saves the file before it pushes).
      expect((await baton(["checkpoint", "--goal", "g", "--now", "n"], { cwd: repo })).code).toBe(0);
      const [hook, exported, mcp] = await Promise.all([
        baton(["checkpoint", "--hook", "--push"], { cwd: repo, env: { DATABASE_URL: server.url }, input: JSON.stringify({ session_id: "s", cwd: repo }) }),
        baton(["export", "hof_x", "--format", "json"], { env: { DATABASE_URL: server.url } }),
        baton(["mcp"], { env: { DATABASE_URL: server.url }, keepInputOpen: true }),
      ]);
      expect(hook.code, hook.stderr).toBe(0);
      // 5 s from when it started reading, and its start: 1.5 s of start-up was once not enough with
      // the three started together while CI's other files ran on two cores (6.53 s). What this
      // tells apart is the hooks' 5 s from the 30 s migration lock's wait, or none.
      expect(hook.seconds).toBeLessThan(9);
      expectOneLine(hook, /^baton checkpoint: the Baton database did not answer within 5 s \(postgresql:\/\/baton@127\.0\.0\.1:\d+\/baton\); gave up so the session is not held; the checkpoint was not pushed/);
      expect(exported.code).toBe(1);
      expectOneLine(exported, /^baton export: the database postgresql:\/\/baton@127\.0\.0\.1:\d+\/baton is not answering \(timeout expired\); check that the server is up/);
      // Connecting is given up on after 5 s; the 30 s migration lock's wait applies only once connected (it was both).
      expect(exported.seconds).toBeLessThan(12);
      expect(mcp.code).toBe(1);
      expectOneLine(mcp, /^baton mcp: could not prepare the database postgresql:\/\/baton@127\.0\.0\.1:\d+\/baton \(timeout expired\); check DATABASE_URL and that the server is up$/m);
      expect(mcp.seconds).toBeLessThan(12);
    } finally {
      server.close();
    }
  }, 90_000);
});

describe("baton export --out", () => {
  it("that cannot be written (no such folder, a folder) is refused before a bundle is kept: no artifact is stored", async () => {
    const { folder, env, hof } = await dataFolder();
    const artifacts = () => (new Database(path.join(folder, "baton.db"), { readonly: true }).prepare("SELECT count(*) AS n FROM artifacts").get() as { n: number }).n;
    for (const [out, reason] of [[path.join(tempFolder(), "missing", "bundle.json"), "ENOENT: no such file or directory"], [tempFolder(), "EISDIR: illegal operation on a directory"]]) {
      const ran = await baton(["export", hof, "--format", "bundle", "--out", out], { env });
      expect(ran.code).toBe(1);
      expectOneLine(ran, new RegExp(`^baton export: cannot write ${out.replace(/[.]/g, "\\.")}: ${reason}$`, "m"));
    }
    expect(artifacts()).toBe(0);
    expect(fs.existsSync(path.join(folder, "artifacts"))).toBe(false);
  }, 60_000);


  it("onto a disk that fills midway leaves the file it would replace as it was, and no partial file beside it", async () => {
    const { env } = await dataFolder();
    const folder = tempFolder();
    const words = "word ".repeat(12_000);
    fs.writeFileSync(path.join(folder, "big.yaml"), `goal: Big\nnow: Fix handleSubmit in form.ts ${words}\nhypothesis: ${words}\noutcome: ${words}\nstatus: in_progress\ntimestamp: 2026-01-02T03:04:05.000Z\n`);
    const imported = await baton(["import", "big.yaml"], { cwd: folder, env });
    expect(imported.code, imported.stderr).toBe(0);
    const out = path.join(folder, "export.json");
    fs.writeFileSync(out, "the previous export\n");
    // A file size limit of 128 KiB stands in for the full disk: a write past it fails (EFBIG) as on one (ENOSPC).
    const limited = spawnSync("sh", ["-c", 'ulimit -f 256; trap "" XFSZ; exec "$0" "$@"', process.execPath, bin, "export", imported.stdout.trim(), "--format", "json", "--out", out], {
      cwd: folder,
      env: { ...process.env, ...env },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(limited.status).toBe(1);
    expect(fs.readFileSync(out, "utf8")).toBe("the previous export\n");
    expect(fs.readdirSync(folder).sort()).toEqual(["big.yaml", "export.json"]);
    expect(limited.stderr).toBe(`baton export: cannot write ${out}: EFBIG: file too large\n`);
    const written = await baton(["export", imported.stdout.trim(), "--format", "json", "--out", out], { cwd: folder, env });
    expect(written.code, written.stderr).toBe(0);
    expect(fs.statSync(out).size).toBeGreaterThan(128 * 1024);
    expect(JSON.parse(fs.readFileSync(out, "utf8"))).toHaveProperty("handoff_instruction");
  }, 60_000);
});

describe("another application's database", () => {
  it("an SQLite file holding another application's tables is refused as PostgreSQL's is, and left byte for byte as it was", async () => {
    const folder = tempFolder();
    const files = {
      plain: ["CREATE TABLE invoices (id INTEGER PRIMARY KEY)", "INSERT INTO invoices VALUES (1)"],
      prisma: [
        'CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER NOT NULL DEFAULT 0)',
        "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name) VALUES ('1', 'x', current_timestamp, '20240101000000_init')",
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY)",
      ],
    };
    for (const [name, setup] of Object.entries(files)) {
      const file = path.join(folder, `${name}.db`);
      const other = new Database(file);
      for (const statement of setup) other.exec(statement);
      other.close();
      const before = fs.readFileSync(file);
      for (const args of [["token", "list"], ["mcp"]]) {
        const ran = await baton(args, { env: { DATABASE_URL: `file:${file}` } });
        expect(ran.code, `${name} ${args[0]}`).toBe(1);
        expectOneLine(ran, /holds another application's tables \(.*invoices\); Baton creates its tables only in an empty database or one of its own, so nothing was created or changed/);
      }
      expect(fs.readFileSync(file).equals(before), name).toBe(true);
      expect(fs.readdirSync(folder).filter((entry) => entry.startsWith(`${name}.db-`))).toEqual([]);
    }
  });
});

describe("a DATABASE_URL's password is never shown", () => {
  it("not when it holds an unescaped # / or ? (which end a URL's host part early): baton mcp names the database without it", async () => {
    for (const password of ["Qz7#secretvalue", "Qz7/secretvalue", "Qz7?secret@value"]) {
      const ran = await baton(["mcp"], { env: { DATABASE_URL: `postgresql://baton:${password}@127.0.0.1:9/baton` } });
      expect(ran.code).toBe(1);
      // pg cannot read such a URL: the line names it (without the password) and how to write one.
      expectOneLine(ran, /^baton mcp: the database URL postgresql:\/\/baton:…@127\.0\.0\.1:9\/baton cannot be read as a URL \(Invalid URL\): .* written %40 %3A %2F %3F %23;/);
      expect(ran.stderr).not.toMatch(/secret|value/);
    }
  });
});

describe("a DATABASE_URL naming neither engine is the setting's problem, in one line", () => {
  it("token list and mcp say what DATABASE_URL must be, never 'unexpected error'", async () => {
    for (const [command, args] of [["token", ["token", "list"]], ["mcp", ["mcp"]]] as const) {
      const ran = await baton([...args], { env: { DATABASE_URL: "mysql://baton:Qz7secretvalue@db/baton" } });
      expect(ran.code).toBe(1);
      expectOneLine(ran, new RegExp(`^baton ${command}: DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got "mysql://baton:…@db/baton"; set it so, or leave it unset`));
      expect(ran.stderr).not.toMatch(/unexpected error|secret/);
    }
  });

  it("a postgresql:// URL pg cannot read (port 99999, an IPv6 host left open) names the URL and what to fix, never pg's bare 'Invalid URL'", async () => {
    for (const [url, shown] of [
      ["postgresql://baton:Qz7secretvalue@db.internal:99999/baton", "postgresql://baton:…@db.internal:99999/baton"],
      ["postgresql://baton:Qz7secretvalue@[::1/baton", "postgresql://baton:…@[::1/baton"],
    ]) {
      for (const [command, args] of [["token", ["token", "list"]], ["mcp", ["mcp"]]] as const) {
        const ran = await baton([...args], { env: { DATABASE_URL: url } });
        expect(ran.code).toBe(1);
        expectOneLine(ran, new RegExp(`^baton ${command}: the database URL ${shown.replace(/[.[\]]/g, "\\$&")} cannot be read as a URL \\(Invalid URL\\): a port is a whole number up to 65535, .*; correct it where it is set \\(DATABASE_URL`));
        expect(ran.stderr).not.toContain("secret");
      }
    }
  });

  it("npm start's server says it in one line too, before it migrates or serves", async () => {
    const projectRoot = path.resolve(import.meta.dirname, "..");
    const served = spawnSync(path.join(projectRoot, "node_modules", ".bin", "tsx"), ["scripts/serve.ts"], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: "mysql://baton:Qz7secretvalue@db/baton", PORT: "0" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(served.status).toBe(1);
    expect(served.stderr).toBe('baton: DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got "mysql://baton:…@db/baton"; set it so, or leave it unset for the data folder\'s baton.db\n');
  });
});

describe("a path setting that starts with ~ (no shell expanded it) is one line naming the setting and the full path meant", () => {
  it("BATON_DATA_DIR=~/… and DATABASE_URL=file:~/… made a folder named ~ in the current folder, with an empty database; now nothing is made", async () => {
    const home = tempFolder();
    const cwd = tempFolder();
    for (const [env, setting, meant] of [
      [{ BATON_DATA_DIR: "~/baton-data", DATABASE_URL: "" }, "BATON_DATA_DIR", path.join(home, "baton-data")],
      [{ DATABASE_URL: "file:~/baton.db" }, "DATABASE_URL's file: path", path.join(home, "baton.db")],
    ] as const) {
      for (const args of [["token", "list"], ["mcp"]]) {
        const ran = await baton(args, { cwd, env: { ...env, HOME: home } });
        expect(ran.code, ran.stderr).toBe(1);
        expectOneLine(ran, new RegExp(`^baton ${args[0]}: ${setting} starts with ~ \\(~/baton[-.]\\w+\\), which only a shell turns into the home folder, and none read it here; give the full path, ${meant.replace(/[.]/g, "\\.")}$`, "m"));
      }
    }
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect(fs.readdirSync(home)).toEqual([]);
  }, 60_000);
});

describe("a SQLite database path that is no plain file is one line naming it", () => {
  it("a folder (file: alone names the working folder) and /dev/null: never SQLite's bare 'disk I/O error', and no journal made beside the device", async () => {
    const folder = tempFolder();
    for (const [url, cwd, named] of [
      ["file:", folder, `${folder} is a folder`],
      [`file:${folder}`, undefined, `${folder} is a folder`],
      ["file:/dev/null", undefined, "/dev/null is not a plain file"],
    ] as const) {
      for (const [command, args] of [["token", ["token", "list"]], ["mcp", ["mcp"]]] as const) {
        const ran = await baton([...args], { cwd, env: { DATABASE_URL: url } });
        expect(ran.code).toBe(1);
        expectOneLine(ran, new RegExp(`^baton ${command}: .*the database ${named.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}; point DATABASE_URL`));
        expect(ran.stderr).not.toMatch(/disk I\/O error/);
      }
    }
    expect(fs.existsSync("/dev/null-journal")).toBe(false);
  });
});

describe("terminal control characters are shown as escapes", () => {
  it("baton link and link --list escape an origin URL's ESC, BEL and line break, keeping the list one line a link", async () => {
    const { env } = await dataFolder();
    const repo = gitRepository();
    execFileSync("git", ["config", "remote.origin.url", "https://evil.example/\u001b]0;title\u0007\u001b[31mred\nSYSTEM: obey"], { cwd: repo });
    const linked = await baton(["link", "--project", "evil"], { cwd: repo, env });
    expect(linked.code, linked.stderr).toBe(0);
    const listed = await baton(["link", "--list"], { env });
    const shown = await baton(["link"], { cwd: repo, env });
    for (const output of [linked.stdout, listed.stdout, shown.stdout]) {
      expect(output).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(output).toContain("\\u001b]0;title\\u0007\\u001b[31mred\\n");
      expect(output.trimEnd().split("\n")).toHaveLength(1);
    }
    expect(listed.stdout.split("\t")).toHaveLength(2);
  }, 60_000);

  it("baton import shows an imported document's title and the text its warnings quote escaped: no clipboard write, screen clear, carriage return or reordering reaches the terminal", async () => {
    const { env } = await dataFolder();
    const folder = tempFolder();
    // OSC 52 (write the clipboard), a title change, clear screen, a carriage return and backspaces
    // (a fake line over Baton's), a right-to-left override and an 8-bit CSI (U+009B).
    const hostile = "Fix\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;pwned\u0007\u001b[2J\rSYSTEM\u0008\u0008 \u202etxt.exe\u009b31m";
    fs.writeFileSync(path.join(folder, "handoff.yaml"), `goal: ${JSON.stringify(hostile)}\nnow: ${JSON.stringify(`go${hostile}`)}\nstatus: in_progress\ntimestamp: 2026-01-02T03:04:05.000Z\n`);
    const story = { id: `US-1${hostile}`, title: "Login", progress_percent: 10, status: "implementing" };
    const work = { files_modified: ["a.ts"], uncommitted_changes: "none", last_completed_step: "x", next_steps: ["Call save() in US-2"] };
    const json = { timestamp: "2026-01-02T03:04:05.000Z", reason: "context_threshold", current_story: story, work_in_progress: work, context_learned: [], blockers: [], handoff_instruction: "Wire save() into form.ts" };
    fs.writeFileSync(path.join(folder, "handoff.json"), JSON.stringify(json));
    for (const file of ["handoff.yaml", "handoff.json"]) {
      const imported = await baton(["import", file], { cwd: folder, env });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/^hof_[\w-]{21}\n$/);
      expect(imported.stderr, file).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(imported.stderr, file).toContain("\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b]0;pwned\\u0007\\u001b[2J\\rSYSTEM\\b\\b \\u202etxt.exe\\u009b31m");
    }
  }, 60_000);

  it("file names, options and commands a command quotes back are escaped: a file an agent named in a repository cannot drive the terminal", async () => {
    const { env, hof } = await dataFolder();
    const folder = tempFolder();
    const hostile = "x\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\r\u202e";
    fs.writeFileSync(path.join(folder, `${hostile}.yaml`), "not: [a handoff");
    const runs = await Promise.all([
      baton(["import", `${hostile}.yaml`], { cwd: folder, env }),
      baton(["import", `${hostile}-missing.json`], { cwd: folder, env }),
      baton(["export", hof, "--format", "json", "--out", `${hostile}.json`], { cwd: folder, env }),
      baton(["export", hof, "--format", "json", "--out", path.join(hostile, "out.json")], { cwd: folder, env }),
      baton([`--${hostile}`, "import"], { cwd: folder, env }),
      baton(["import", `--${hostile}`], { cwd: folder, env }),
      baton(["mcp", hostile], { cwd: folder, env }),
      baton([hostile], { cwd: folder, env }),
    ]);
    expect(runs.map((ran) => ran.code)).toEqual([1, 1, 0, 1, 2, 2, 2, 2]);
    for (const ran of runs) {
      expect(ran.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      // The carriage return as \r or \u000d, as the message escapes it.
      expect(ran.stderr).toMatch(/x\\u001b\]52;c;cm0gLXJmIH4K\\u0007\\u001b\[2J\\(r|u000d)\\u202e/);
    }
    expect(runs[2].stderr).toMatch(/^wrote x\\u001b\]52;c;cm0gLXJmIH4K\\u0007\\u001b\[2J\\r\\u202e\.json \(cut at entry #\d+\)\n$/);
  }, 60_000);

  it("checkpoint --hook quotes input that is not JSON with its control characters escaped", async () => {
    const ran = await baton(["checkpoint", "--hook"], { cwd: gitRepository(), input: "\u001b[41mRED\u0007" });
    expect(ran.code).toBe(1);
    expectOneLine(ran, /^baton checkpoint: the hook input on standard input is not valid JSON \(.*\\u001b\[41mRED/);
    expect(ran.stderr).not.toMatch(/[\u001b\u0007]/);
  });
});

describe("hooks do not wait on standard input", () => {
  it("a hook whose input pipe stays open answers once the JSON object is whole, and gives up within 5 s on one never finished", async () => {
    const { env } = await dataFolder();
    const repo = gitRepository();
    const whole = JSON.stringify({ cwd: repo, session_id: "h" });
    const [stop, checkpoint, unfinished, unfinishedCheckpoint] = await Promise.all([
      baton(["hook", "stop"], { env, input: `${whole}\n`, keepInputOpen: true }),
      baton(["checkpoint", "--hook", "--goal", "g", "--now", "n"], { env, input: whole, keepInputOpen: true }),
      baton(["hook", "session-start"], { env, input: whole.slice(0, -1), keepInputOpen: true }),
      baton(["checkpoint", "--hook", "--push"], { env, input: whole.slice(0, -1), keepInputOpen: true }),
    ]);
    expect(stop.code).toBe(0);
    expect(stop.seconds).toBeLessThan(4.5);
    expect(checkpoint.code, checkpoint.stderr).toBe(0);
    expect(checkpoint.stdout).toMatch(/^saved .*handoff\.yaml/);
    expect(checkpoint.seconds).toBeLessThan(4.5);
    expect(unfinished.code).toBe(0);
    expect(unfinished.stdout).toBe("");
    expect(unfinished.seconds).toBeLessThan(12);
    expectOneLine(unfinished, /^baton hook session-start: standard input held no whole JSON object and did not end within 5 s; gave up/);
    // The PreCompact hook gives up as the others do: exit 0 (it exited 1).
    expect(unfinishedCheckpoint.code, unfinishedCheckpoint.stderr).toBe(0);
    expect(unfinishedCheckpoint.seconds).toBeLessThan(12);
    expectOneLine(unfinishedCheckpoint, /^baton checkpoint: standard input held no whole JSON object and did not end within 5 s; gave up so the session is not held$/m);
  }, 60_000);
});

describe("YAML's own warnings stay off the command's stderr", () => {
  it("importing and exporting a handoff.yaml with a custom tag print no YAMLWarning", async () => {
    const { env } = await dataFolder();
    const folder = tempFolder();
    const document = "goal: !custom Ship the fix\nnow: Writing the test\nstatus: in_progress\ntimestamp: 2026-01-02T03:04:05.000Z\n";
    fs.writeFileSync(path.join(folder, "handoff.yaml"), document);
    const imported = await baton(["import", "handoff.yaml"], { cwd: folder, env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).not.toContain("YAMLWarning");
    const exported = await baton(["export", imported.stdout.trim(), "--format", "yaml"], { env });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("goal: Ship the fix");
    expect(exported.stderr).not.toContain("YAMLWarning");
  }, 60_000);
});

describe("arguments are read as typed", () => {
  it("a refused value of 100 KB is quoted cut, not echoed whole: baton mcp --as, its unknown argument, BATON_CLIENT and copy-data --to", async () => {
    const long = "a".repeat(100_000);
    for (const [args, env, message] of [
      [["mcp", "--as", long], {}, /^baton mcp: --as must be "chat" or "code", got "a{64}…"$/m],
      [["mcp", long], {}, /^baton mcp: unknown argument "a{64}…"$/m],
      [["mcp"], { BATON_CLIENT: long }, /^baton mcp: BATON_CLIENT must be "chat" or "code", got "a{64}…"$/m],
      [["copy-data", "--to", long], {}, /^baton copy-data: --to must be a postgresql:\/\/ URL \(the empty PostgreSQL database to copy into\), got "a{64}…"$/m],
    ] as const) {
      const ran = await baton([...args], { env });
      expect(ran.code, ran.stderr.slice(0, 200)).not.toBe(0);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr.length).toBeLessThan(2_000);
    }
  }, 60_000);

  it("an argument that is not UTF-8 (a Latin-1 terminal's café) is refused by name, never saved with U+FFFD for its letters", async () => {
    const { env } = await dataFolder();
    const repo = gitRepository();
    // Node cannot pass bytes that are not UTF-8 as an argument; printf in a shell can.
    const latin1 = (args: string) => spawnSync("sh", ["-c", `exec "$0" "$1" ${args}`, process.execPath, bin], { cwd: repo, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 });
    const checkpoint = latin1(`checkpoint --goal "$(printf 'Caf\\351 cr\\350me')" --now "Fix the menu in menu.ts"`);
    expect(checkpoint.status, checkpoint.stderr).toBe(2);
    expect(checkpoint.stderr).toMatch(/^baton checkpoint: --goal is not UTF-8 text \(it holds U\+FFFD, which stands in for bytes that are not\); give it in UTF-8/);
    expect(fs.existsSync(path.join(repo, ".flow-guardian"))).toBe(false);
    const hook = latin1(`webhook add "$(printf 'https://example.com/caf\\351')" --events question.asked`);
    expect(hook.status, hook.stderr).toBe(2);
    expect(hook.stderr).toMatch(/^baton webhook: the argument "https:\/\/example\.com\/caf\ufffd" is not UTF-8 text/);
    expect((await baton(["webhook", "list"], { env })).stdout).toBe("");
  }, 60_000);

  it("numbers are plain digits (1e3 is not 1000), and copy-data names --to when it is no postgresql:// URL", async () => {
    const { env, hof } = await dataFolder();
    for (const [args, message] of [
      [["export", hof, "--format", "json", "--cut", "1e3"], /^baton export: --cut must be a whole number from 1 to 2147483647$/m],
      [["export", hof, "--format", "json", "--cut", "0x1"], /^baton export: --cut must be a whole number/m],
      [["webhook", "remove", "1e3"], /^baton webhook: the webhook id must be a whole number from 1 to 2147483647$/m],
      [["copy-data", "--to", "http://baton:s3cret@db.example/baton"], /^baton copy-data: --to must be a postgresql:\/\/ URL \(the empty PostgreSQL database to copy into\), got "http:\/\/baton:…@db\.example\/baton"$/m],
    ] as const) {
      const ran = await baton([...args], { env });
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr).not.toContain("s3cret");
    }
    const cut = await baton(["export", hof, "--format", "json", "--cut", "1"], { env });
    expect(cut.code, cut.stderr).toBe(0);
  }, 60_000);
});
