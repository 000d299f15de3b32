import type { Socket } from 'node:net';
import { AppError, refusedRequestBody } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';

/** What a request Node's HTTP parser refused was wrong with, by the parser's error code. */
const PARSER_REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'the request line and headers are larger than 16 KiB',
  HPE_INVALID_METHOD: 'the method is not a valid HTTP method',
  HPE_INVALID_URL: 'the request target is not a valid URL',
  HPE_INVALID_CONTENT_LENGTH: 'the Content-Length header is not valid',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length and Transfer-Encoding cannot both be sent',
  HPE_INVALID_TRANSFER_ENCODING: 'the Transfer-Encoding header is not valid',
  HPE_INVALID_CHUNK_SIZE: 'a chunk size of the body is not valid',
  HPE_INVALID_HEADER_TOKEN: 'a header name or value holds a character HTTP does not allow',
  HPE_INVALID_VERSION: 'the HTTP version is not valid',
  ERR_HTTP_REQUEST_TIMEOUT: 'the request did not arrive in time',
};

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it (headers over Node's
 * 16 KiB, a malformed request line or header, a request that did not arrive in time) with the
 * registry's 400 body that every family answers for a refused request, then closes the
 * connection. The request was never parsed, so its family is unknown; the 400 body is the same in
 * all of them. A connection the client already reset gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const detail = PARSER_REFUSALS[error.code ?? ''] ?? 'the request is not valid HTTP';
    const body = JSON.stringify(refusedRequestBody(new AppError(Errors.BadRequest, { detail })));
    // Ended rather than destroyed, and what else arrives read and dropped: closing with unread
    // bytes would reset the connection and could take the answer with it.
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    socket.resume();
    setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
    return;
  }
  socket.destroy();
}

/** How long a refused connection may keep sending before it is closed. */
const CLOSE_AFTER_MS = 5_000;
