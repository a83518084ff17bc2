import "server-only";
import { sessionsStillValid, tokensStillValid } from "../auth";
import type { Caller } from "../caller";
import { whenDatabaseCloses } from "../database";
import { accessTokensStillValid } from "../oauth";

/**
 * Revocation ends what is already open. A request is checked when it arrives; a live-update
 * stream or an MCP session's GET stream stays open for hours, so each one is watched: every
 * REVOCATION_CHECK_MS, while any is open, this process asks the database (one query per kind of
 * credential) which of the watched credentials still hold, and ends the streams of the others. A
 * token or grant revoked, a sign-out or an expiry on any instance reaches every instance this
 * way, since all of them read the same database.
 */
export const REVOCATION_CHECK_MS = 250;

type Credential = { kind: "session" | "token" | "connector"; proof: string };
type Watched = Credential & { end: () => void };

const watched = new Set<Watched>();
let timer: NodeJS.Timeout | null = null;
let releaseCloseHook: (() => void) | null = null;
let checking = false;
/** The last check failed (the database did not answer): the next failure is not logged again. */
let failing = false;

const STILL_VALID: Record<Credential["kind"], (proofs: readonly string[]) => Promise<Set<string>>> = {
  token: tokensStillValid,
  session: sessionsStillValid,
  connector: accessTokensStillValid,
};

/**
 * Calls `end` once (and stops watching) when the credential `caller` came with is revoked, signed
 * out or expired. The open desk and this machine's processes carry no credential: never. Returns
 * the function that stops watching, for a stream that ends by itself.
 */
export function endWhenRevoked(caller: Caller, end: () => void): () => void {
  const who = caller.who;
  if (who.kind !== "session" && who.kind !== "token" && who.kind !== "connector") return () => {};
  const entry: Watched = { kind: who.kind, proof: who.proof, end };
  watched.add(entry);
  if (!timer) {
    timer = setInterval(() => void check(), REVOCATION_CHECK_MS);
    timer.unref();
    releaseCloseHook = whenDatabaseCloses(endAll);
  }
  return () => forget(entry);
}

function forget(entry: Watched): void {
  watched.delete(entry);
  if (watched.size === 0 && timer) {
    clearInterval(timer);
    timer = null;
    releaseCloseHook?.();
    releaseCloseHook = null;
  }
}

/**
 * The database closed (a shutdown, the end of a test): no credential can be checked any more, so
 * every watched stream ends, as a revoked one would. Checking on would open the database again.
 */
function endAll(): void {
  for (const entry of [...watched]) {
    forget(entry);
    entry.end();
  }
}

async function check(): Promise<void> {
  if (checking) return;
  checking = true;
  try {
    const entries = [...watched];
    const valid = new Map<Credential["kind"], Set<string>>();
    for (const kind of Object.keys(STILL_VALID) as Credential["kind"][]) {
      const proofs = [...new Set(entries.filter((entry) => entry.kind === kind).map((entry) => entry.proof))];
      // Stopped meanwhile (the database closed): the next query would open it again.
      if (!timer) return;
      if (proofs.length > 0) valid.set(kind, await STILL_VALID[kind](proofs));
    }
    for (const entry of entries) {
      // Ended meanwhile (it closed, or the database did): `end` is called once.
      if (!watched.has(entry) || (valid.get(entry.kind)?.has(entry.proof) ?? true)) continue;
      forget(entry);
      entry.end();
    }
    if (failing) console.error("baton: open streams' credentials are checked again");
    failing = false;
  } catch (error) {
    // A database that does not answer revokes nothing: the next check tries again. Said once per outage, not four times a second.
    if (!failing) console.error(`baton: could not check open streams' credentials (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); retrying`);
    failing = true;
  } finally {
    checking = false;
  }
}
