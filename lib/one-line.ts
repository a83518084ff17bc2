/**
 * Outside text (a title, a branch name, a commit subject, an origin URL, a file name) inside one
 * of Baton's own lines: escaped so it stays on that line for every reader. JSON.stringify escapes
 * the C0 controls but leaves NEL (U+0085), the other C1 controls and U+2028/U+2029 as they are,
 * and some readers break lines at them. Client-safe.
 */
const LEFT_BY_JSON = /[\u007f-\u009f\u2028\u2029]/g;

/** `text` escaped as inside a JSON string, plus the line breaks JSON leaves alone; no quotes around it. */
export function oneLine(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(LEFT_BY_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `text` on one line between double quotes. */
export const quotedOneLine = (text: string) => `"${oneLine(text)}"`;
