const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * `bytes` as text, or null when they are not valid UTF-8. Decoded leniently (`request.text()`,
 * `buffer.toString()`), bad bytes become U+FFFD silently, and the text stored would differ from
 * the one sent. For every door that reads bytes: HTTP bodies (lib/http), stdio lines (lib/mcp),
 * files (lib/small-file, `baton import`).
 */
export function utf8TextOf(bytes: Uint8Array | ArrayBuffer): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}
