import ReactMarkdown, { defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";

const SAFE_PROTOCOL = /^(https?:|mailto:|#|\/)/i;

/** Only http(s), mailto, in-page and site-relative links survive; anything else becomes inert. */
function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return SAFE_PROTOCOL.test(cleaned) ? cleaned : "";
}

/**
 * Markdown from agents and documents. Raw HTML is never interpreted (react-markdown escapes
 * it), so `<script>` or `onerror=` payloads show as text; links open safely in a new tab.
 */
export function Markdown({ children }: { children: string }) {
  return (
    <div className="prose-baton">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml={false}
        urlTransform={safeUrl}
        components={{
          a: ({ href, children: label }) => (
            <a href={href || undefined} target="_blank" rel="noopener noreferrer nofollow">
              {label}
            </a>
          ),
          img: ({ alt }) => <span className="italic text-slate-600">[image: {alt || "no description"}]</span>,
        }}
      >
        {children}
      </ReactMarkdown>
    </div>
  );
}
