import type { Metadata } from "next";
import { SignInForm } from "@/components/access/sign-in-form";
import { PageHeader } from "@/components/ui/page-header";
import { sameOriginPath } from "@/lib/same-origin-path";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = sameOriginPath((await searchParams).next);
  return (
    <>
      <PageHeader
        title="Sign in"
        description={
          <>
            This Baton needs a token: paste an operator token. Create one on the server with <code>npx baton token create --name NAME --role operator</code>.
          </>
        }
      />
      <SignInForm next={next} />
    </>
  );
}
