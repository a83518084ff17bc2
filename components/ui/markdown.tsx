import ReactMarkdown, { defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { isValidElement, type ReactNode } from "react";
import type { Nodes, Root } from "mdast";
import { markdownTooDeep } from "@/lib/nesting";
import { visibleBidiControls } from "@/lib/validation";
import { CodeBlock } from "./code-block";

/** The text of a fenced block: react-markdown hands `pre` one `code` element holding it. */
function textOf(node: ReactNode): string {
  if (typeof node === "string") return node;
  if (Array.isArray(node)) return node.map(textOf).join("");
  return isValidElement<{ children?: ReactNode }>(node) ? textOf(node.props.children) : "";
}

const SAFE_PROTOCOL = /^(https?:|mailto:|#|\/)/i;

/** Only http(s), mailto, in-page and site-relative links survive; anything else becomes inert. */
function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return SAFE_PROTOCOL.test(cleaned) ? cleaned : "";
}

function showBidiControlsIn(node: Nodes): void {
  if (node.type === "text" || node.type === "inlineCode" || node.type === "code") node.value = visibleBidiControls(node.value);
  if ("children" in node) node.children.forEach(showBidiControlsIn);
}

/** A right-to-left override in an entry reorders the words after it: the entry shows it as an escape (as titles do). */
const remarkShowBidiControls = () => (tree: Root) => showBidiControlsIn(tree);

/**
 * Markdown from agents and documents. Raw HTML is never interpreted (react-markdown escapes
 * it), so `<script>` or `onerror=` payloads show as text; links open safely in a new tab. Text
 * nested deeper than any real document (quotes in quotes, lists in lists, emphasis in emphasis)
 * is shown as plain text: parsing and rendering it would take minutes or overflow the stack.
 */
export function Markdown({ children }: { children: string }) {
  if (markdownTooDeep(children)) {
    return (
      <div className="prose-baton">
        <p className="whitespace-pre-wrap break-words" data-plain-text="too-deep">
          {visibleBidiControls(children)}
        </p>
      </div>
    );
  }
  return (
    <div className="prose-baton">
      <ReactMarkdown
        remarkPlugins={[remarkGfm, remarkShowBidiControls]}
        skipHtml={false}
        urlTransform={safeUrl}
        components={{
          a: ({ href, children: label }) => (
            <a href={href || undefined} target="_blank" rel="noopener noreferrer nofollow">
              {label}
            </a>
          ),
          pre: ({ children: code }) => <CodeBlock text={textOf(code)}>{code}</CodeBlock>,
          // GFM task lists ("- [x] done"): a read-only box that says what it shows (an unlabelled one fails axe).
          input: ({ type, checked }) =>
            type === "checkbox" ? (
              <input type="checkbox" checked={Boolean(checked)} readOnly disabled aria-label={checked ? "Done" : "Not done"} className="mr-1.5 align-middle" />
            ) : null,
          img: ({ alt }) => <span className="italic text-slate-600">[image: {alt || "no description"}]</span>,
          // Headings written by agents are styled, not added to the page's outline: an entry's
          // "# Plan" must not break the heading order of the page around it.
          h1: ({ children: text }) => <p className="md-heading text-lg">{text}</p>,
          h2: ({ children: text }) => <p className="md-heading text-base">{text}</p>,
          h3: ({ children: text }) => <p className="md-heading text-sm">{text}</p>,
          h4: ({ children: text }) => <p className="md-heading text-sm">{text}</p>,
          h5: ({ children: text }) => <p className="md-heading text-sm">{text}</p>,
          h6: ({ children: text }) => <p className="md-heading text-sm">{text}</p>,
        }}
      >
        {children}
      </ReactMarkdown>
    </div>
  );
}
