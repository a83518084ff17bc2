import "server-only";
import fs from "node:fs";
import { utf8TextOf } from "./utf8";

/** Why a file was not read: what is there is no plain file of the size asked for, or no UTF-8 text. */
export class NotSmallFile extends Error {}

/** A plain file of the size asked for whose bytes are not UTF-8 (Latin-1, UTF-16 …). */
export class NotUtf8File extends NotSmallFile {}

/**
 * A file someone else may have put in place (a repository's `.flow-guardian/`, a `.git` file
 * above the work in a shared /tmp), read only when it is a regular file of at most `maxBytes`;
 * null when nothing is there. Opened without blocking (a FIFO would otherwise wait for a writer)
 * and, unless `followLinks`, never through a symbolic link. Throws NotSmallFile for a link, a
 * FIFO, a device or a larger file, NotUtf8File for bytes that are not UTF-8 (read leniently,
 * `baton checkpoint` wrote a Latin-1 handoff.yaml back with U+FFFD for each accented letter),
 * and the system's error for anything else.
 */
export function readSmallFile(file: string, maxBytes: number, options: { followLinks: boolean }): string | null {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (options.followLinks ? 0 : fs.constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP" && !options.followLinks) throw new NotSmallFile(`${file} is a symbolic link`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(descriptor);
    if (!stat.isFile()) throw new NotSmallFile(`${file} is not a plain file`);
    if (stat.size > maxBytes) throw new NotSmallFile(`${file} is ${stat.size} bytes; at most ${maxBytes} are read`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = fs.readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > maxBytes) throw new NotSmallFile(`${file} grew past ${maxBytes} bytes while it was read`);
    const text = utf8TextOf(buffer.subarray(0, length));
    if (text === null) throw new NotUtf8File(`${file} is not UTF-8 text`);
    return text;
  } finally {
    fs.closeSync(descriptor);
  }
}
