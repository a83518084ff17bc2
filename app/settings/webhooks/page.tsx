import type { Metadata } from "next";
import { CreateWebhookForm } from "@/components/webhooks/create-webhook-form";
import { WebhookList } from "@/components/webhooks/webhook-list";
import { PageHeader } from "@/components/ui/page-header";
import { batonCommand } from "@/lib/paths.mjs";
import { listWebhooks, recentDeliveries } from "@/lib/webhooks";

export const metadata: Metadata = { title: "Webhooks" };
export const dynamic = "force-dynamic";

export default async function WebhooksPage() {
  const hooks = await Promise.all((await listWebhooks()).map(async (hook) => ({ hook, deliveries: await recentDeliveries({ webhookId: hook.id, limit: 10 }) })));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Baton POSTs signed JSON to these URLs when something happens: retried for a day, a hook that keeps failing is paused. The signing secret is shown once."
      />
      <div className="flex flex-col gap-6">
        <CreateWebhookForm />
        <WebhookList hooks={hooks} command={batonCommand()} />
      </div>
    </>
  );
}
