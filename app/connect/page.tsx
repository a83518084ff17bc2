import type { Metadata } from "next";
import { headers } from "next/headers";
import { ConnectGuide } from "@/components/connect/connect-guide";
import { PageHeader } from "@/components/ui/page-header";
import { connectSettings } from "@/lib/dashboard/connect-settings";

export const metadata: Metadata = { title: "Connect Claude" };

export default async function ConnectPage() {
  const settings = connectSettings((await headers()).get("host"));
  return (
    <>
      <PageHeader
        title="Connect Claude"
        description={
          <>
            Each Claude client talks to this Baton at <span className="font-mono break-all">{settings.baseUrl}</span> through its MCP
            tools: chat clients (Claude Desktop, claude.ai) write decisions, Claude Code writes the implementation.
          </>
        }
      />
      <ConnectGuide settings={settings} heading="h2" />
    </>
  );
}
