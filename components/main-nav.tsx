"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, type ReactNode } from "react";
import { SignOutButton } from "@/components/access/sign-out-button";
import { SHORTCUTS_DIALOG_ID } from "@/components/keyboard-shortcuts";
import { BrowserNotifications } from "@/components/notifications/browser-notifications";
import { ThemeToggle } from "@/components/theme-toggle";

const LINKS = [
  { href: "/", label: "Handoffs", matches: (path: string) => path === "/" || path.startsWith("/handoffs") },
  { href: "/agents", label: "Agents", matches: (path: string) => path.startsWith("/agents") },
  { href: "/import", label: "Import", matches: (path: string) => path.startsWith("/import") },
  { href: "/connect", label: "Connect", matches: (path: string) => path.startsWith("/connect") },
  { href: "/settings/tokens", label: "Tokens", matches: (path: string) => path.startsWith("/settings/tokens") },
  { href: "/settings/webhooks", label: "Webhooks", matches: (path: string) => path.startsWith("/settings/webhooks") },
];

const MENU_ID = "main-menu";

function Brand() {
  return (
    <Link href="/" className="flex items-center gap-2 text-lg font-bold tracking-tight text-slate-900">
      <span aria-hidden className="inline-block h-3 w-6 rounded-full bg-indigo-600" />
      Baton
    </Link>
  );
}

/**
 * The header. Signed out (the sign-in page), it shows only the name and the theme: the desk's
 * pages are not theirs to see. On small screens the links fold into a menu (a native popover,
 * so it opens before React hydrates and closes on Escape or a click outside).
 */
/** `attentionCount`: what needs the operator, rendered on the server (app/attention-count.tsx), streamed in when ready. */
export function MainNav({ operator, signedInAs, attentionCount }: { operator: boolean; signedInAs: string | null; attentionCount: ReactNode }) {
  const pathname = usePathname();
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A link in the open menu navigates without reloading: close the menu when the page changes.
    if (menu.current?.matches(":popover-open")) menu.current.hidePopover();
  }, [pathname]);

  if (!operator) {
    return (
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3 sm:px-6">
          <Brand />
          <ThemeToggle />
        </div>
      </header>
    );
  }
  return (
    <header className="border-b border-slate-200 bg-white">
      <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6">
        <Brand />
        {attentionCount}
        <button
          type="button"
          popoverTarget={MENU_ID}
          className="order-last rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 md:hidden"
        >
          Menu
        </button>
        <div
          ref={menu}
          id={MENU_ID}
          popover="auto"
          className="max-md:inset-auto max-md:top-14 max-md:right-2 max-md:left-2 max-md:m-0 max-md:w-auto max-md:flex-col max-md:items-stretch max-md:gap-2 max-md:rounded-lg max-md:border max-md:border-slate-200 max-md:bg-white max-md:p-3 max-md:text-slate-900 max-md:shadow-xl max-md:open:flex md:static md:m-0 md:flex md:w-auto md:flex-1 md:items-center md:gap-4 md:overflow-visible md:border-0 md:bg-transparent md:p-0 md:text-inherit"
        >
          <ul className="flex flex-col gap-1 text-sm md:flex-row md:flex-wrap md:items-center">
            {LINKS.map((link) => {
              const active = link.matches(pathname);
              return (
                <li key={link.href}>
                  <Link
                    href={link.href}
                    aria-current={active ? "page" : undefined}
                    className={`block rounded-md px-3 py-1.5 font-medium ${
                      active ? "bg-indigo-50 text-indigo-800" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"
                    }`}
                  >
                    {link.label}
                  </Link>
                </li>
              );
            })}
          </ul>
          <div className="flex flex-wrap items-center gap-2 border-t border-slate-200 pt-2 md:ml-auto md:border-0 md:pt-0">
            <BrowserNotifications />
            <ThemeToggle />
            <button
              type="button"
              commandfor={SHORTCUTS_DIALOG_ID}
              command="show-modal"
              onClick={() => {
                const dialog = document.getElementById(SHORTCUTS_DIALOG_ID) as HTMLDialogElement | null;
                if (!dialog?.open) dialog?.showModal();
              }}
              title="Keyboard shortcuts (?)"
              className="rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 md:px-2"
            >
              <span aria-hidden className="hidden font-mono md:inline">
                ?
              </span>
              <span className="md:sr-only">Keyboard shortcuts</span>
            </button>
            {signedInAs && <SignOutButton name={signedInAs} />}
          </div>
        </div>
        <Link
          href="/handoffs/new"
          className="ml-auto rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-semibold text-on-accent hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 md:ml-0 dark:hover:bg-indigo-500"
        >
          New handoff
        </Link>
      </nav>
    </header>
  );
}
