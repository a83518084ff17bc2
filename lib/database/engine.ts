import { Unavailable } from "../errors";
import { oneLine } from "../one-line";
import { withoutCredentials } from "../url-credentials";
import type { Engine } from "./types";

/**
 * Which engine a database URL names. A URL that names neither is the setting's problem
 * (Unavailable, one line at every door): a plain Error read as a bug ("unexpected error").
 */
export function engineOf(url: string): Engine {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (url.startsWith("file:")) return "sqlite";
  throw new Unavailable(
    `DATABASE_URL must be a SQLite file: URL or a postgresql:// URL, got "${oneLine(withoutCredentials(url, { keepUserName: true, standIn: "…" }))}"; set it so, or leave it unset for the data folder's baton.db`,
  );
}
