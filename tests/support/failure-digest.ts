import fs from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** An error as vitest hands it to reporters, serialized in the worker that caught it. */
type SerializedError = { name?: string; message?: string; stack?: string; VITEST_TEST_PATH?: string; VITEST_TEST_NAME?: string };

const root = path.resolve(import.meta.dirname, "..", "..");
const relative = (file: string) => path.relative(root, file);

/** The error's first line and the stack frame in this project's code nearest the throw. */
function oneLine(error: SerializedError): string {
  const message = `${error.name ?? "Error"}: ${(error.message ?? "").split("\n")[0]}`.slice(0, 300);
  const frame = (error.stack ?? "")
    .split("\n")
    .filter((line) => !line.includes("node_modules"))
    .map((line) => /(\/[^()\s]+:\d+:\d+)\)?$/.exec(line.trim())?.[1])
    .find((location) => location?.startsWith(root));
  return frame ? `${message} (${relative(frame)})` : message;
}

/**
 * Writes, for scripts/test-all.ts, one line per reason the run failed: a failed test, a file whose
 * hooks or import failed, an error thrown outside any test. A CI log is often read from its end;
 * vitest prints these far above it, and its JSON report leaves the last two out.
 */
export default class FailureDigest implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const file = process.env.BATON_FAILURE_DIGEST;
    if (!file) return;
    const lines: string[] = [];
    for (const testModule of testModules) {
      const project = testModule.project.name;
      for (const error of testModule.errors()) lines.push(`[${project}] ${relative(testModule.moduleId)}: outside its tests: ${oneLine(error)}`);
      for (const test of testModule.children.allTests()) {
        const result = test.result();
        if (result.state === "failed") lines.push(`[${project}] ${relative(testModule.moduleId)} > ${test.fullName}: ${oneLine(result.errors?.[0] ?? {})}`);
      }
    }
    for (const error of unhandledErrors) {
      const where = error.VITEST_TEST_PATH ? ` in ${relative(error.VITEST_TEST_PATH)}${error.VITEST_TEST_NAME ? ` > ${error.VITEST_TEST_NAME}` : ""}` : "";
      lines.push(`unhandled${where}: ${oneLine(error)}`);
    }
    fs.writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
  }
}
