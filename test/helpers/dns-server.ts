/**
 * A DNS server on 127.0.0.1 (UDP) for tests: answers A and AAAA queries from a table, NXDOMAIN
 * for names it does not know, and nothing at all for names marked silent (a name server that
 * never answers). Enough of RFC 1035 for c-ares' queries: one question, answers by name pointer.
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

/** What the server says of a name: its addresses (IPv4 and IPv6 mixed), or `silent`. */
export type DnsRecord = string[] | 'silent';

export interface DnsServer {
  /** "127.0.0.1:<port>", as PLATEN_DNS_SERVERS takes it. */
  address: string;
  /** Names asked so far (lowercase, without the trailing dot), with their type ("A", "AAAA"). */
  queries: { name: string; type: string }[];
  close(): Promise<void>;
}

const TYPES: Record<number, string> = { 1: 'A', 28: 'AAAA' };

/** The 16 bytes of an IPv6 address (`::` shorthand allowed). */
function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}

/** Start the server; `records` maps lowercase names to what it answers. */
export async function startDnsServer(records: Record<string, DnsRecord>): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const queries: DnsServer['queries'] = [];
  socket.on('message', (msg, peer) => {
    if (msg.length < 12) return;
    // The question: labels from byte 12, then type and class.
    const labels: string[] = [];
    let at = 12;
    while (at < msg.length && msg[at] !== 0) {
      labels.push(msg.subarray(at + 1, at + 1 + msg[at]!).toString('latin1'));
      at += 1 + msg[at]!;
    }
    const questionEnd = at + 5;
    if (questionEnd > msg.length) return;
    const qtype = msg.readUInt16BE(at + 1);
    const name = labels.join('.').toLowerCase();
    const type = TYPES[qtype] ?? String(qtype);
    queries.push({ name, type });
    const record = records[name];
    if (record === 'silent') return;
    const addresses = (record ?? []).filter((a) => (qtype === 1 ? isIP(a) === 4 : qtype === 28 ? isIP(a) === 6 : false));
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(0x8180 | (record === undefined ? 3 : 0), 2); // response, recursion desired and available; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((a) => {
      const data = isIP(a) === 4 ? Buffer.from(a.split('.').map(Number)) : ipv6Bytes(a);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(qtype, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(60, 6); // TTL
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    socket.send(Buffer.concat([header, msg.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
