"use client";

import { RouteError } from "@/components/ui/route-states";

export default function NewHandoffError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return <RouteError error={error} reset={reset} what="the new handoff form" />;
}
