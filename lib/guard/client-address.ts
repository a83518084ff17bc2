import "server-only";
import type { IncomingMessage } from "node:http";
import ipaddr from "ipaddr.js";
import proxyaddr from "proxy-addr";

/**
 * Which peers are proxies whose X-Forwarded-For Baton believes (BATON_TRUSTED_PROXIES), and the
 * address a request came from. proxy-addr (Express's own, maintained) walks X-Forwarded-For from
 * the right, past trusted hops only, so a client cannot choose its address by sending the header
 * itself: behind nginx's `$proxy_add_x_forwarded_for` the forged part sits left of the real peer.
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** What BATON_TRUSTED_PROXIES means when it is unset: a proxy or tunnel on Baton's own machine. */
export const DEFAULT_TRUSTED_PROXIES = "loopback";

/**
 * BATON_TRUSTED_PROXIES parsed: addresses, CIDR ranges and proxy-addr's names (`loopback`,
 * `linklocal`, `uniquelocal`), comma-separated; `none` trusts no peer. A value that is none of
 * these answers a one-line problem (the server refuses to start with it).
 */
export function proxyTrustFrom(value: string | undefined): { trust: ProxyTrust; problem: string | null } {
  const listed = (value ?? DEFAULT_TRUSTED_PROXIES)
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  if (listed.length === 0 || (listed.length === 1 && listed[0].toLowerCase() === "none")) return { trust: () => false, problem: null };
  try {
    return { trust: proxyaddr.compile(listed), problem: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { trust: () => false, problem: `BATON_TRUSTED_PROXIES is not a list of addresses, ranges (10.0.0.0/8) or loopback/linklocal/uniquelocal: ${reason}` };
  }
}

/** Where a request came from: the socket's peer, or behind trusted proxies the nearest untrusted X-Forwarded-For address. */
export function clientAddressOf(request: IncomingMessage, trust: ProxyTrust): string {
  if (!request.socket.remoteAddress) return "unknown";
  return proxyaddr(request, trust);
}

/**
 * The block of addresses one client holds, for limits counted per client: an IPv4 address, or an
 * IPv6 address's /64 (RFC 6177: what one host, home or VPS is handed; it can pick a fresh address
 * in it for every request, and a limit per address would hold none of them back). An IPv4-mapped
 * IPv6 address is its IPv4 address; anything unparsable is its own block.
 */
export function clientBlockOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}
