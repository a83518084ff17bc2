import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * MCP clients of Baton's own servers, for the tests and the benchmark: the SDK's real client
 * over the real transports, nothing simulated.
 */
const projectRoot = path.resolve(import.meta.dirname, "..", "..");

function stringEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...extra })) if (value !== undefined) env[key] = value;
  return env;
}

export type StdioClientOptions = {
  /** Arguments after `baton mcp`, e.g. ["--as", "code"]. */
  args?: string[];
  /** Extra environment; the data folder comes from process.env unless overridden here. */
  env?: Record<string, string | undefined>;
  /** "bin": `node bin/baton.mjs mcp` (tsx); "launch": `node lib/mcp/launch.mjs` (the fast-start bundle). */
  entry?: "bin" | "launch";
  /** The server's working folder (default the checkout): the client's repository, as a coding client starts it. */
  cwd?: string;
};

/** Spawns a stdio MCP server and connects the SDK's client to it (stderr is collected, not shown). */
export async function connectStdioClient(
  options: StdioClientOptions = {},
): Promise<{ client: Client; stderr: () => string; /** the server's process id, e.g. to SIGKILL it */ pid: number }> {
  const entryArgs =
    options.entry === "launch" ? [path.join(projectRoot, "lib", "mcp", "launch.mjs")] : [path.join(projectRoot, "bin", "baton.mjs"), "mcp"];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...entryArgs, ...(options.args ?? [])],
    env: stringEnv(options.env ?? {}),
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

/** Connects the SDK's Streamable HTTP client to `url` with extra request headers. */
export async function connectHttpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "baton-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export type WebHandler = (request: Request) => Promise<Response> | Response;

/**
 * Serves Web `Request => Response` handlers (route handlers exported by app/api/…) from a
 * node:http server on a free loopback port, the way Next hands them requests.
 */
export async function serveHandlers(routes: Record<string, Partial<Record<string, WebHandler>>>): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer(async (incoming, outgoing) => {
    try {
      const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`);
      const handler = routes[url.pathname]?.[incoming.method ?? "GET"];
      if (!handler) {
        outgoing.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (typeof value === "string") headers.set(name, value);
        else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      }
      // The whole body is read first, so a handler that refuses early never resets the connection
      // under a client still sending; it reaches the handler as a stream all the same.
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
      const request = new Request(url, {
        method: incoming.method,
        headers,
        body: hasBody ? Readable.toWeb(Readable.from([Buffer.concat(chunks)])) as ReadableStream<Uint8Array> : undefined,
        duplex: "half",
        // `duplex` (required for a streamed body) is in undici's RequestInit, not in the DOM lib's.
      } as RequestInit);
      const response = await handler(request);
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return void outgoing.end();
      // Streamed as it comes, so an SSE answer (an MCP session's GET stream) reaches the client live.
      const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
      outgoing.once("close", () => body.destroy());
      body.pipe(outgoing);
    } catch (error) {
      outgoing.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
