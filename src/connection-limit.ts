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
 * - PLATEN_MAX_CONNECTIONS_PER_ADDRESS (256): connections open at once from one address; one past
 *   it is closed as it arrives. Trusted proxies (PLATEN_TRUSTED_PROXIES) are not limited this way,
 *   as every client behind them shares their address.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';

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
}

/**
 * Apply the caps to `server`. @returns how many connections were closed as they arrived for
 * going past the per-address cap (for tests and logs).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): { refused: () => number } {
  server.maxConnections = limits.max;
  const open = new Map<string, number>();
  let refused = 0;
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || limits.exempt(address)) return;
    const n = (open.get(address) ?? 0) + 1;
    if (n > limits.perAddress) {
      refused++;
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
