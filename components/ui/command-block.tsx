import { CopyButton } from "./copy-button";

/**
 * Text to paste somewhere else (a command, a config, an address) as it will be pasted: no
 * Markdown backticks around it, a copy button beside it.
 */
export function CommandBlock({ text, copyLabel, testId }: { text: string; copyLabel: string; testId?: string }) {
  return (
    <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
      <pre data-testid={testId} className="code-block min-w-0 flex-1">
        {text}
      </pre>
      <CopyButton text={text} label={copyLabel} className="self-start" />
    </div>
  );
}
