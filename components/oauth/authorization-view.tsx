import { ConsentForm } from "@/components/oauth/consent-form";
import { PageHeader } from "@/components/ui/page-header";
import type { AuthorizationCheck, AuthorizationParams } from "@/lib/oauth";

/**
 * What /oauth/authorize shows for a checked request: the consent form, or why the request cannot
 * be used. Never a redirect: the browser goes to the client only from the operator's decision.
 */
export function AuthorizationView({ check, params }: { check: AuthorizationCheck; params: AuthorizationParams }) {
  if (!check.ok) {
    return (
      <>
        <PageHeader title="This connection request cannot be used" />
        <div role="alert" className="max-w-xl rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          <p className="break-words">{check.message}.</p>
          <p className="mt-2">Nothing was approved and you were not sent anywhere. Start the connection again from the client.</p>
        </div>
      </>
    );
  }
  const { request } = check;
  return (
    <>
      <PageHeader title="Connect a client" description="A remote MCP client asks to use Baton's tools on your behalf." />
      <ConsentForm clientName={request.client.name} redirectUri={request.redirectUri} params={{ ...params, redirect_uri: request.redirectUri }} />
    </>
  );
}
