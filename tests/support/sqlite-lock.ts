import { spawn } from "node:child_process";
import { databaseFile } from "../../lib/config";

export type SqliteLock = { release: () => Promise<void> };

/**
 * Another process holding a SQLite database's lock until released, as a long import or a sqlite3
 * shell does: `write` takes the write lock (BEGIN IMMEDIATE: readers go on), `whole` the whole
 * file (locking_mode EXCLUSIVE: readers wait too; it can be taken only while no other connection
 * is open, so close this process's first).
 */
export async function holdSqliteLock(mode: "write" | "whole", file: string = databaseFile()): Promise<SqliteLock> {
  const take = mode === "write" ? `db.exec("BEGIN IMMEDIATE")` : `db.pragma("locking_mode = EXCLUSIVE"); db.exec("BEGIN EXCLUSIVE")`;
  const holder = spawn(
    process.execPath,
    ["-e", `const db = new (require("better-sqlite3"))(process.argv[1]); ${take}; process.stdout.write("held\\n"); process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); }).resume();`, file],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once("data", () => resolve());
    holder.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before holding the lock`)));
  });
  return {
    release: async () => {
      holder.stdin.end();
      await exited;
    },
  };
}
