"use client";

import type { ComponentProps } from "react";
import { useDismissableDetails } from "./use-dismissable-details";

/** A <details> menu that closes on Escape and on a click or focus outside it; its children may be server-rendered. */
export function DismissableDetails(props: Omit<ComponentProps<"details">, "ref">) {
  const ref = useDismissableDetails();
  return <details ref={ref} {...props} />;
}
