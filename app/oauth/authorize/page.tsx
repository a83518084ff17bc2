import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { ConsentForm } from "@/components/oauth/consent-form";
import { PageHeader } from "@/components/ui/page-header";
import { AUTHORIZATION_PARAM_NAMES, checkAuthorizationRequest, oauthUrls, publicBaseUrl, type AuthorizationParams } from "@/lib/oauth";

export const metadata: Metadata = { title: "Connect a client" };
export const dynamic = "force-dynamic";

/**
 * The consent page of the authorization endpoint. The guard sends a browser without a session to
 * /sign-in first, with this whole URL as `next`. No loading.tsx here: a bad request after the
 * client is known redirects back to the client, and a redirect is only a real 307 before anything
 * streams.
 */
export default async function AuthorizePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const params: AuthorizationParams = {};
  for (const name of AUTHORIZATION_PARAM_NAMES) {
    const value = query[name];
    if (typeof value === "string") params[name] = value;
  }
  const { resource } = oauthUrls(publicBaseUrl((await headers()).get("host")));
  const checked = checkAuthorizationRequest(params, resource);
  if (!checked.ok && checked.redirect) redirect(checked.redirect);
  if (!checked.ok) {
    return (
      <>
        <PageHeader title="This connection request cannot be used" />
        <div role="alert" className="max-w-xl rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-800">
          <p>{checked.message}.</p>
          <p className="mt-2">Nothing was approved and you were not sent anywhere. Start the connection again from the client.</p>
        </div>
      </>
    );
  }
  const { request } = checked;
  const hidden: AuthorizationParams = { ...params, redirect_uri: request.redirectUri };
  return (
    <>
      <PageHeader title="Connect a client" description="A remote MCP client asks to use Baton's tools on your behalf." />
      <ConsentForm clientName={request.client.name} redirectHost={new URL(request.redirectUri).host} params={hidden} />
    </>
  );
}
