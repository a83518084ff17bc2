import { Invalid } from "../errors";
import { parseJsonText, parseYamlText } from "./schema-helpers";
import { FORMAT_ALIASES, type SourceFormat } from "./types";

export type Detection = { format: SourceFormat; reason: string };

const JSON_KEYS = ["current_story", "handoff_instruction", "work_in_progress", "context_learned", "blockers", "reason"];
const YAML_KEYS = ["goal", "now", "status", "hypothesis", "outcome"];

const has = (value: Record<string, unknown>, keys: string[]) => keys.filter((key) => key in value);

function unknownDocument(): Invalid {
  const message =
    "not a handoff document Baton knows: expected a rip context bundle (a \"schema\" key), a handoff.json (current_story, handoff_instruction …) or a handoff.yaml (goal, status, now)";
  return new Invalid(message, { "(document)": [message] });
}

function fromKeys(value: unknown, fileName: string): Detection | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if ("schema" in record) return { format: "bundle", reason: 'it has a "schema" key' };
  const jsonKeys = has(record, JSON_KEYS);
  if (jsonKeys.length > 0) return { format: "handoff_json", reason: `it has ${jsonKeys.slice(0, 2).join(" and ")}` };
  const yamlKeys = has(record, YAML_KEYS);
  if (yamlKeys.length > 0) return { format: "handoff_yaml", reason: `it has ${yamlKeys.slice(0, 2).join(" and ")}` };
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
  if (extension === "yaml" || extension === "yml") {
    return fromKeys(parseYamlText(text), fileName) ?? { format: "handoff_yaml", reason: "the file name ends in .yaml" };
  }
  const trimmed = text.trimStart();
  const looksLikeJson = extension === "json" || trimmed.startsWith("{") || trimmed.startsWith("[");
  const value = looksLikeJson ? parseJsonText(text) : parseYamlText(text);
  const detected = fromKeys(value, fileName);
  if (!detected) throw unknownDocument();
  return detected;
}

/** A format named by a person (`json`, `yaml`, `bundle`, `handoff_json` …), or an Invalid listing them. */
export function formatNamed(name: string, field = "format"): SourceFormat {
  const key = name.trim().toLowerCase();
  // Own keys only: `constructor` or `__proto__` must not find Object.prototype's members.
  const format = Object.hasOwn(FORMAT_ALIASES, key) ? FORMAT_ALIASES[key] : undefined;
  if (!format) throw new Invalid(`unknown format ${JSON.stringify(name.slice(0, 40))}: use bundle, json or yaml`, { [field]: ["must be bundle, json or yaml"] });
  return format;
}
