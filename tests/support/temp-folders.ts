import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * For a test file: a maker of fresh temporary folders named `prefix…` (their real paths, so
 * links in the temp folder's own path never differ from what a command reports), all removed
 * once the file's tests have run.
 */
export function temporaryFolders(prefix: string): () => string {
  const folders: string[] = [];
  afterAll(() => {
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });
  return () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    folders.push(folder);
    return folder;
  };
}
