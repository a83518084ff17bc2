import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The import rules of eslint.config.mjs, run on the real tree through ESLint's API: source text
 * is linted as if it were at a path of the project (nothing is written), so each rule meets the
 * project's real modules, barrels and server-only markers.
 */
const root = path.resolve(import.meta.dirname, "..");
let eslint: ESLint;
/** import/no-cycle computes its graph from files on disk and fails on a probe that is not there. */
let withoutCycles: ESLint;

async function problems(text: string, file: string, linter = withoutCycles): Promise<string[]> {
  const [result] = await linter.lintText(text, { filePath: path.join(root, file) });
  return result.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
  withoutCycles = new ESLint({ cwd: root, overrideConfig: { rules: { "import/no-cycle": "off" } } });
});

describe("client boundary", () => {
  it("refuses a client component importing a barrel that reaches the database, naming the chain", async () => {
    const found = await problems('"use client";\nimport { resolveAgentId } from "@/lib/agents";\nexport const f = resolveAgentId;\n', "app/probe/probe.tsx");
    expect(found).toEqual([expect.stringMatching(/^baton\/client-boundary: "@\/lib\/agents" reaches server code \(lib\/agents\/index\.ts → "server-only"\)/)]);
  });

  it("refuses any components/** file importing the database layer, however the path is spelled", async () => {
    expect(await problems('import { write } from "../../lib/database";\nexport const f = write;\n', "components/probe/probe.tsx")).toEqual([
      expect.stringMatching(/^baton\/client-boundary: "\.\.\/\.\.\/lib\/database" reaches server code \(lib\/database\/index\.ts/),
    ]);
    expect(await problems('import { openSqlite } from "@/lib/database/sqlite";\nexport const f = openSqlite;\n', "components/probe.tsx")).toEqual([
      expect.stringMatching(/reaches server code \(lib\/database\/sqlite\.ts/),
    ]);
    expect(await problems('import fs from "node:fs";\nexport const f = fs;\n', "components/probe.tsx")).toEqual([
      expect.stringMatching(/"node:fs" reaches server code/),
    ]);
  });

  it("lets client code import client-safe modules, types from anywhere, and server actions", async () => {
    const text = [
      '"use client";',
      'import { ENTRY_TYPES } from "@/lib/handoffs/schemas";',
      'import { agentSearch } from "@/lib/agents/agent-filters";',
      'import { FORMAT_LABELS } from "@/lib/formats/types";',
      'import type { AgentPage } from "@/lib/agents";',
      'import { createHandoffAction } from "@/app/handoffs/actions";',
      "export const all = [ENTRY_TYPES, agentSearch, FORMAT_LABELS, createHandoffAction] as const;",
      "export type Page = AgentPage;",
      "",
    ].join("\n");
    expect(await problems(text, "components/probe.tsx")).toEqual([]);
  });

  it("leaves server code alone", async () => {
    expect(await problems('import { resolveAgentId } from "@/lib/agents";\nexport const f = resolveAgentId;\n', "app/probe/page.tsx")).toEqual([]);
  });
});

describe("the generated Prisma client", () => {
  const valueImport = 'import { PrismaClient } from "../generated/prisma/client";\nexport const C = PrismaClient;\n';
  const typeImport = 'import type { Agent } from "../generated/prisma/client";\nexport type A = Agent;\n';

  it("is imported by nothing: the domain reaches its data through lib/database", async () => {
    expect(await problems(valueImport, "lib/formats/probe.ts")).toEqual([expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: .*Nothing at run time uses a generated Prisma client/)]);
    expect(await problems(typeImport, "lib/formats/probe.ts")).toHaveLength(1);
    expect(await problems(valueImport, "lib/agents/probe.ts")).toHaveLength(1);
    expect(await problems('import { PrismaClient } from "./generated/prisma/client";\nexport const C = PrismaClient;\n', "lib/database/probe.ts")).toHaveLength(1);
  });
});

describe("import cycles", () => {
  it("refuses a module importing one that imports it back", async () => {
    // lib/form-state.ts imports lib/errors.ts: errors importing form-state closes a cycle.
    const errors = fs.readFileSync(path.join(root, "lib/errors.ts"), "utf8");
    const withCycle = `${errors}\nimport { idleFormState } from "./form-state";\nexport const again = idleFormState;\n`;
    expect(await problems(withCycle, "lib/errors.ts", eslint)).toContainEqual(expect.stringMatching(/^import\/no-cycle: Dependency cycle detected/));
    expect(await problems(errors, "lib/errors.ts", eslint)).toEqual([]);
  });
});

describe("server-only marks", () => {
  /** A value import of the database layer, a driver, the file system, processes or crypto. */
  const SERVER_IMPORT = /^import (?!type )[^;]*?from "(?:(?:\.\.?\/)+(?:\.\.\/)*database(?:\/[\w-]+)?|node:(?:fs|child_process|crypto)|better-sqlite3|pg)";$/m;

  it("are on every TypeScript module of lib/ that imports the database, a driver, the file system, processes or crypto", () => {
    const unmarked = fs
      .readdirSync(path.join(root, "lib"), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .filter((file) => {
        const text = fs.readFileSync(file, "utf8");
        return SERVER_IMPORT.test(text) && !/^import "server-only";$/m.test(text);
      })
      .map((file) => path.relative(root, file));
    expect(unmarked).toEqual([]);
  });
});
