import type { Metadata } from "next";
import { SignInForm } from "@/components/access/sign-in-form";
import { PageHeader } from "@/components/ui/page-header";
import { currentCaller } from "@/lib/caller";
import { batonCommand } from "@/lib/paths.mjs";
import { sameOriginPath } from "@/lib/same-origin-path";

export const metadata: Metadata = { title: "Sign in" };


export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const next = sameOriginPath((await searchParams).next);
  // The open desk (this machine, BATON_AUTH not required) needs no token: say so rather than ask for one.
  const openDesk = currentCaller().who.kind === "desk";
  const createToken = <code>{batonCommand()} token create --name NAME --role operator</code>;
  return (
    <>
      <PageHeader
        title="Sign in"
        description={
          openDesk ? (
            <>
              This desk is open on this machine: no token is needed here. A token is for signing in from another machine, or from any
              machine when the server runs with <code>BATON_AUTH=required</code>. Create one with {createToken}.
            </>
          ) : (
            <>This Baton needs a token: paste an operator token. Create one on the server with {createToken}.</>
          )
        }
      />
      <SignInForm next={next} />
    </>
  );
}
