/**
 * Requests Node's HTTP parser refuses before the app sees them: headers past Node's 16 KiB limit
 * (431), a request that does not arrive whole within PLATEN_REQUEST_TIMEOUT_MS (408), bytes that
 * are not HTTP (400). Node answers those with an empty body; here they get the API's JSON error
 * model like every other answer, then the connection is closed.
 */
import { STATUS_CODES } from 'node:http';
import type { Server } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ApiErrorCode } from './errors.ts';

/** The status, code and detail of a parser error (Node's `err.code`). */
export function clientErrorAnswer(nodeCode: string | undefined, requestTimeoutMs: number): { status: number; code: ApiErrorCode; detail: string } {
  if (nodeCode === 'HPE_HEADER_OVERFLOW') return { status: 431, code: 'HEADERS_TOO_LARGE', detail: 'the request headers are larger than 16 KiB together; send shorter ones' };
  if (nodeCode === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'REQUEST_TIMEOUT', detail: `the request did not arrive whole within ${requestTimeoutMs} ms (PLATEN_REQUEST_TIMEOUT_MS); the connection is closed` };
  return { status: 400, code: 'BAD_REQUEST', detail: `the request is not valid HTTP/1.1 (${nodeCode ?? 'unreadable'})` };
}

/** Answer parser errors of `server` with JSON bodies (see the module comment). */
export function answerClientErrors(server: Server, requestTimeoutMs: number): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
    // As Node does: an answer only on a connection that can still take one and has been sent nothing.
    if (err.code !== 'ECONNRESET' && socket.writable && socket.bytesWritten === 0) {
      const { status, code, detail } = clientErrorAnswer(err.code, requestTimeoutMs);
      const body = JSON.stringify({ code, detail });
      socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
    socket.destroy(err);
  });
}
