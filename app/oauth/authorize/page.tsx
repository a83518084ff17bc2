import type { Metadata } from "next";
import { headers } from "next/headers";
import { AuthorizationView } from "@/components/oauth/authorization-view";
import { answerPageWith } from "@/lib/server/page-status";
import { authorizationParamsOf, checkAuthorizationRequest, oauthUrls, publicBaseUrl } from "@/lib/oauth";

export const metadata: Metadata = { title: "Connect a client" };
export const dynamic = "force-dynamic";

/**
 * The consent page of the authorization endpoint. The guard sends a browser without a session to
 * /sign-in first, with this whole URL as `next`. It never redirects: a request that cannot be
 * used is shown here, and only the operator's Approve or Deny sends the browser to the client.
 */
export default async function AuthorizePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { params, repeated } = authorizationParamsOf(await searchParams);
  const { resource } = oauthUrls(publicBaseUrl((await headers()).get("host")));
  const check = await checkAuthorizationRequest(params, resource, repeated);
  // A request that cannot be used is bad input: a 400, its reason shown as the page.
  if (!check.ok) answerPageWith(400);
  return <AuthorizationView check={check} params={params} />;
}
