/**
 * The domain layer, loaded on a tool's first call rather than at start-up: Prisma is the slowest
 * import of the process, and the stdio server must answer `initialize` within 400 ms of spawn.
 */
import "server-only";

export const loadHandoffs = () => import("../handoffs");
export const loadAgents = () => import("../agents");
