import "react";

// HTML invoker commands (Chromium 135+, Firefox 144+, Safari 26.2+): a button opens or closes a
// dialog natively, so it works before React hydrates. React passes these attributes through to
// the DOM; its typings do not list them yet.
declare module "react" {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- merging must repeat React's type parameter
  interface ButtonHTMLAttributes<T> {
    commandfor?: string;
    command?: "show-modal" | "close" | "request-close";
  }
}
