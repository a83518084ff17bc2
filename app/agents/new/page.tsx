import type { Metadata } from "next";
import { RegisterAgentForm } from "@/components/agents/register-agent-form";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Register agent" };

export default function RegisterAgentPage() {
  return (
    <>
      <PageHeader
        title="Register agent"
        description="Start an agent at the head of a new continuity chain. Agents can also register themselves through MCP."
      />
      <RegisterAgentForm />
    </>
  );
}
