import { Invalid } from "../errors";
import { parseJsonText, parseYamlText, refuseUnreadable } from "./schema-helpers";
import { FORMAT_ALIASES, type SourceFormat } from "./types";

/** `read`: the document as detection parsed it, and with which syntax, for the import to use again. */
export type Detection = { format: SourceFormat; reason: string; read?: { syntax: "json" | "yaml"; value: unknown } };

/** The top-level keys that mark each format, in the order a tie goes. */
const FORMAT_KEYS: [SourceFormat, string[]][] = [
  ["bundle", ["schema", "summary_markdown", "refs"]],
  ["handoff_json", ["current_story", "handoff_instruction", "work_in_progress", "context_learned", "blockers", "reason"]],
  ["handoff_yaml", ["goal", "now", "status", "hypothesis", "outcome"]],
];

function unknownDocument(): Invalid {
  const message =
    "not a handoff document Baton knows: expected a rip context bundle (a \"schema\" key), a handoff.json (current_story, handoff_instruction …) or a handoff.yaml (goal, status, now)";
  return new Invalid(message, { "(document)": [message] });
}

/**
 * The format whose keys the document has most of (a tie goes to the earlier in FORMAT_KEYS).
 * Every format keeps keys it does not know, so one key is not enough: a handoff.yaml with a
 * `reason` was read as a handoff.json, a handoff.json with a `schema` as a bundle, and refused.
 * Text that is not JSON is a handoff.yaml once it has one of its keys (the other two are JSON).
 */
function fromKeys(value: unknown, fileName: string, isJson: boolean): Detection | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  let best: { format: SourceFormat; keys: string[] } | null = null;
  for (const [format, keys] of FORMAT_KEYS) {
    const present = keys.filter((key) => Object.hasOwn(record, key));
    const wins = present.length > (best?.keys.length ?? 0) || (!isJson && format === "handoff_yaml" && present.length > 0);
    if (wins) best = { format, keys: present };
  }
  if (best) return { format: best.format, reason: `it has ${best.keys.slice(0, 2).map((key) => `"${key}"`).join(" and ")}` };
  if (/bundle/i.test(fileName)) return { format: "bundle", reason: "the file name says bundle" };
  if (/\.json$/i.test(fileName)) return { format: "handoff_json", reason: "the file name ends in .json" };
  return null;
}

/**
 * Which format a document is in: by its keys (a bundle has `schema`, handoff.json has
 * `current_story` …, handoff.yaml has `goal`/`now`), falling back on the file name. Text that is
 * neither JSON nor YAML, or has none of these keys, is refused with a `(document)` error.
 */
export function detectFormat(text: string, fileName = ""): Detection {
  const extension = fileName.toLowerCase().match(/\.([a-z]+)$/)?.[1] ?? "";
  const trimmed = text.trimStart();
  const isJson = trimmed.startsWith("{") || trimmed.startsWith("[");
  if (extension === "yaml" || extension === "yml") {
    const value = parseYamlText(text);
    return { ...(fromKeys(value, fileName, isJson) ?? { format: "handoff_yaml", reason: "the file name ends in .yaml" }), read: { syntax: "yaml", value } };
  }
  const looksLikeJson = extension === "json" || isJson;
  const value = looksLikeJson ? parseJsonText(text) : parseYamlText(text);
  const detected = fromKeys(value, fileName, looksLikeJson);
  if (!detected) throw unknownDocument();
  // JSON with handoff.yaml's keys is read as YAML from here on (the secrets pass, the import):
  // YAML's limits hold for it before either starts (60,000 keys held the server 1-2 s here).
  if (looksLikeJson && detected.format === "handoff_yaml") refuseUnreadable(text, "yaml");
  return { ...detected, read: { syntax: looksLikeJson ? "json" : "yaml", value } };
}

/**
 * A format the caller chose, its text checked as detection's parse checks it first: a document
 * over 1 MiB or nested past 64 levels is refused before the secrets pass walks its value, which a
 * list nested 200,000 deep beside a secret sent past the stack (a 500).
 */
export function chosenFormat(name: string, text: string): Detection {
  const format = formatNamed(name);
  refuseUnreadable(text, format === "handoff_yaml" ? "yaml" : "json");
  return { format, reason: "you chose it" };
}

/** A format named by a person (`json`, `yaml`, `bundle`, `handoff_json` …), or an Invalid listing them. */
export function formatNamed(name: string, field = "format"): SourceFormat {
  const key = name.trim().toLowerCase();
  if (key === "") throw new Invalid(`${field} is required: bundle, json or yaml`, { [field]: ["is required: bundle, json or yaml"] });
  // Own keys only: `constructor` or `__proto__` must not find Object.prototype's members.
  const format = Object.hasOwn(FORMAT_ALIASES, key) ? FORMAT_ALIASES[key] : undefined;
  if (!format) throw new Invalid(`unknown format ${JSON.stringify(name.slice(0, 40))}: use bundle, json or yaml`, { [field]: ["must be bundle, json or yaml"] });
  return format;
}
