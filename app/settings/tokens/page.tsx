import type { Metadata } from "next";
import { CreateTokenForm } from "@/components/access/create-token-form";
import { TokenList } from "@/components/access/token-list";
import { PageHeader } from "@/components/ui/page-header";
import { listTokens } from "@/lib/auth";

export const metadata: Metadata = { title: "Access tokens" };
export const dynamic = "force-dynamic";

export default async function TokensPage() {
  const tokens = await listTokens();
  return (
    <>
      <PageHeader
        title="Access tokens"
        description="Named tokens for agents (MCP, REST) and operators (sign-in). A token is shown once and stored only as a hash; revoking takes effect on the next request."
      />
      <div className="flex flex-col gap-6">
        <CreateTokenForm />
        <TokenList tokens={tokens} />
      </div>
    </>
  );
}
