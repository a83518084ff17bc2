import type { Metadata } from "next";
import { SignInForm } from "@/components/access/sign-in-form";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Sign in" };

/** Only a same-site path may follow sign-in: never another host (`//evil`, `/\\evil`). */
function safeNext(value: string | string[] | undefined): string {
  const next = typeof value === "string" ? value : "/";
  return /^\/(?![/\\])/.test(next) ? next : "/";
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = safeNext((await searchParams).next);
  return (
    <>
      <PageHeader
        title="Sign in"
        description="This Baton needs a token: paste an operator token. Create one on the server with `npx baton token create --name NAME --role operator`."
      />
      <SignInForm next={next} />
    </>
  );
}
