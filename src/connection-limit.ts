/**
 * Caps on the server's open connections, so that clients that open connections and never finish a
 * request (slowloris) cannot use up the process's file descriptors: 21,000 of them, headers half
 * sent, took a server to 19,218 of its 20,000, and from then on every request failed, health
 * checks included. Node's request and headers timeouts close each one in the end, but a client
 * simply opens more.
 *
 * - PLATEN_MAX_CONNECTIONS: connections open at once (Node's `server.maxConnections`: one past it
 *   is closed as it arrives). Default: 80 % of the process's open-file limit (`ulimit -n`), at
 *   most 50,000; 800 where the limit cannot be read.
 * - PLATEN_MAX_CONNECTIONS_PER_ADDRESS (256): connections open at once from one address (an IPv6
 *   address by its /64, which one client holds whole); one past it is closed as it arrives.
 *   Trusted proxies (PLATEN_TRUSTED_PROXIES) are not limited this way, as every client behind
 *   them shares their address.
 * Closed connections are logged, at most once a minute.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Logger } from './logger.ts';

/** The default of PLATEN_MAX_CONNECTIONS: 80 % of the soft open-file limit, at most 50,000; 800 when it cannot be read. */
export function defaultMaxConnections(limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number {
  try {
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(limits())?.[1];
    if (soft === 'unlimited') return 50_000;
    if (soft !== undefined) return Math.max(16, Math.min(50_000, Math.floor(Number(soft) * 0.8)));
  } catch {
    // not Linux: the fallback below
  }
  return 800;
}

/** Options of {@link limitConnections}. */
export interface ConnectionLimits {
  /** Connections open at once. */
  readonly max: number;
  /** Connections open at once from one address. */
  readonly perAddress: number;
  /** Peers not limited per address (trusted proxies). */
  readonly exempt: (address: string | undefined) => boolean;
  /** Where refused connections are told, at most once a minute. */
  readonly log?: Logger;
}

/** What connections are counted under: an IPv4 address, an IPv6 address's /64 (IPv4-mapped: the IPv4 address). */
export function connectionKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const a = ipaddr.parse(address);
  if (a.kind() === 'ipv4') return a.toString();
  const v6 = a as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}

/** Refusals are logged at most this often, ms. */
const LOG_EVERY_MS = 60_000;

/**
 * Apply the caps to `server`. @returns how many connections were closed as they arrived, past
 * either cap.
 */
export function limitConnections(server: Server, limits: ConnectionLimits): { refused: () => number } {
  server.maxConnections = limits.max;
  const open = new Map<string, number>();
  let refused = 0;
  // One throttle per cap, each with its own count since its last line.
  const throttles = new Map<string, { at: number; count: number }>();
  const tell = (what: string, address: string | undefined) => {
    const t = throttles.get(what) ?? { at: -Infinity, count: 0 };
    t.count++;
    throttles.set(what, t);
    const now = Date.now();
    if (!limits.log || now - t.at < LOG_EVERY_MS) return;
    limits.log.warn({ address, refusedSinceLast: t.count, max: limits.max, perAddress: limits.perAddress }, `connections closed as they arrived: ${what}`);
    t.at = now;
    t.count = 0;
  };
  server.on('drop', (data?: { remoteAddress?: string }) => {
    refused++;
    tell('PLATEN_MAX_CONNECTIONS reached', data?.remoteAddress);
  });
  server.on('connection', (socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined || limits.exempt(peer)) return;
    const address = connectionKey(peer);
    const n = (open.get(address) ?? 0) + 1;
    if (n > limits.perAddress) {
      refused++;
      tell('PLATEN_MAX_CONNECTIONS_PER_ADDRESS reached', address);
      socket.destroy();
      return;
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
  return { refused: () => refused };
}
