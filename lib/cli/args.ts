import "server-only";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { MAX_INT4 } from "../database";
import { quotedOneLine } from "../one-line";
import { visibleControls, wholeNumberParam } from "../validation";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/**
 * Writes `baton <command>: <message>` and the usage to stderr; returns exit code 2. The message
 * may quote what was typed (parseArgs quotes an unknown option): its control characters are shown
 * as escapes, never sent to the terminal.
 */
export function usageError(command: string, message: string, usage: string): number {
  process.stderr.write(`baton ${command}: ${visibleControls(message)}\n\n${usage}\n`);
  return 2;
}

/**
 * A command's arguments (with --help/-h added), or the exit code when the command ends here:
 * 0 after printing the usage for --help, 2 after an unknown option, a missing value, or a value
 * option given twice (parseArgs keeps the last: `--events question.asked --events entry.created`
 * registered a hook for entry.created alone, without a word), or a value that was not UTF-8.
 */
export function parseCommandArgs<const Options extends OptionsConfig, const Positionals extends boolean = false>(
  command: string,
  usage: string,
  args: string[],
  config: { options: Options; allowPositionals?: Positionals },
) {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, tokens: true, allowPositionals: config.allowPositionals, options: { ...config.options, ...HELP_OPTION } });
  } catch (error) {
    return usageError(command, (error as Error).message, usage);
  }
  // Node reads arguments as UTF-8 and puts U+FFFD for each byte that is not: a terminal or script
  // in Latin-1 had `--goal "café"` saved as "caf\ufffd" without a word.
  for (const token of parsed.tokens) {
    const value = token.kind === "option" ? token.value : token.kind === "positional" ? token.value : undefined;
    if (value?.includes("\ufffd")) {
      const named = token.kind === "option" ? `--${token.name}` : `the argument ${quotedOneLine(value)}`;
      return usageError(command, `${named} is not UTF-8 text (it holds U+FFFD, which stands in for bytes that are not); give it in UTF-8 (a terminal or script set to Latin-1 sends other bytes)`, usage);
    }
  }
  const given = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== "option" || token.value === undefined || config.options[token.name]?.multiple) continue;
    if (given.has(token.name)) return usageError(command, `--${token.name} is given more than once; give it once`, usage);
    given.add(token.name);
  }
  if ("help" in parsed.values && parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return parsed;
}

/**
 * A whole-number argument (an entry's seq, a webhook's id) read by the rule the REST door reads
 * page numbers by: plain decimal digits, 1 to MAX_INT4. `1e3`, `0x10` or `1.0` are refused, where
 * the domain's coercion would read `1e3` as 1000.
 */
export function wholeNumberArgument(name: string, value: string): { value: number } | { refused: string } {
  const parsed = wholeNumberParam(name, 1, MAX_INT4).safeParse(value);
  if (parsed.success && parsed.data !== undefined) return { value: parsed.data };
  return { refused: `${name} must be a whole number from 1 to ${MAX_INT4}` };
}
