import fs from "node:fs";
import path from "node:path";

/** Nothing a test sends may produce a 5xx: scripts/e2e-server.mjs logs each one, and this fails the run on any. */
export default function noServerErrors() {
  const log = path.join(process.env.BATON_DATA_DIR!, "server-errors.log");
  if (!fs.existsSync(log)) return;
  const lines = fs.readFileSync(log, "utf8").trim();
  if (lines) throw new Error(`the server answered 5xx during the e2e run:\n${lines}`);
}
