import { withoutCredentials } from "../url-credentials";
import type { Engine } from "./types";

/** Which engine a database URL names. */
export function engineOf(url: string): Engine {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (url.startsWith("file:")) return "sqlite";
  throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got "${withoutCredentials(url, { keepUserName: true, standIn: "…" })}"`);
}
