import type { Metadata } from "next";
import { ImportForm } from "@/components/import/import-form";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Import" };

export default function ImportPage() {
  return (
    <>
      <PageHeader
        title="Import a handoff"
        description="Handoffs other tools wrote (rip context bundles, handoff.json, flow-guardian's handoff.yaml) become threads on the same timeline. You see the thread and every problem before anything is stored."
      />
      <ImportForm />
    </>
  );
}
