import "server-only";
import { utf8TextOf } from "../utf8";

/** Claude Code's hook input is one small JSON object; anything this large is not one. */
export const MAX_HOOK_INPUT_BYTES = 1024 * 1024;

/**
 * Reads `stream` to its end, or stops at the first chunk that takes it past `maxBytes` (`over`;
 * `text` is then what was read, a little more than `maxBytes`): a pipe or a device can go on
 * forever. Leaving early destroys the stream. Bytes that are not UTF-8 throw (read leniently,
 * a Latin-1 handoff.yaml was imported with U+FFFD for each accented letter); a read cut past
 * `maxBytes` may end inside a character, and is decoded leniently, since it is refused whole.
 */
export async function readBounded(stream: NodeJS.ReadableStream, maxBytes: number): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size > maxBytes) break;
  }
  const bytes = Buffer.concat(chunks);
  if (size > maxBytes) return { text: bytes.toString("utf8"), over: true };
  const text = utf8TextOf(bytes);
  if (text === null) throw new Error("it is not UTF-8 text; save it as UTF-8");
  return { text, over: false };
}

/** What a hook read: `over` past MAX_HOOK_INPUT_BYTES, `timedOut` when its deadline came first. */
export type HookInput = { text: string; over: boolean; timedOut: boolean };

/** Whether `text` is one whole JSON object already: Claude Code may keep the pipe open after it. */
function isWholeJsonObject(text: string): boolean {
  if (!text.trimEnd().endsWith("}")) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A hook's input from `stream`: up to its end or to the first whole JSON object, whichever comes
 * first, by `deadline` (a time, ms) and within MAX_HOOK_INPUT_BYTES. A writer that never ends the
 * input held a hook as long as it liked. Leaving early destroys the stream.
 */
export function readHookInput(stream: NodeJS.ReadableStream & { destroy(): unknown }, deadline: number): Promise<HookInput> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (ended: { over?: boolean; timedOut?: boolean; atEnd?: boolean }) => {
      clearTimeout(timer);
      stream.off("data", onData).off("end", onEnd).off("error", onEnd);
      if (!ended.atEnd) stream.destroy();
      resolve({ text: Buffer.concat(chunks).toString("utf8"), over: ended.over ?? false, timedOut: ended.timedOut ?? false });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_HOOK_INPUT_BYTES) finish({ over: true });
      else if (isWholeJsonObject(Buffer.concat(chunks).toString("utf8"))) finish({});
    };
    const onEnd = () => finish({ atEnd: true });
    const timer = setTimeout(() => finish({ timedOut: true }), Math.max(0, deadline - Date.now()));
    stream.on("data", onData).on("end", onEnd).on("error", onEnd);
  });
}
