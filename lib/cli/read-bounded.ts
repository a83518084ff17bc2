import "server-only";

/** Claude Code's hook input is one small JSON object; anything this large is not one. */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/**
 * Reads `stream` to its end, or stops at the first chunk that takes it past `maxBytes` (`over`;
 * `text` is then what was read, a little more than `maxBytes`): a pipe or a device can go on
 * forever. Leaving early destroys the stream.
 */
export async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > maxBytes) break;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), over: size > maxBytes };
}
