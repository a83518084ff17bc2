/**
 * Where a webhook may be sent. Baton POSTs to what the operator registered, from its own
 * machine, so a URL must not turn it into a probe of that machine's surroundings: link-local
 * addresses (169.254.0.0/16, fe80::/10, where cloud metadata services answer), the unspecified
 * address (0.0.0.0/8, ::, which connects to this machine under another name), multicast and
 * broadcast, and the cloud metadata services by name or address are refused. Loopback and
 * private (LAN) addresses stay allowed on purpose: operators run receivers next to Baton and on
 * their LAN, and tests deliver to a loopback receiver. A URL with a user name or password is
 * refused too: Baton would store it and show it back on its pages.
 *
 * The same rules apply when the URL is registered and when each delivery connects (to every
 * address its host name resolves to), so neither an older row nor a DNS name that points at a
 * metadata address gets through. Client-safe: no server code here.
 */
import ipaddr from "ipaddr.js";

/** Metadata services' names (GCP, AWS); a trailing dot names the same host. */
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"]);

/** Metadata and host services at addresses outside link-local: AWS (IPv6), GCP (IPv6), Alibaba Cloud, Oracle Cloud (legacy), Azure's WireServer. */
const METADATA_ADDRESSES = new Set(["fd00:ec2::254", "fd20:ce::254", "100.100.100.200", "192.0.0.192", "168.63.129.16"].map((text) => ipaddr.parse(text).toNormalizedString()));

/** IPv6 ranges whose last 32 bits are an IPv4 address that a dual-stack socket or a NAT64 gateway reaches. */
const EMBEDS_IPV4 = new Set(["ipv4Mapped", "rfc6145", "rfc6052"]);

const REFUSED_RANGES: Record<string, string> = {
  linkLocal: "a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer",
  unspecified: "the unspecified address (0.0.0.0/8 or ::), which is no receiver (for this machine, name 127.0.0.1)",
  multicast: "a multicast address, not one receiver",
  broadcast: "the broadcast address, not one receiver",
};

/** What makes this IP address no place to send a webhook ("a link-local address …"), or null. */
export function addressProblem(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return "a cloud metadata service";
  const range = parsed.range();
  if (REFUSED_RANGES[range]) return REFUSED_RANGES[range];
  if (parsed.kind() === "ipv6" && range !== "loopback") {
    const bytes = parsed.toByteArray();
    // ::a.b.c.d (IPv4-compatible, deprecated) embeds one too.
    const compatible = bytes.slice(0, 12).every((byte) => byte === 0);
    if (EMBEDS_IPV4.has(range) || compatible) {
      const embedded = ipaddr.fromByteArray(bytes.slice(12)).toString();
      const problem = addressProblem(embedded);
      if (problem) return `an IPv6 form of ${embedded}, ${problem}`;
    }
  }
  return null;
}

/**
 * Why a webhook may not be sent to `url`, or null. `url` is an absolute http(s) URL; the WHATWG
 * parser has already turned the odd IPv4 spellings (`0x7f.1`, `2852039166`) into dotted quads.
 */
export function webhookUrlProblem(url: string): string | null {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) {
    return "url must not carry a user name or password (user:pass@host): Baton would store it and show it on its pages; the receiver can check the X-Baton-Signature header instead";
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const problem = METADATA_HOSTS.has(host.replace(/\.+$/, "")) ? "a cloud metadata service" : addressProblem(host);
  return problem ? `url points at ${host}, ${problem}; webhooks are not sent there` : null;
}

