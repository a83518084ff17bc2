/**
 * The domain layer, loaded on a tool's first call rather than at start-up: it is the slowest
 * import of the process (the database drivers with SQLite's native binding, git, the secret
 * scanner's rules, every schema), and the stdio server must answer `initialize` within 400 ms of
 * spawn.
 * Each load is kept: a repeated `import()` still runs the loader's resolve step, which through
 * tsx's loader (`baton mcp` from the sources, tests) is a round trip to its worker thread per call.
 */
import "server-only";

let handoffs: Promise<typeof import("../handoffs")> | undefined;
let agents: Promise<typeof import("../agents")> | undefined;
let formats: Promise<typeof import("../formats")> | undefined;

export const loadHandoffs = () => (handoffs ??= import("../handoffs"));
export const loadAgents = () => (agents ??= import("../agents"));
export const loadFormats = () => (formats ??= import("../formats"));
