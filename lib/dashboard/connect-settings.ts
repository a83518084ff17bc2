import "server-only";
import path from "node:path";
import { MCP_PATH, publicBaseUrl } from "../oauth/urls";
import { withoutCredentials } from "../url-credentials";

/** What the Connect page fills into the commands and configs it shows: this server's own addresses and files. */
export type ConnectSettings = {
  /** The origin clients reach this server at: BATON_PUBLIC_URL, else the request's Host. */
  baseUrl: string;
  /** The MCP endpoint over HTTP. */
  mcpUrl: string;
  /** `node <checkout>/bin/baton.mjs`: the CLI of the checkout this server runs from. */
  cli: string[];
  /**
   * Environment the stdio server needs to open this server's data (set only when it is not the
   * checkout's `data/`). Never a credential: any operator, remote ones included, sees this page.
   */
  env: Record<string, string>;
  /** Whether the address is https: claude.ai and the Claude apps reach only a public https address. */
  https: boolean;
};

/** The settings for a page served at `host` (the request's Host header, which the guard allowed). */
export function connectSettings(host: string | null): ConnectSettings {
  const baseUrl = publicBaseUrl(host);
  // The server runs from its checkout (npm start, scripts/serve.ts), whose bin/ holds the CLI.
  const cli = ["node", path.join(/*turbopackIgnore: true*/ process.cwd(), "bin", "baton.mjs")];
  const env: Record<string, string> = {};
  for (const name of ["BATON_DATA_DIR", "DATABASE_URL"] as const) {
    const value = process.env[name];
    if (value) env[name] = name === "BATON_DATA_DIR" ? path.resolve(/*turbopackIgnore: true*/ value) : withoutCredentials(value, { keepUserName: true });
  }
  return { baseUrl, mcpUrl: `${baseUrl}${MCP_PATH}`, cli, env, https: baseUrl.startsWith("https://") };
}
