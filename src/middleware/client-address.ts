/**
 * The address a request comes from, for limits kept per client. By default it is the TCP peer of
 * the Node socket; X-Forwarded-For is believed only when that peer is one of the trusted proxies
 * (PLATEN_TRUSTED_PROXIES), and then only up to the first hop that is not itself trusted.
 */
import { isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Whether `entry` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`) in its usual notation. */
export function isAddressOrRange(entry: string): boolean {
  const [addr, bits, extra] = entry.split('/');
  if (extra !== undefined || isIP(addr) === 0) return false;
  return bits === undefined || ipaddr.isValidCIDR(entry);
}

/** An address as ipaddr.js has it, an IPv4-mapped IPv6 address turned into its IPv4 address. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIP(address) === 0) return null;
  const a = ipaddr.parse(address);
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

function rangesOf(trusted: readonly string[]): Range[] {
  return trusted.map((t) => {
    if (t.includes('/')) return ipaddr.parseCIDR(t);
    const a = parsed(t) ?? ipaddr.parse(t);
    return [a, a.kind() === 'ipv4' ? 32 : 128];
  });
}

function inRanges(ranges: readonly Range[], a: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return ranges.some(([net, bits]) =>
    net.kind() !== a.kind() ? false : a.kind() === 'ipv4' ? (a as ipaddr.IPv4).match(net as ipaddr.IPv4, bits) : (a as ipaddr.IPv6).match(net as ipaddr.IPv6, bits),
  );
}

/** Whether a TCP peer's address (text, IPv4-mapped IPv6 too) is one of the `trusted` addresses and ranges. */
export function trustedPeer(trusted: readonly string[]): (address: string | undefined) => boolean {
  const ranges = rangesOf(trusted);
  return (address) => {
    const a = address === undefined ? null : parsed(address);
    return a !== null && ranges.length > 0 && inRanges(ranges, a);
  };
}

/**
 * Resolves the client address of requests.
 * @param trusted addresses and CIDR ranges of reverse proxies whose X-Forwarded-For is believed
 *   (each must pass {@link isAddressOrRange}; the configuration checks that at start).
 */
export function clientAddressResolver(trusted: readonly string[]) {
  const ranges = rangesOf(trusted);
  const isTrusted = (a: ipaddr.IPv4 | ipaddr.IPv6) => inRanges(ranges, a);

  /**
   * The client's address as text (IPv4-mapped IPv6 written as IPv4), or "unknown" when the
   * request did not come through a Node socket.
   */
  return function clientAddress(c: Context): string {
    let peer: string | undefined;
    try {
      peer = getConnInfo(c).remote.address;
    } catch {
      peer = undefined;
    }
    let addr = peer === undefined ? null : parsed(peer);
    if (addr === null) return 'unknown';
    if (ranges.length > 0 && isTrusted(addr)) {
      const hops = (c.req.header('x-forwarded-for') ?? '').split(',').map((h) => h.trim());
      for (let i = hops.length - 1; i >= 0 && isTrusted(addr); i--) {
        const hop = parsed(hops[i]);
        if (hop === null) break;
        addr = hop;
      }
    }
    return addr.toString();
  };
}
