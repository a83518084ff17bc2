/** Checks of JSON text from callers that JSON.parse does not make. */

/**
 * The first key written twice in one object of JSON text that parsed, with its line, or null.
 * JSON.parse keeps the last silently; other readers (a proxy, a log, the file's reader) keep the
 * first, and the YAML import refuses such a document, so they and Baton could each see another
 * value. Imported documents and request bodies are refused with one. A linear scan.
 */
function duplicateKeyIn(text: string): { key: string; line: number } | null {
  // One entry per open collection: an object's keys so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  let line = 1;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\n") line++;
    else if (char === "{" || char === "[") {
      open.push(char === "{" ? new Set() : null);
      expectKey = char === "{";
    } else if (char === "}" || char === "]") open.pop();
    else if (char === ",") expectKey = open.at(-1) != null;
    else if (char === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const keys = open.at(-1);
      if (expectKey && keys) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (keys.has(key)) return { key, line };
        keys.add(key);
        expectKey = false;
      }
      index = end;
    }
  }
  return null;
}

/** The refusal of `text` when it gives a key twice in one object, naming `what` (the document, the request body), or null. */
export function duplicateKeyRefusal(text: string, what: string): string | null {
  const duplicate = duplicateKeyIn(text);
  return duplicate && `${what} gives the key ${JSON.stringify(duplicate.key.slice(0, 80))} twice in one object (line ${duplicate.line}); keep one`;
}
