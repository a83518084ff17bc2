import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import { clientBoundary } from "./lint/client-boundary.mjs";

/** The generated Prisma client, however a file spells its path. */
const GENERATED_CLIENT = { regex: "(^|/)generated/prisma(/|$)" };

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: ["node_modules/**", ".next/**", ".next-*/**", ".package/**", "lib/generated/**", "test-results/**", "playwright-report/**", "next-env.d.ts"],
  },
  {
    plugins: { baton: { rules: { "client-boundary": clientBoundary } } },
    // eslint-plugin-import does not parse these for import/no-cycle: packages, and the generated
    // Prisma client (megabytes of TypeScript that imports nothing of ours).
    settings: { "import/ignore": ["node_modules", "lib/generated/"] },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Components and "use client" files reach no server code, directly or through a barrel.
      "baton/client-boundary": ["error", { root: import.meta.dirname }],
      // eslint-plugin-import (already configured by eslint-config-next, with its TypeScript
      // resolver for `@/` paths). Type-only imports are not edges: they vanish when compiled.
      "import/no-cycle": ["error", { ignoreExternal: true }],
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              ...GENERATED_CLIENT,
              message:
                "Nothing at run time uses a generated Prisma client (Prisma is the schema and migration authority only): reach data through lib/database, in the table's owner module.",
            },
          ],
        },
      ],
    },
  },
];

export default config;
