"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { SignOutButton } from "@/components/access/sign-out-button";
import { BrowserNotifications } from "@/components/notifications/browser-notifications";

const LINKS = [
  { href: "/", label: "Handoffs", matches: (path: string) => path === "/" || path.startsWith("/handoffs") },
  { href: "/agents", label: "Agents", matches: (path: string) => path.startsWith("/agents") },
  { href: "/import", label: "Import", matches: (path: string) => path.startsWith("/import") },
  { href: "/settings/tokens", label: "Tokens", matches: (path: string) => path.startsWith("/settings/tokens") },
  { href: "/settings/webhooks", label: "Webhooks", matches: (path: string) => path.startsWith("/settings/webhooks") },
];

/** `signedInAs`: the token name of a signed-in operator (none on the open loopback desk). */
export function MainNav({ signedInAs }: { signedInAs: string | null }) {
  const pathname = usePathname();
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
        <Link href="/" className="flex items-center gap-2 text-lg font-bold tracking-tight text-slate-900">
          <span aria-hidden className="inline-block h-3 w-6 rounded-full bg-indigo-600" />
          Baton
        </Link>
        <ul className="flex flex-wrap items-center gap-1 text-sm">
          {LINKS.map((link) => {
            const active = link.matches(pathname);
            return (
              <li key={link.href}>
                <Link
                  href={link.href}
                  aria-current={active ? "page" : undefined}
                  className={`rounded-md px-3 py-1.5 font-medium ${
                    active ? "bg-indigo-50 text-indigo-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"
                  }`}
                >
                  {link.label}
                </Link>
              </li>
            );
          })}
        </ul>
        <BrowserNotifications />
        {signedInAs && <SignOutButton name={signedInAs} />}
        <Link
          href="/handoffs/new"
          className="ml-auto rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          New handoff
        </Link>
      </nav>
    </header>
  );
}
