import { execFileSync } from "node:child_process";

/**
 * Two network namespaces a test creates for itself, joined by a veth pair: a server's and a LAN
 * peer's, on a private /24 of their own, so a test can speak to Baton from beyond loopback
 * without touching the machine's network. Needs root (CI runs as root); `destroy` removes both.
 */
export type Lan = {
  serverNs: string;
  clientNs: string;
  serverIp: string;
  /** The peer's addresses: the first, and any more asked for (another LAN machine, as the server sees it). */
  clientIps: string[];
  destroy: () => void;
};

export const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });

/** `name` (a few letters) keeps the namespaces and links of different specs apart; `octet` their subnets. */
export function createLan(name: string, octet: number, clientAddresses = 1): Lan {
  const id = `${process.pid % 10000}`;
  const subnet = `10.${octet}.${process.pid % 200}`;
  const lan: Lan = {
    serverNs: `baton-${name}-s-${id}`,
    clientNs: `baton-${name}-c-${id}`,
    serverIp: `${subnet}.1`,
    clientIps: Array.from({ length: clientAddresses }, (_, index) => `${subnet}.${index + 2}`),
    destroy: () => {
      for (const ns of [lan.serverNs, lan.clientNs]) {
        try {
          ip("netns", "delete", ns);
        } catch {
          // Not created.
        }
      }
    },
  };
  const [serverLink, clientLink] = [`v${name}-s`, `v${name}-c`];
  ip("netns", "add", lan.serverNs);
  ip("netns", "add", lan.clientNs);
  ip("link", "add", serverLink, "netns", lan.serverNs, "type", "veth", "peer", "name", clientLink, "netns", lan.clientNs);
  ip("-n", lan.serverNs, "addr", "add", `${lan.serverIp}/24`, "dev", serverLink);
  for (const address of lan.clientIps) ip("-n", lan.clientNs, "addr", "add", `${address}/24`, "dev", clientLink);
  for (const [ns, link] of [
    [lan.serverNs, serverLink],
    [lan.clientNs, clientLink],
  ]) {
    ip("-n", ns, "link", "set", link, "up");
    ip("-n", ns, "link", "set", "lo", "up");
  }
  return lan;
}
