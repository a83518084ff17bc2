import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A Node LTS line from the npm registry (`npm install node@<major>`: its platform package holds
 * bin/node and include/node; npm_config_nodedir pointed at it lets a native module compile for it
 * offline). Installed once per machine into the temp folder, where .ci/run also puts the Node 24
 * that runs `npm test`.
 */
export type LtsNode = { major: number; prefix: string; home: string; node: string; env: NodeJS.ProcessEnv };

export function ltsNode(major: 22 | 24): LtsNode {
  const prefix = path.join(os.tmpdir(), `baton-node-${major}`);
  const home = path.join(prefix, "node_modules", "node", "node_modules", `node-${process.platform}-${process.arch}`);
  const node = path.join(home, "bin", "node");
  if (!fs.existsSync(node)) {
    execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", `node@${major}`], { stdio: "ignore" });
  }
  const env = { ...process.env, PATH: `${path.join(home, "bin")}${path.delimiter}${process.env.PATH ?? ""}`, npm_config_nodedir: home };
  return { major, prefix, home, node, env };
}
