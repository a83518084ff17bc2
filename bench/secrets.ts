/**
 * What the secret scan costs the hot path (issue 12): findSecrets alone on a 100-byte and a
 * 64 KiB entry of ordinary prose, and add_to_handoff's domain call with BATON_SECRETS=redact
 * (the default) against the same call with BATON_SECRETS=off, measured in the same run.
 */
import { findSecrets } from "../lib/secrets";
import { addEntry, createHandoff } from "../lib/handoffs";
import { ensureMigrated } from "../lib/database/migrate";
import { makeTemporaryDataDir, median, timeIt } from "./support";

const prose =
  "We moved the refresh logic into src/auth/refresh.ts; the tests in tests/auth.test.ts cover expiry at 7 and 30 days. " +
  "Commit 3f2a9c1 keeps the old cookie name until the next release, see hof_V1StGXR8_Z5jdHi6B-myT for the decision.\n";
const entryOf = (bytes: number) => prose.repeat(Math.ceil(bytes / prose.length)).slice(0, bytes);
const us = (value: number) => `${(value * 1000).toFixed(0)} µs`;

export async function run(): Promise<void> {
  makeTemporaryDataDir("secrets");
  await ensureMigrated();
  const { handoff } = await createHandoff({ title: "bench", content: "start" });
  for (const bytes of [100, 64 * 1024 - 1]) {
    const text = entryOf(bytes);
    const scan = median(await timeIt(bytes > 1000 ? 100 : 2000, async () => findSecrets(text), 20));
    const timed = async (policy: string) => {
      process.env.BATON_SECRETS = policy;
      return median(await timeIt(bytes > 1000 ? 100 : 500, () => addEntry({ id: handoff.id, type: "progress", content: text }), 20));
    };
    const off = await timed("off");
    const redact = await timed("redact");
    delete process.env.BATON_SECRETS;
    console.log(`${bytes > 1000 ? "64 KiB" : "100 B"} entry: findSecrets ${us(scan)}; addEntry with BATON_SECRETS=off ${us(off)}, redact ${us(redact)} (+${us(redact - off)})`);
  }
}
