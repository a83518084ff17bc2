import "server-only";
import { readBlob } from "../formats/blobs";
import { bundleFormat } from "../formats/bundle";

/** A section of a bundle's summary: "Latest decision", "Open questions", "Tasks", … with its Markdown. */
export type SummarySection = { heading: string; markdown: string };

/** A kept (or exported) bundle as a person reads it: its summary split into its sections, and the files it names. */
export type BundleReading =
  | { status: "ok"; artifactId: string; lead: string; sections: SummarySection[]; files: string[] }
  | { status: "unreadable"; artifactId: string; problem: string };

/**
 * Baton's summaries (lib/formats/summarize-handoff.ts) put each part under a `### ` heading after
 * a lead (the thread's title and cut); a bundle written elsewhere may have none, and then reads as
 * one lead.
 */
function sectionsOf(markdown: string): { lead: string; sections: SummarySection[] } {
  const [lead, ...rest] = markdown.split(/^### /m);
  const sections = rest.map((part) => {
    const newline = part.indexOf("\n");
    return newline === -1 ? { heading: part.trim(), markdown: "" } : { heading: part.slice(0, newline).trim(), markdown: part.slice(newline + 1).trim() };
  });
  return { lead: lead.trim(), sections };
}

/** The stored bundle `artifactId`, read and validated, or what is wrong with it. */
export async function readBundle(artifactId: string): Promise<BundleReading> {
  try {
    const bundle = bundleFormat.parse((await readBlob(artifactId)).toString("utf8"));
    return { status: "ok", artifactId, ...sectionsOf(bundle.summary_markdown), files: bundle.refs.files.map((ref) => ref.path) };
  } catch (error) {
    // Missing, corrupt (bytes no longer hash to the name) or not a bundle: said on the page, not a failed page.
    if (error instanceof Error) return { status: "unreadable", artifactId, problem: error.message };
    throw error;
  }
}
