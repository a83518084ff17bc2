// @ts-check
import v8 from "node:v8";

/**
 * How many calls' worth of running a function needs before V8 on Node 22 optimizes it with
 * TurboFan (V8's own default: 3,000). Node 22's V8 ships with its middle tier (Maglev) off, so the
 * stdio server's call path stays in the interpreter and the baseline compiler for its first 3,000
 * calls, more than most sessions make. At 400 (Maglev's count, which Node 24 runs by default) the
 * path is optimized after about 700 calls on Node 22, as it is on Node 24 with V8's defaults
 * (README, *Start-up time*).
 */
const NODE_22_TURBOFAN_CALLS = 400;

/**
 * Lets the stdio MCP server's hot path be optimized as soon on Node 22 as on Node 24; Node 24
 * keeps V8's defaults. Called by the server's launchers before its bundle is loaded: V8's code
 * cache records the flags it was made with and refuses itself under others, so the flags must be
 * the same when the cache is read and when it is written.
 */
export function tierUpLikeNode24() {
  if (process.versions.node.split(".")[0] === "22") v8.setFlagsFromString(`--invocation-count-for-turbofan=${NODE_22_TURBOFAN_CALLS}`);
}
