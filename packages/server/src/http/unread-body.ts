import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How much of a refused request's body is read and thrown away before the connection is closed. */
export interface DiscardLimits {
  bytes: number;
  ms: number;
}

/**
 * A refusal can be decided before the body has all arrived: an upload over its limit, a token
 * missing on an upload, a body over its limit (413). Answering then and closing the connection resets
 * it under a client still sending, and clients that read the answer only once they have sent their
 * body (Node's fetch, many HTTP libraries) report a network failure instead of the error body. So
 * the rest is read and thrown away first, up to a bound, as nginx's lingering close does; past the
 * bound the answer goes out with `Connection: close`, and the connection lingers (`lingerOnClose`).
 */
export const REFUSED_BODY_DISCARD: DiscardLimits = { bytes: 32 * 1024 * 1024, ms: 10_000 };

/** How long a connection closed past the bound keeps reading (and dropping) what the client still sends. */
const LINGER_MS = 2_000;

/**
 * Closes a connection after its answer the way nginx's lingering close does: the answer is sent
 * and the sending side shut (FIN), but what the client still sends is read and dropped for a
 * moment before the socket is destroyed. Destroying it with unread bytes would reset it, and a
 * reset can discard the answer on the client's side before the client has read it.
 */
export function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('end', () => this.destroy()).once('close', () => clearTimeout(timer));
  };
}

/**
 * Reads and drops what is left of a request's body. Resolves true once it has all arrived (the
 * connection can be kept), false when it was cut off by the limits or the client went away.
 */
export function discardUnreadBody(request: IncomingMessage, limits: DiscardLimits): Promise<boolean> {
  if (isBodyRead(request)) return Promise.resolve(true);
  // A body declared past the bound would be cut off anyway: the answer goes out at once.
  if (request.destroyed || Number(request.headers['content-length']) > limits.bytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let bytes = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      request.off('data', count).off('end', ended).off('close', closed).off('error', closed);
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.bytes) finish(false);
    };
    const ended = () => finish(true);
    const closed = () => finish(request.complete);
    const timer = setTimeout(() => finish(false), limits.ms);
    request.on('data', count).on('end', ended).on('close', closed).on('error', closed);
    request.resume();
  });
}

/** Whether the whole body has arrived and been read (`complete` alone is not set by injected requests). */
export function isBodyRead(request: IncomingMessage): boolean {
  return request.complete || request.readableEnded;
}
