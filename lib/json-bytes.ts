/** Text that JSON carries as it is; anything else (quotes, controls, surrogates) is measured by escaping it. */
const PLAIN_JSON_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * UTF-8 bytes of `text` inside a JSON string, escapes included and the two quotes not: never
 * less than its plain UTF-8 bytes. Cheap for the common text that needs no escaping (the answer
 * budget of a thread measures every entry with it).
 */
export function jsonTextBytes(text: string): number {
  return PLAIN_JSON_TEXT.test(text) ? Buffer.byteLength(text, "utf8") : Buffer.byteLength(JSON.stringify(text), "utf8") - 2;
}
