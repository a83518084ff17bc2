/** Marks that reorder text (ALM, LRM, RLM, embeddings, overrides, isolates), as a character class's inside. */
export const BIDI_CONTROLS = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";

/**
 * Outside text (a title, a branch name, a commit subject, an origin URL, a file name) inside one
 * of Baton's own lines: escaped so it stays on that line for every reader. JSON.stringify escapes
 * the C0 controls but leaves NEL (U+0085), the other C1 controls (U+009B is a terminal's CSI) and
 * U+2028/U+2029 as they are, and some readers break lines at them; and the bidirectional
 * formatting characters, which reorder the line around them on a terminal ("Invoice \u202efdp.exe"
 * reads "Invoice exe.pdf"). Client-safe.
 */
const LEFT_BY_JSON = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]`, "g");

/** `text` escaped as inside a JSON string, plus the line breaks and reordering marks JSON leaves alone; no quotes around it. */
export function oneLine(text: string): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(LEFT_BY_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `text` on one line between double quotes. */
export const quotedOneLine = (text: string) => `"${oneLine(text)}"`;
