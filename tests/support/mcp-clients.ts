import { spawn } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * MCP clients of Baton's own servers, for the tests and the benchmark: the SDK's real client
 * over the real transports, nothing simulated.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");

function stringEnv(extra: Record<string, string | undefined>, inherit = true): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...(inherit && process.env), ...extra })) if (value !== undefined) env[key] = value;
  return env;
}

export type StdioClientOptions = {
  /** Arguments after `baton mcp`, e.g. ["--as", "code"]. */
  args?: string[];
  /** Extra environment; the data folder comes from process.env unless overridden here. */
  env?: Record<string, string | undefined>;
  /** false: the server's environment is `env` alone, as a user's shell gives it (the test's data folder stays out). */
  inheritEnv?: boolean;
  /** "bin": `node bin/baton.mjs mcp` (tsx); "launch": `node lib/mcp/launch.mjs` (the fast-start bundle). */
  entry?: "bin" | "launch";
  /** The server's working folder (default the checkout): the client's repository, as a coding client starts it. */
  cwd?: string;
  /** Another command line than the checkout's `node …` (e.g. `npx -y baton-desk mcp`, tests/package-install.test.ts); `args` follow it. */
  command?: { command: string; args: string[] };
};

/** Spawns a stdio MCP server and connects the SDK's client to it (stderr is collected, not shown). */
export async function connectStdioClient(
  options: StdioClientOptions = {},
): Promise<{ client: Client; stderr: () => string; /** the server's process id, e.g. to SIGKILL it */ pid: number }> {
  const entryArgs =
    options.entry === "launch" ? [path.join(projectRoot, "lib", "mcp", "launch.mjs")] : [path.join(projectRoot, "bin", "baton.mjs"), "mcp"];
  const { command, args } = options.command ?? { command: process.execPath, args: entryArgs };
  const transport = new StdioClientTransport({
    command,
    args: [...args, ...(options.args ?? [])],
    env: stringEnv(options.env ?? {}, options.inheritEnv ?? true),
    cwd: options.cwd ?? projectRoot,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "baton-test", version: "1.0.0" });
  await client.connect(transport);
  // Connected means spawned, so the transport has a process id.
  return { client, stderr: () => stderr, pid: transport.pid! };
}

/**
 * The SDK's client over Streamable HTTP, ending its session (DELETE) when it closes, as a client
 * done with a session should: the server frees the session and the watch on its credential at
 * once, not when the session expires.
 */
class SessionEndingClient extends Client {
  constructor(private readonly http: StreamableHTTPClientTransport) {
    super({ name: "baton-test", version: "1.0.0" });
  }

  override async close(): Promise<void> {
    // A server already gone, or a credential already revoked, has nothing left to end.
    await this.http.terminateSession().catch(() => undefined);
    await super.close();
  }
}

/** Connects the SDK's Streamable HTTP client to `url` with extra request headers. */
export async function connectHttpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new SessionEndingClient(transport);
  await client.connect(transport);
  return client;
}

/** Every tool Baton's MCP server offers, sorted: what tools/list must answer over every transport. */
export const BATON_TOOL_NAMES = [
  "add_to_handoff",
  "close_handoff",
  "create_handoff",
  "get_continuity_chain",
  "get_handoff",
  "get_shift_document",
  "mark_handoff_read",
  "register_agent",
  "report_context",
  "trigger_handoff",
];

type JsonMessage = Record<string, unknown>;

/**
 * A stdio server spoken to in raw lines, without the SDK's client (which would refuse or repair
 * what these tests send): `args` after `node`, in the checkout, with process.env and `env`.
 */
export function rawStdioServer(args: string[], env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, args, { cwd: projectRoot, env: { ...process.env, ...env } });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const messages = () =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as JsonMessage);
  return {
    /** One line: text, or bytes sent as they are (not necessarily UTF-8). */
    write: (line: string | Buffer) => child.stdin.write(typeof line === "string" ? `${line}\n` : Buffer.concat([line, Buffer.from("\n")])),
    messages,
    /** Stops reading the server's stdout (a client that does not read its answers), and reads it again. */
    pauseOutput: () => child.stdout.pause(),
    resumeOutput: () => child.stdout.resume(),
    /** Bytes written to the server's stdin that it has not read yet (beyond what the pipe holds). */
    unreadInput: () => child.stdin.writableLength,
    /** Ends stdin (the client went away), after `unterminated` (a last line without its newline) if given, and resolves to the exit code. */
    async end(unterminated?: string): Promise<number | null> {
      child.stdin.end(unterminated);
      return exited;
    },
  };
}
