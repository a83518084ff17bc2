import Link from "next/link";
import type { ReactNode } from "react";
import { CommandBlock } from "@/components/ui/command-block";
import type { ConnectSettings } from "@/lib/dashboard/connect-settings";

/** A word for a shell: as it is when it needs no quoting, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

type HeadingTag = "h2" | "h3";

function Step({ id, title, lead, check, heading: Heading, children }: { id: string; title: string; lead: ReactNode; check: ReactNode; heading: HeadingTag; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} data-testid={`connect-step-${id}`} className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
      <Heading id={`${id}-heading`} className="text-base font-semibold text-slate-900">
        {title}
      </Heading>
      <div className="text-sm text-slate-700">{lead}</div>
      {children}
      <p className="text-sm text-slate-700">
        <span className="font-semibold text-emerald-800">Check it worked:</span> {check}
      </p>
    </section>
  );
}

const kbd = (text: string) => <code className="rounded bg-slate-100 px-1 font-mono text-[0.85em] text-slate-800">{text}</code>;

/**
 * How to connect each Claude client to this Baton, with this server's own address and files
 * filled in: Claude Code (stdio and HTTP, acting as code), Claude Desktop, claude.ai and the
 * mobile apps (a connector), and the PreCompact hook. Each says how to check it worked.
 */
/**
 * `heading`: the level of each client's heading, under the page's own. `foldOthers`: the
 * recommended path (Claude Code on this machine, with this desk) first, every other way folded.
 */
export function ConnectGuide({ settings, heading, foldOthers = false }: { settings: ConnectSettings; heading: HeadingTag; foldOthers?: boolean }) {
  const { cli, env, mcpUrl, baseUrl } = settings;
  const envFlags = Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
  const stdio = ["claude", "mcp", "add", "baton", "--scope", "user", ...envFlags, "--", ...cli, "mcp", "--as", "code"].map(shellWord).join(" ");
  const http = ["claude", "mcp", "add", "--transport", "http", "baton", `${mcpUrl}?as=code`].map((word) => (word.includes("?") ? `"${word}"` : shellWord(word))).join(" ");
  const desktop = json({ mcpServers: { baton: { command: cli[0], args: [cli[1], "mcp"], ...(Object.keys(env).length ? { env } : {}) } } });
  const hookCommand = [...cli, "checkpoint", "--hook", "--push"].map(shellWord).join(" ");
  const hook = json({ hooks: { PreCompact: [{ matcher: "", hooks: [{ type: "command", command: hookCommand, timeout: 60 }] }] } });
  const firstCheckpoint = [...cli, "checkpoint", "--goal", "What this project is doing", "--now", "What you are doing now"].map(shellWord).join(" ");
  const others = (
    <>
      <Step
        heading={heading}
        id="code-http"
        title="Claude Code over HTTP"
        lead={
          <p>
            The same tools from this server at <span className="font-mono break-all">{baseUrl}</span>. From another machine, add{" "}
            {kbd('--header "Authorization: Bearer <token>"')} with an agent token from{" "}
            <Link href="/settings/tokens" className="text-indigo-700 underline">
              Tokens
            </Link>
            .
          </p>
        }
        check={<>{kbd("claude mcp list")} shows {kbd("baton")} as <em>Connected</em> (or <em>Needs authentication</em> without a token from afar).</>}
      >
        <CommandBlock text={http} copyLabel="Copy command" testId="connect-http-command" />
      </Step>
      <Step
        heading={heading}
        id="desktop"
        title="Claude Desktop"
        lead={
          <p>
            In Claude Desktop: <em>Settings → Developer → Edit Config</em>, put this in {kbd("claude_desktop_config.json")} (merge it
            into an existing {kbd("mcpServers")}), then quit and reopen Claude Desktop. It writes as <strong>chat</strong> (decisions).
          </p>
        }
        check={<>Settings → Developer lists {kbd("baton")} as <em>running</em>, and a new chat&apos;s tools menu shows Baton&apos;s tools.</>}
      >
        <CommandBlock text={desktop} copyLabel="Copy config" testId="connect-desktop-config" />
      </Step>
      <Step
        heading={heading}
        id="connector"
        title="claude.ai and the Claude mobile apps"
        lead={
          <>
            <p>
              In claude.ai: <em>Settings → Connectors → Add custom connector</em>, name it Baton and paste this address; leave the
              OAuth fields empty. Connectors added on claude.ai appear in the mobile apps too.
            </p>
            {!settings.https && (
              <p className="mt-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-amber-900">
                claude.ai reaches Baton only at a public https address. Put a reverse proxy in front of it and set{" "}
                {kbd("BATON_PUBLIC_URL")} (see the README, <em>Exposing Baton over HTTPS</em>); this address then becomes the public one.
              </p>
            )}
          </>
        }
        check={
          <>
            <em>Connect</em> opens Baton&apos;s consent page; after <em>Approve</em>,{" "}
            <Link href="/settings/tokens" className="text-indigo-700 underline">
              Tokens
            </Link>{" "}
            lists the connector&apos;s grant with its last use.
          </>
        }
      >
        <CommandBlock text={mcpUrl} copyLabel="Copy address" testId="connect-connector-url" />
      </Step>
      <Step
        heading={heading}
        id="hook"
        title="Save before Claude Code compacts (PreCompact hook)"
        lead={
          <p>
            In a project&apos;s {kbd(".claude/settings.local.json")} (yours alone: the command names this machine&apos;s paths, and{" "}
            {kbd(".claude/settings.json")} is shared through git): before every compaction the working state is saved to{" "}
            {kbd(".flow-guardian/handoff.yaml")} and mirrored into a handoff here. Save once by hand first (the hook only updates):
          </p>
        }
        check={
          <>
            after {kbd("/compact")}, {kbd(".flow-guardian/handoff.yaml")} has a new timestamp and the project&apos;s handoff on the desk a new{" "}
            <em>progress</em> entry.
          </>
        }
      >
        <CommandBlock text={firstCheckpoint} copyLabel="Copy first save" testId="connect-first-checkpoint" />
        <CommandBlock text={hook} copyLabel="Copy hook" testId="connect-hook" />
      </Step>
    </>
  );
  return (
    <div className="flex flex-col gap-4">
      <Step
        heading={heading}
        id="code-stdio"
        title={foldOthers ? "Recommended: Claude Code on this machine, with this desk" : "Claude Code on this machine"}
        lead={
          <p>
            Run this once in a terminal. Claude Code then starts Baton&apos;s MCP server itself and writes as <strong>code</strong> (the
            implementation side) into this Baton&apos;s data.
          </p>
        }
        check={
          <>
            {kbd("claude mcp list")} shows {kbd("baton")} as <em>Connected</em>; in a session, {kbd("/mcp")} lists Baton&apos;s tools.
          </>
        }
      >
        <CommandBlock text={stdio} copyLabel="Copy command" testId="connect-stdio-command" />
      </Step>
      {foldOthers ? (
        <details className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
          <summary className="cursor-pointer text-sm font-semibold text-slate-900">Other ways: Claude Code over HTTP, Claude Desktop, claude.ai and mobile, saving before compaction</summary>
          <div className="mt-4 flex flex-col gap-4">{others}</div>
        </details>
      ) : (
        others
      )}
    </div>
  );
}
