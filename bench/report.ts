/**
 * The figures benchmarks return and their one printer: a table of each figure next to its
 * reference from the same run and its target (bench/targets.ts) with the verdict, then a note
 * for each target this machine keeps out of reach of any server, Baton or not.
 */
import { TARGETS, type Target, type Unit } from "./targets";

/** One figure of Baton's; `reference` is what the same work measures without Baton in the same run. */
export type Figure = { name: string; value: number; unit: Unit; reference?: { value: number; label: string } };

export const f1 = (value: number) => value.toFixed(1);
export const f2 = (value: number) => value.toFixed(2);
export const perS = (value: number) => `${Math.round(value).toLocaleString("en")}/s`;
export const msOf = (value: number) => `${value < 10 ? f2(value) : f1(value)} ms`;
export const mbOf = (value: number) => `${f1(value)} MB`;

const formats: Record<Unit, (value: number) => string> = { ms: msOf, MB: mbOf, "/s": perS, count: String };

function targetText(target: Target): string {
  if (target.unit === "× reference") return `${target.bound} ×${f2(target.limit)}`;
  if (target.unit === "% of reference") return `${target.bound} ${Math.round(target.limit)} %`;
  if (target.unit === "count" && target.limit === 0) return "0";
  return `${target.bound} ${formats[target.unit](target.limit)}`;
}

/** What `target` bounds of `figure`: the figure itself, its ratio to its reference, or its share in %. */
function boundedValue(figure: Figure, target: Target): number {
  if (target.unit === "× reference" || target.unit === "% of reference") {
    if (!figure.reference) throw new Error(`${figure.name}: its target is relative to a reference, and it has none`);
    const ratio = figure.value / figure.reference.value;
    return target.unit === "× reference" ? ratio : ratio * 100;
  }
  if (target.unit !== figure.unit) throw new Error(`${figure.name} is in ${figure.unit}, its target in ${target.unit}`);
  return figure.value;
}

export type Verdict = { target: Target; met: boolean };

export function verdictOf(figure: Figure): Verdict | null {
  const target = TARGETS.find((candidate) => candidate.figure === figure.name);
  if (!target) return null;
  const value = boundedValue(figure, target);
  return { target, met: target.bound === "≤" ? value <= target.limit : value >= target.limit };
}

function ratioText(figure: Figure): string {
  if (!figure.reference || figure.unit === "count") return "";
  const ratio = figure.value / figure.reference.value;
  return figure.unit === "/s" ? `${Math.round(ratio * 100)} %` : `×${f2(ratio)}`;
}

/** A target on a measured quantity that the reference alone misses. */
function noteOf(figure: Figure, verdict: Verdict | null): string | null {
  const { reference } = figure;
  if (!verdict || !reference || figure.unit === "count" || verdict.target.unit !== figure.unit) return null;
  const { bound, limit } = verdict.target;
  if (bound === "≤" ? reference.value <= limit : reference.value >= limit) return null;
  const format = formats[figure.unit];
  const side = bound === "≤" ? "above" : "below";
  return `${figure.name}: the ${reference.label} alone (${format(reference.value)}) is ${side} the target (${targetText(verdict.target)}) on this machine, before anything Baton adds`;
}

/** Prints `figures` as one table with their targets' verdicts, and the notes under it. */
export function printReport(figures: Figure[]): void {
  const header = { what: "what", baton: "Baton", reference: "reference (same run)", ratio: "ratio", target: "target", met: "met?", issue: "set by" };
  type Row = typeof header;
  const notes: string[] = [];
  const rows: Row[] = figures.map((figure) => {
    const verdict = verdictOf(figure);
    const note = noteOf(figure, verdict);
    if (note) notes.push(note);
    const format = formats[figure.unit];
    return {
      what: figure.name,
      baton: format(figure.value),
      reference: figure.reference ? `${format(figure.reference.value)} ${figure.reference.label}` : "",
      ratio: ratioText(figure),
      target: verdict ? targetText(verdict.target) : "",
      met: verdict ? (verdict.met ? "yes" : "NO") : "",
      issue: verdict ? `issue ${verdict.target.issue}` : "",
    };
  });
  const columns = Object.keys(header) as (keyof Row)[];
  const widths = columns.map((column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: Row) => columns.map((column, index) => row[column].padEnd(widths[index])).join(" | ").trimEnd();
  console.log(`\n${line(header)}\n${widths.map((width) => "-".repeat(width)).join("-|-")}`);
  for (const row of rows) console.log(line(row));
  for (const note of notes) console.log(`note: ${note}`);
}
