import { bundleFormat } from "./bundle";
import { handoffJsonFormat } from "./handoff-json";
import { handoffYamlFormat } from "./handoff-yaml";
import type { FormatModule, SourceFormat } from "./types";

/** Every format Baton reads and writes, by its id. */
export const FORMATS: { [Format in SourceFormat]: FormatModule<unknown> } = {
  bundle: bundleFormat as FormatModule<unknown>,
  handoff_json: handoffJsonFormat as FormatModule<unknown>,
  handoff_yaml: handoffYamlFormat as FormatModule<unknown>,
};
