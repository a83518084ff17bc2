/**
 * The MCP HTTP door (app/api/mcp/route.ts behind tests/support/mcp-clients.ts's serveHandlers) as an OS
 * process of its own, so the crash-safety test and bench can SIGKILL it mid-request. Writes the
 * data folder's database named by DATABASE_URL / BATON_DATA_DIR; prints `listening <origin>` once
 * it accepts connections and serves until it is signalled.
 */
import { DELETE, GET, POST } from "../../app/api/mcp/route";
import { serveHandlers } from "./mcp-clients";

const { origin } = await serveHandlers({ "/api/mcp": { POST, GET, DELETE } });
console.log(`listening ${origin}`);
