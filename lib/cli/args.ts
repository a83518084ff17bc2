import { parseArgs, type ParseArgsConfig } from "node:util";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;
const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** Writes `baton <command>: <message>` and the usage to stderr; returns exit code 2. */
export function usageError(command: string, message: string, usage: string): number {
  process.stderr.write(`baton ${command}: ${message}\n\n${usage}\n`);
  return 2;
}

/**
 * A command's arguments (with --help/-h added), or the exit code when the command ends here:
 * 0 after printing the usage for --help, 2 after an unknown option or a missing value.
 */
export function parseCommandArgs<const Options extends OptionsConfig, const Positionals extends boolean = false>(
  command: string,
  usage: string,
  args: string[],
  config: { options: Options; allowPositionals?: Positionals },
) {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: config.allowPositionals, options: { ...config.options, ...HELP_OPTION } });
  } catch (error) {
    return usageError(command, (error as Error).message, usage);
  }
  if ("help" in parsed.values && parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return parsed;
}
