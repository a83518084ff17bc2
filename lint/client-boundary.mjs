// @ts-check
/**
 * ESLint rule `baton/client-boundary`: client code imports no server code.
 *
 * Client code is every file under components/ and every file that starts with "use client".
 * Server code is the database layer (lib/database/**, lib/generated/**), any module that
 * imports "server-only", Node's built-in modules and the native database packages, and every
 * module that reaches one of those through value imports: a barrel such as lib/handoffs/index.ts
 * is server code because it re-exports a module that opens the database. The walk follows
 * `import`, `export … from` and `import()` across the project; it skips type-only imports (erased
 * before anything is bundled) and stops at "use server" files (a client calls those by
 * reference, as server actions). No maintained plugin does this walk: import/no-restricted-paths
 * and eslint-plugin-boundaries judge only the direct import, by path.
 */
import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";

/** Packages that only run on the server, whatever imports them. */
const SERVER_PACKAGES = ["server-only", "better-sqlite3", "pg", "@prisma/", "prisma"];
const EXTENSIONS = [".ts", ".tsx", ".mts", ".mjs", ".js", ".jsx"];
const BUILTINS = new Set(builtinModules);

/** @param {string} specifier */
function isServerPackage(specifier) {
  if (specifier.startsWith("node:") || BUILTINS.has(specifier.split("/")[0])) return true;
  return SERVER_PACKAGES.some((name) => (name.endsWith("/") ? specifier.startsWith(name) : specifier === name || specifier.startsWith(`${name}/`)));
}

/**
 * The project file a specifier names, or null for a package.
 * @param {string} root
 * @param {string} fromFile
 * @param {string} specifier
 */
function resolveProjectFile(root, fromFile, specifier) {
  let base;
  if (specifier.startsWith("@/")) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(fromFile), specifier);
  else return null;
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  if (/\.m?js$/.test(base)) candidates.push(base.replace(/\.(m?)js$/, ".$1ts"));
  return candidates.find((file) => fs.existsSync(file) && fs.statSync(file).isFile()) ?? null;
}

/**
 * What one file says about itself: its directive and the specifiers of its value imports.
 * @param {string} file
 */
function scanFile(file) {
  const text = fs.readFileSync(file, "utf8");
  const kind = file.endsWith("x") ? ts.ScriptKind.TSX : file.endsWith("js") ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  /** @type {string[]} */
  const imports = [];
  const first = source.statements[0];
  const directive = first && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression) ? first.expression.text : null;
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const onlyTypes =
        clause &&
        (clause.isTypeOnly ||
          (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!onlyTypes) imports.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.exportClause;
      const onlyTypes = statement.isTypeOnly || (clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly));
      if (!onlyTypes) imports.push(statement.moduleSpecifier.text);
    }
  }
  /** @param {ts.Node} node */
  const findDynamic = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      imports.push(node.arguments[0].text);
    }
    ts.forEachChild(node, findDynamic);
  };
  findDynamic(source);
  return { directive, imports };
}

/** @typedef {{ mtimeMs: number, directive: string | null, imports: string[] }} Scan */
/** @type {Map<string, Scan>} */
const scans = new Map();

/** @param {string} file */
function scanOf(file) {
  const mtimeMs = fs.statSync(file).mtimeMs;
  const cached = scans.get(file);
  if (cached && cached.mtimeMs === mtimeMs) return cached;
  const scan = { mtimeMs, ...scanFile(file) };
  scans.set(file, scan);
  return scan;
}

/**
 * The chain from `file` to the first server code it reaches, or null when it reaches none.
 * @param {string} root
 * @param {string} file
 * @param {Set<string>} visiting
 * @returns {string[] | null}
 */
function serverChain(root, file, visiting = new Set()) {
  const relative = path.relative(root, file);
  if (relative.startsWith(`lib${path.sep}generated${path.sep}`) || relative.startsWith(`lib${path.sep}database${path.sep}`)) {
    return [relative];
  }
  if (visiting.has(file)) return null;
  visiting.add(file);
  const { directive, imports } = scanOf(file);
  if (directive === "use server") return null;
  for (const specifier of imports) {
    if (isServerPackage(specifier)) return [relative, `"${specifier}"`];
    const target = resolveProjectFile(root, file, specifier);
    const chain = target && serverChain(root, target, visiting);
    if (chain) return [relative, ...chain];
  }
  return null;
}

/** @type {import("eslint").Rule.RuleModule} */
export const clientBoundary = {
  meta: {
    type: "problem",
    docs: { description: "client code (components/**, \"use client\" files) imports no module that reaches server code" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, required: ["root"], additionalProperties: false }],
    messages: {
      server:
        '"{{specifier}}" reaches server code ({{chain}}). Client code imports only client-safe modules (see README, Development): import the value from one (lib/handoffs/schemas.ts, lib/agents/schemas.ts, lib/formats/types.ts …), use `import type`, or pass it as a prop from a server page.',
    },
  },
  create(context) {
    const { root } = /** @type {{ root: string }} */ (context.options[0]);
    const file = context.physicalFilename;
    const relative = path.relative(root, file);
    const program = context.sourceCode.ast;
    const first = program.body[0];
    const useClient = first?.type === "ExpressionStatement" && "directive" in first && first.directive === "use client";
    if (!useClient && !relative.startsWith(`components${path.sep}`)) return {};

    /**
     * @param {import("estree").Node} node
     * @param {string} specifier
     */
    const check = (node, specifier) => {
      let chain = isServerPackage(specifier) ? [`"${specifier}"`] : null;
      if (!chain) {
        const target = resolveProjectFile(root, file, specifier);
        chain = target && serverChain(root, target);
      }
      if (chain) context.report({ node, messageId: "server", data: { specifier, chain: chain.join(" → ") } });
    };
    /** @param {any} node a TypeScript-ESTree node, which carries importKind / exportKind */
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((/** @type {any} */ specifier) => specifier.importKind === "type" || specifier.exportKind === "type"));
    return {
      ImportDeclaration(node) {
        if (!typeOnly(node)) check(node, String(node.source.value));
      },
      ExportNamedDeclaration(node) {
        if (node.source && !typeOnly(node)) check(node, String(node.source.value));
      },
      ExportAllDeclaration(node) {
        if (!typeOnly(node)) check(node, String(node.source.value));
      },
      ImportExpression(node) {
        if (node.source.type === "Literal" && typeof node.source.value === "string") check(node, node.source.value);
      },
    };
  },
};
