/**
 * lib/git: where a handoff stands in git. Reads a repository's state (read-state.ts), compares a
 * recorded state with a reader's repository (compare.ts) and renders one short block (types.ts).
 * Never throws for want of git: no git or no repository is null.
 */
import "server-only";
export { compareWithRepository, reportOnThisMachine } from "./compare";
export { readGitState, reportedState } from "./read-state";
export { withoutCredentials } from "../url-credentials";
export { describeRecorded, gitStateSchema, parseGitState, renderStaleness, type GitReport, type GitState, type Staleness } from "./types";
